package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"apic/checkpoints"
	"apic/checkpoints/checkpointstest"
	"apic/core"
	"apic/nets"
)

// TestInspectEmbedded: inspect reads the checkpoints embedded in the
// program by the name the other commands print for them, and lists them
// for a name that is not one.
func TestInspectEmbedded(t *testing.T) {
	code, out, errOut := runCLI(t, "inspect", "--json", "embedded:spring-lnp.safetensors")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		File, Checkpoint, System, Backbone string
		Parameters                         int
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if got.File != "embedded:spring-lnp.safetensors" || got.Checkpoint != got.File || got.System != "spring" || got.Backbone != "lnp" || got.Parameters == 0 {
		t.Errorf("inspect says %+v", got)
	}
	// The shipped files' tables: shapes of θ's intervals and of the
	// bands in both, and θ's factors per parameter and θ's share in δ's
	// band in the one pass's.
	code, out, errOut = runCLI(t, "inspect", "embedded:lv-lnp.safetensors")
	for _, want := range []string{
		"  conditions: 24 cells, context [1 2 5 10 30 60] × noise [0 0.01 0.05 0.1], calibrated θ interval shapes, calibrated band shapes\n",
		"  one-pass conditions: 24 cells, context [1 2 5 10 30 60] × noise [0 0.01 0.05 0.1], calibrated θ interval shapes, θ factors per parameter, calibrated band shapes, δ band with θ's share\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q (exit %d, %s):\n%s", want, code, errOut, out)
		}
	}
	// spring's refined bands widen by refinement's move (disagree.go);
	// only the default table has the weights.
	code, out, errOut = runCLI(t, "inspect", "embedded:spring-cnp.safetensors")
	if !strings.Contains(out, "calibrated band shapes, bands widened by refinement's move in 21 cells (κ 0.003–1)\n") || strings.Count(out, "widened") != 1 {
		t.Errorf("spring/cnp: inspect does not name the widened bands once (exit %d, %s):\n%s", code, errOut, out)
	}
	code, _, errOut = runCLI(t, "inspect", "embedded:nope.safetensors")
	if code != 2 || !strings.Contains(errOut, `no embedded checkpoint "nope.safetensors"`) || !strings.Contains(errOut, "lv-anp.safetensors") {
		t.Errorf("unknown embedded name: exit %d, %q", code, errOut)
	}
}

// TestInspectDevZero: an endless non-checkpoint (/dev/zero) is refused
// unread, as a usage error, as a device: no checkpoint is read from
// anything but a regular file.
func TestInspectDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", "/dev/zero"}, "/dev/zero is a character device, not a regular file"},
		{[]string{"eval", "--checkpoint", "/dev/zero"}, "--checkpoint /dev/zero: a character device, not a regular file"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestInspectAtlas: --atlas lists every atlas cell with what its file
// records, and each listed name reads back with inspect.
func TestInspectAtlas(t *testing.T) {
	code, out, errOut := runCLI(t, "inspect", "--atlas", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct{ Atlas []atlasRow }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if len(got.Atlas) != len(checkpoints.Atlas()) {
		t.Fatalf("%d rows, the atlas has %d cells", len(got.Atlas), len(checkpoints.Atlas()))
	}
	for _, r := range got.Atlas {
		if r.Backbone != "lnp" || r.Bytes == 0 || r.Steps1+r.Steps2 == 0 || r.Reg == "" {
			t.Errorf("row %+v", r)
		}
	}
	if len(got.Atlas) > 0 {
		if code, _, errOut := runCLI(t, "inspect", got.Atlas[0].File); code != 0 {
			t.Errorf("inspect %s: exit %d, %s", got.Atlas[0].File, code, errOut)
		}
	}
	code, out, _ = runCLI(t, "inspect", "--atlas")
	if code != 0 || !strings.Contains(out, "ablation atlas:") || !strings.Contains(out, "lambda-theta") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "inspect", "--atlas", "x.safetensors"); code != 2 || !strings.Contains(errOut, "takes no FILE") {
		t.Errorf("--atlas with a FILE: exit %d, %q", code, errOut)
	}
}

// TestInspectSaysWhatTheRecordHolds: inspect's text says that a file's
// steps and wall time add up every run that wrote it, that a last plan
// of 0+0 trained no steps (the file does not say whether it
// recalibrated), and what "trajectories 0" stands for.
func TestInspectSaysWhatTheRecordHolds(t *testing.T) {
	cfg := tinySpringConfig(t)
	cfg.Train.Steps1, cfg.Train.Steps2 = 0, 0 // as a recalibration records it
	m, err := core.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := core.SaveCheckpoint(path, m, core.Info{Steps1: 1000, Steps2: 6000, WallSeconds: 94.6}, nets.F32); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "inspect", path)
	for _, want := range []string{
		"training: steps 1000+6000 done in all runs (the last planned 0+0: it trained no steps), ",
		", fresh realizations every step\n",
		"  wall time: 94.6 s of training, all runs together (recalibrations not counted)\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q (exit %d, %s):\n%s", want, code, errOut, out)
		}
	}
}

// TestInspectOnePassDefault: a file that predicts in one pass by
// default says so on its inference line, and that the refinement
// settings it keeps apply only with --refine N; a refining file gives
// its count and those settings.
func TestInspectOnePassDefault(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		refine int
		want   string
	}{
		{0, "  inference: one-pass predictions by default (refinement's settings, z_θ prior ×10 and θ prior theta, apply only with --refine N), "},
		{1, "  inference: 1 refinement step (z_θ prior ×10, θ prior theta), "},
		{5, "  inference: 5 refinement steps (z_θ prior ×10, θ prior theta), "},
	} {
		cfg := tinySpringConfig(t)
		cfg.Infer.Refine, cfg.Infer.ZThetaPrior, cfg.Infer.ThetaPrior = tc.refine, 10, core.ThetaPriorTheta
		m, err := core.NewModel(cfg)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "m.safetensors")
		if err := core.SaveCheckpoint(path, m, core.Info{Steps1: 1}, nets.F32); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, "inspect", path)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("refine %d: inspect lacks %q (exit %d, %s):\n%s", tc.refine, tc.want, code, errOut, out)
		}
	}
}

// TestInspectNotACheckpoint: a file that is not safetensors (a README)
// is first said not to be a checkpoint, with what it is after; a file
// that cannot be opened keeps the system's words.
func TestInspectNotACheckpoint(t *testing.T) {
	d := checkpointstest.WriteDamaged(t)
	text := d.Text
	what := `not a checkpoint (safetensors) file: a text file that begins "# apic", `
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", text}, text + " is " + what},
		{[]string{"eval", "--checkpoint", text}, "--checkpoint " + text + ": " + what},
	} {
		if code, _, errOut := runCLI(t, tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
	// A damaged one: the reason alone, without the decoder's framing
	// ("safetensors: ") or the path again.
	cut := d.Cut
	if code, _, errOut := runCLI(t, "inspect", cut); code != 2 || errOut != "apic inspect: "+cut+" is not a checkpoint (safetensors) file: header length 7 exceeds the 4 bytes after it (the file is truncated, or not a safetensors file)\nrun 'apic inspect --help' for usage\n" {
		t.Errorf("damaged file: exit %d, %q", code, errOut)
	}
	missing := d.Missing
	if code, _, errOut := runCLI(t, "inspect", missing); code != 2 || !strings.Contains(errOut, "apic inspect: "+missing+": no such file or directory") {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
}

// TestInspectValidationConditionsAndWarnings: inspect's text states the
// conditions of the recorded validation (where its realizations come
// from, context, noise, samples, refinement), as eval's header does, and
// prints the record's failures and warnings, which --json holds: a model
// whose θ intervals are the prior's says so here too.
func TestInspectValidationConditionsAndWarnings(t *testing.T) {
	m, err := core.NewModel(tinySpringConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	wide := "omega: its std is at least 0.9 of the prior's own (1.44) in 32 of 32 realizations"
	rep := core.Report{Tasks: 32, Context: 30, Noise: 0.01, Seed: 7, Samples: 8, Refine: 5, Warnings: []string{wide}}
	rep.Failures.Count, rep.Failures.Realizations = 1, []core.Failure{{Index: 3, Reason: "not finite"}}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := core.SaveCheckpoint(path, m, core.Info{Steps1: 5, Steps2: 5, Metrics: &rep}, nets.F32); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "inspect", path)
	for _, want := range []string{
		"  validation (32 realizations from seed 7's validation stream, not eval's; context 30, noise 0.01, 8 samples, 5 refinement steps):\n",
		"  failures: 1 of 32 realizations",
		"  warning: " + wide,
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q (exit %d, %s):\n%s", want, code, errOut, out)
		}
	}
}

// TestInspectHeadsForAttentionOnly: inspect names attention heads in the
// architecture of an anp only; a cnp's or lnp's config carries the
// default count, which no layer of theirs uses.
func TestInspectHeadsForAttentionOnly(t *testing.T) {
	for _, tc := range []struct {
		backbone string
		heads    bool
	}{{"cnp", false}, {"lnp", false}, {"anp", true}} {
		code, out, errOut := runCLI(t, "inspect", "embedded:spring-"+tc.backbone+".safetensors")
		line, _, _ := strings.Cut(out[strings.Index(out, "  architecture: ")+1:], "\n")
		if code != 0 || strings.Contains(line, "heads") != tc.heads {
			t.Errorf("%s: exit %d (%s), architecture line %q, want heads named: %v", tc.backbone, code, errOut, line, tc.heads)
		}
	}
}
