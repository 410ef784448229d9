package cli

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"apic/core"
	"apic/sims"
)

// simulate --csv writes an exercise for calibrate: a sparse, noisy
// observation file of one realization's true process, in exactly the
// format calibrate --data reads, and the command that calibrates it.

// csvSplitStream is the PCG stream of --csv's choice of points and
// noise. It is not simulateStream, so that --seed N names the same
// realization with --csv as without.
const csvSplitStream = 0x73696d2d637376 // "sim-csv" in ASCII

// csvRequest is what simulate's --csv, --context and --noise ask for.
type csvRequest struct {
	path     string  // the observation file
	sidePath string  // the side-information file (a field, as advdiff's u0), or ""
	context  int     // observation points
	noise    float64 // Gaussian noise σ on each observed value
	// noDiscrepancy marks observations of G = F (--no-discrepancy) in
	// the file's first line.
	noDiscrepancy bool
}

// simulateCSVHelp is the paragraph of simulate --help on --csv.
const simulateCSVHelp = `

--csv FILE writes observations of the true process G for calibrate
--data to practise on: --context N grid points (default: the system's
test context size, 30 for spring and lv, 256 for advdiff) chosen at
random as eval chooses its context, each value with Gaussian noise of
standard deviation --noise σ (default 0), both drawn from --seed. It
then prints the calibrate command that reads FILE: for lv with the --u0
to give; advdiff's u0, a field, goes to a second file beside FILE
(obs.csv: obs-u0.csv) for --u0-file; the two are written together, so
that when either cannot be, neither is replaced. An existing file is
replaced only if --csv wrote it (its first line the comment "# written
by apic simulate --csv", which calibrate skips).`

// checkCSVRequest checks simulate's --csv, --context and --noise up
// front, before anything is drawn or written; given says which flags
// were set. u0File is simulate's --u0-file input, which the output must
// not overwrite.
func checkCSVRequest(sys sims.System, path string, context int, noise float64, given map[string]bool, u0File string) (csvRequest, error) {
	if path == "" {
		if given["context"] || given["noise"] {
			return csvRequest{}, UsageError("--context and --noise choose the observations that --csv writes: give --csv FILE too")
		}
		return csvRequest{}, nil
	}
	points := min(sys.Grid().Points(), core.LimitObservations.Max)
	switch {
	case context < 0:
		return csvRequest{}, UsageError("--context must be ≥ 0 (0: the system's test size, %d), got %d", sys.TestContext(), context)
	case context > points:
		return csvRequest{}, UsageError("--context %d is more than the %d points of %s's grid", context, points, sys.Name())
	case context == 0:
		context = sys.TestContext()
	}
	if err := checkNoise(noise); err != nil {
		return csvRequest{}, err
	}
	req := csvRequest{path: path, context: context, noise: noise}
	if side := sys.Side(); side.Len > 0 && side.Labels == nil {
		req.sidePath = sideCSVPath(path)
	}
	if err := checkCSVTarget(req.path, u0File); err != nil {
		return csvRequest{}, err
	}
	if req.sidePath != "" {
		if err := checkCSVTarget(req.sidePath, u0File); err != nil {
			return csvRequest{}, UsageError("the u0 file --csv %s writes beside it: %v", path, err)
		}
		// A link at one name to the other would have the second save
		// write over the first: the observations would be lost.
		if sameFile(req.path, req.sidePath) {
			return csvRequest{}, UsageError("--csv %s and the u0 file it writes beside it, %s, are the same file (a link leads from one to the other): the u0 would replace the observations; remove the link or choose another name", path, req.sidePath)
		}
	}
	return req, nil
}

// checkCSVTarget checks a file --csv would write, out, before anything
// is drawn: a path it can save to, not the --u0-file it reads, and
// empty or written by --csv before (isApicCSV).
func checkCSVTarget(out, u0File string) error {
	if err := checkOutputPath("csv", out, "a CSV file"); err != nil {
		return err
	}
	if err := checkHasStem("csv", out, "obs.csv"); err != nil {
		return err
	}
	if u0File != "" && u0File != "-" && sameFile(out, u0File) {
		return UsageError("--csv would write %s, the --u0-file it reads; choose another name", out)
	}
	return checkReplacesOnly("csv", out, "a file that simulate --csv wrote", isApicCSV)
}

// sideCSVPath is where --csv path writes a side-information field:
// beside it, its name less a .csv extension, then "-u0.csv".
func sideCSVPath(path string) string {
	base := path
	if ext := filepath.Ext(path); strings.EqualFold(ext, ".csv") {
		base = strings.TrimSuffix(path, ext)
	}
	return base + "-u0.csv"
}

// simulateCSVMark opens the first line of every file --csv writes, a
// comment that calibrate skips: only such a file is replaced, never a
// measurement file with the same header.
const simulateCSVMark = "# written by apic simulate --csv"

// isApicCSV reports whether head, a file's first bytes, opens with the
// line simulateCSVMark begins: rerunning simulate --csv replaces its
// own file, but not notes, a script or someone's measurements.
func isApicCSV(head []byte, _ int64) bool {
	text := strings.TrimPrefix(string(head), byteOrderMark)
	return strings.HasPrefix(text, simulateCSVMark)
}

// drawObservations draws req.context observations of r's true process
// with noise req.noise from seed, as eval splits a realization
// (sims.Split: a permutation of the grid points, then one normal draw
// per value), in grid order. Values beyond what calibrate accepts
// (core.SaneValueBound, which only a huge --noise reaches) are refused.
func drawObservations(sys sims.System, r sims.Realization, req csvRequest, seed uint64) (sims.Context, error) {
	rng := rand.New(rand.NewPCG(seed, csvSplitStream))
	split := sims.NewSplit(sys, rng)
	// The context is the permutation's first points, each with its own
	// noise draw (Eps is laid out as the grid): in grid order they are
	// the same observations.
	slices.Sort(split.Perm[:min(req.context, len(split.Perm))])
	task, err := split.Task(sys, r, r.True, req.context, req.noise)
	if err != nil {
		return sims.Context{}, fmt.Errorf("--csv: %w", err)
	}
	sane := core.SaneValueBound(sys)
	channels := sys.Grid().Channels
	for _, values := range task.Context.Values {
		for c, v := range values {
			if math.Abs(v) > sane[c] {
				return sims.Context{}, UsageError("--noise %v puts %s = %s beyond the range |%s| ≤ %.4g that calibrate accepts: give a smaller --noise", req.noise, channels[c], fmtFloat(v), channels[c], sane[c])
			}
		}
	}
	return task.Context, nil
}

// observationCSV is the content of the file of obs in calibrate
// --data's format: the header of sys's grid (obsHeader), then one row
// per observation, its states then its values.
func observationCSV(sys sims.System, obs sims.Context, mark string, noDiscrepancy bool, comments ...string) func(io.Writer) error {
	rows := make([][]float64, len(obs.States))
	for i, state := range obs.States {
		rows[i] = append(slices.Clip(state), obs.Values[i]...)
	}
	what := "(" + sys.Name() + ")"
	if noDiscrepancy {
		what = "(" + sys.Name() + ", --no-discrepancy: G = F)"
	}
	return markedCSV(mark, what+": observations for calibrate --data", obsHeader(sys.Grid()), rows, comments...)
}

// sideCSV is the content of a side-information field's file in
// --u0-file's format: the header x,u, then one row per grid position.
func sideCSV(sys sims.System, side []float64, mark string) (func(io.Writer) error, error) {
	axis := sideAxisOf(sys.Grid(), len(side))
	if axis.pos == nil {
		return nil, fmt.Errorf("--csv: %s's %s has no grid positions to write", sys.Name(), sys.Side().Name)
	}
	rows := make([][]float64, len(side))
	for i, v := range side {
		rows[i] = []float64{axis.pos[i], v}
	}
	return markedCSV(mark, "("+sys.Name()+"): the initial state for calibrate --u0-file", []string{"x", "u"}, rows), nil
}

// markedCSV writes the comment line mark followed by note, a comment
// line "# C" for each of comments, the header and the rows, every
// number in the shortest form that reads back to the same float64, so
// that states land exactly on the grid.
func markedCSV(mark, note string, header []string, rows [][]float64, comments ...string) func(io.Writer) error {
	return func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "%s %s\n", mark, note); err != nil {
			return err
		}
		for _, c := range comments {
			if _, err := fmt.Fprintf(w, "# %s\n", c); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintln(w, strings.Join(header, ",")); err != nil {
			return err
		}
		for _, row := range rows {
			fields := make([]string, len(row))
			for k, v := range row {
				fields[k] = fmtFloat(v)
			}
			if _, err := fmt.Fprintln(w, strings.Join(fields, ",")); err != nil {
				return err
			}
		}
		return nil
	}
}

// warnNoiseBeyondShipped warns when --noise σ is above the noise the
// system's shipped checkpoints were trained on (shippedNoiseRange):
// allowed, since a model trained on more may calibrate the file, but a
// σ of 1 typed for 0.1 would otherwise be seen only in calibrate's
// intervals.
func warnNoiseBeyondShipped(env *Env, sys sims.System, noise float64) {
	lo, hi, ok := shippedNoiseRange(sys)
	if ok && noise > hi*(1+1e-9) { // the tolerance of core's RangeWarnings
		env.Warnf("--noise %v is more than the shipped %s checkpoints were trained on (σ from %v to %v): calibrating this file with them, their intervals do not account for the extra noise", noise, sys.Name(), lo, hi)
	}
}

// shippedNoiseRange is the range of noise σ the system's embedded
// checkpoints were trained on, from the lowest of their Train.Noise to
// the highest of their top (core.Model.TrainingRange's NoiseHi); ok is
// false when none is shipped.
func shippedNoiseRange(sys sims.System) (lo, hi float64, ok bool) {
	for _, b := range core.Backbones {
		data, found := lookupEmbedded(sys.Name(), string(b))
		if !found {
			continue
		}
		cfg, err := core.DecodeCheckpointConfig(data)
		if err != nil {
			continue // a broken shipped file is the commands' to report
		}
		t := cfg.Train
		if !ok || t.Noise < lo {
			lo = t.Noise
		}
		hi, ok = max(hi, t.Noise, t.NoiseMax), true
	}
	return lo, hi, ok
}

// writeCSVExercise draws the observations req asks for, writes them
// (and a side field) and says on stderr what it wrote and the calibrate
// command that reads it.
func writeCSVExercise(env *Env, sys sims.System, r sims.Realization, req csvRequest, seed uint64) error {
	obs, err := drawObservations(sys, r, req, seed)
	if err != nil {
		return err
	}
	warnNoiseBeyondShipped(env, sys, req.noise)
	files, args, wrote, err := observationFiles(sys, obs, r.Side, req.path, req.sidePath, simulateCSVMark, req.noDiscrepancy)
	if err != nil {
		return err
	}
	// Both files or neither: new observations beside an old u0 would
	// calibrate against the wrong initial state.
	if err := writeFilesTogether(files); err != nil {
		return fmt.Errorf("--csv: %w", err)
	}
	env.Notef("wrote %s of the true process (noise σ = %v, seed %d) to %s; calibrate them with:\n  %s",
		core.Count(obs.Len(), "observation"), req.noise, seed, wrote, args)
	return nil
}

// observationFiles is the files that hold obs, observations of a
// realization of sys whose side information is side, for calibrate:
// the observations at path and, for a side field (advdiff's u0), the
// field at sidePath; then the calibrate command that reads them (a
// side vector, lv's u0, given in it; then modelArgs, each quoted for
// the shell) and what was written where. Each file's first line is the
// comment mark, with a note on the file; with modelArgs, the
// observations' second line is a comment with the command.
func observationFiles(sys sims.System, obs sims.Context, side []float64, path, sidePath, mark string, noDiscrepancy bool, modelArgs ...string) (files []pairFile, command, wrote string, err error) {
	args := []string{"apic", "calibrate", "--system", sys.Name(), "--data", shellQuote(path)}
	wrote = path
	switch si := sys.Side(); {
	case sidePath != "":
		write, err := sideCSV(sys, side, mark)
		if err != nil {
			return nil, "", "", err
		}
		files = append(files, pairFile{sidePath, write})
		args = append(args, "--u0-file", shellQuote(sidePath))
		wrote += fmt.Sprintf(" and its %s to %s", si.Name, sidePath)
	case si.Len > 0:
		values := make([]string, len(side))
		for i, v := range side {
			values[i] = fmtFloat(v)
		}
		args = append(args, "--u0", strings.Join(values, ","))
	}
	for _, a := range modelArgs {
		args = append(args, shellQuote(a))
	}
	command = strings.Join(args, " ")
	var comments []string
	if len(modelArgs) > 0 {
		comments = []string{"calibrate: " + command}
	}
	// The observations first: both or neither are written, in this order.
	files = append([]pairFile{{path, observationCSV(sys, obs, mark, noDiscrepancy, comments...)}}, files...)
	return files, command, wrote, nil
}

// explorerCSVMark opens the first line of the files the explorer's w
// writes, a comment that calibrate skips.
const explorerCSVMark = "# written by the apic explorer"

// WriteContextCSV writes obs, the context points of one realization of
// sys whose side information is side, to path in calibrate --data's
// format, and a side field (advdiff's u0) beside it (path less .csv,
// then -u0.csv), both or neither, so that calibrate can read what the
// explorer showed. A file at either path is refused, not replaced: the
// explorer picks free names. It returns the calibrate command that
// reads them, ending in modelArgs (the flags that name the model), which
// the observations' second line also holds as a comment.
func WriteContextCSV(sys sims.System, obs sims.Context, side []float64, path string, modelArgs ...string) (string, error) {
	sidePath := ""
	if sideAxisOf(sys.Grid(), len(side)).pos != nil {
		sidePath = sideCSVPath(path)
	}
	for _, p := range []string{path, sidePath} {
		if p == "" {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			return "", fmt.Errorf("%s exists already: not replaced", p)
		}
	}
	files, command, _, err := observationFiles(sys, obs, side, path, sidePath, explorerCSVMark, false, modelArgs...)
	if err != nil {
		return "", err
	}
	if err := writeFilesTogether(files); err != nil {
		return "", err
	}
	return command, nil
}
