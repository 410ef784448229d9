package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"apic/core"
)

// checkSweepFolder refuses an --out that holds another sweep's cells,
// before any cell runs or file is written: a folder holds one sweep.
// Cells of other axes make --collect fail, and cells made by other
// settings (--system, --backbone, --fix, --tasks) would be mixed into
// this sweep's results, or skipped as finished. Every existing cell is
// compared with what this sweep writes for its values and seed, so
// that cells this sweep does not share (other --vary values, seeds) are
// checked too. Those of the same axes and settings are this sweep's: a
// rerun with more values or seeds extends it. A preset's folder, which
// holds its studies' sweeps, is refused too.
func checkSweepFolder(s sweepSpec, cells []sweepCell, out string) error {
	if err := checkNotPresetFolder(out); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(out, "cells"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return UsageError("--out %s: reading the cells of the sweep there: %v", out, err)
	}
	ours := map[string]sweepCell{}
	for _, c := range cells {
		ours[c.ID] = c
	}
	for _, e := range entries {
		switch {
		case e.IsDir():
			if err := checkOldCell(s, out, e.Name(), ours); err != nil {
				return err
			}
		case e.Type()&fs.ModeSymlink != 0:
			// A folder linked in would be summarised as one of this
			// sweep's cells, or skipped as finished.
			return checkCellFolder(out, sweepCell{ID: e.Name()})
		}
	}
	return nil
}

// checkOldCell checks the existing cell folder out/cells/id against
// this sweep (checkSweepFolder): its files (readOldCell), its axes, its
// values where it has the name of one of this sweep's cells, their
// spelling and its settings (cmd.txt).
func checkOldCell(s sweepSpec, out, id string, ours map[string]sweepCell) error {
	dir := filepath.Join(out, "cells", id)
	// Before its files are read: a link among them is refused as one,
	// not as a cmd.txt of other settings, nor read as a finished cell's
	// result, whether the cell is this sweep's or one the summary reads.
	if err := checkCellFiles(out, sweepCell{ID: id}); err != nil {
		return err
	}
	old, c, ok, err := readOldCell(out, dir, ours)
	if err != nil || !ok {
		return err
	}
	if theirs, mine := settingNames(c.Axes), axisNamesOf(s.vary); theirs != mine {
		return UsageError("--out %s holds another sweep, which varies %s (%s); this one varies %s, and a folder holds one sweep. "+
			"Choose another --out, or continue that sweep with its own --vary axes and settings (in %s)",
			out, theirs, filepath.Join(dir, "cell.json"), mine, filepath.Join(dir, "cmd.txt"))
	}
	if mine, ok := ours[id]; ok {
		if err := checkSameCell(out, dir, c, mine); err != nil {
			return err
		}
	}
	if err := checkSpelling(s, out, dir, c); err != nil {
		return err
	}
	c.ID, c.values = id, nil
	for _, v := range s.vary {
		c.values = append(c.values, v.axis)
	}
	if want, same := sameCellCommand(old, s, c); !same {
		return otherSettingsError(out, c, old, want)
	}
	return nil
}

// readCellFile reads a file of a cell folder, refusing one that is not
// a regular file unopened: a named pipe there (made by hand, or left by
// a tool) would block the open, a sweep or --collect waiting for a
// writer that never comes, out of Ctrl-C's reach. One larger than
// core.LimitSweepCellFile is refused before it is read whole.
func readCellFile(path string) ([]byte, error) {
	if err := core.CheckRegularFile(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := core.LimitSweepCellFile
	// Read one byte past the bound: a file that grows after a Stat is
	// caught as well as one that was already too large.
	data, err := io.ReadAll(io.LimitReader(f, int64(limit.Max)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > limit.Max {
		return nil, fmt.Errorf("%s is larger than %d bytes (%d MiB), the %s limit (%s): not a file a sweep wrote; "+
			"remove that cell's folder (%s) and rerun its sweep to run it again",
			path, limit.Max, limit.Max>>20, limit.Name, limit.Why, filepath.Dir(path))
	}
	return data, nil
}

// readOldCell reads the cmd.txt and cell.json of the cell folder dir of
// out; ok is false for a folder that is left alone. A folder without
// cmd.txt ran nothing. One without cell.json, which runCell writes
// beside cmd.txt (an interruption may come between the two), is taken as
// this sweep's cell of that name, if it has one (ours), and is otherwise
// left to the sweep that made it. A finished cell (eval.json) lacking
// either is refused (checkFinishedHas).
func readOldCell(out, dir string, ours map[string]sweepCell) (old string, c sweepCell, ok bool, err error) {
	cmd, err := readCellFile(filepath.Join(dir, "cmd.txt"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", c, false, checkFinishedHas(out, dir, "cmd.txt")
	} else if err != nil {
		return "", c, false, err // it names the file
	}
	c, ok, err = readCellJSON(dir)
	if err != nil || ok {
		return string(cmd), c, ok, err
	}
	if err := checkFinishedHas(out, dir, "cell.json"); err != nil {
		return "", c, false, err
	}
	c, ok = ours[filepath.Base(dir)]
	return string(cmd), c, ok, nil
}

// checkFinishedHas refuses the finished cell (eval.json) of folder dir
// that lacks file, which runCell writes before it runs anything: its
// cmd.txt, without which its settings cannot be checked against this
// sweep's, or its cell.json, which names its values in the results.
// Neither is missing but by hand (or a partial copy of the folder).
func checkFinishedHas(out, dir, file string) error {
	if !evalWritten(dir) {
		return nil
	}
	why := map[string]string{"cmd.txt": "so its settings cannot be checked against this sweep's",
		"cell.json": "which names its values in the results"}[file]
	return UsageError("--out %s: the cell %s is finished (eval.json) but has no %s, %s: remove that cell's folder (%s) to run it again, or choose another --out",
		out, filepath.Base(dir), file, why, dir)
}

// readCellJSON is the cell that dir's cell.json describes; ok is false
// where it has none.
func readCellJSON(dir string) (c sweepCell, ok bool, err error) {
	path := filepath.Join(dir, "cell.json")
	data, err := readCellFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, false, nil
	} else if err != nil {
		return c, false, err
	}
	if c, err = parseCellJSON(data); err != nil {
		return c, false, UsageError("%s: %v: remove that cell's folder, or choose another --out", path, err)
	}
	return c, true, nil
}

// parseCellJSON is the cell that a cell.json's data describes, refused
// where it is none: not JSON, with a key a sweep does not write, without
// axes, a named axis or a seed (null, {}), with an axis that sweep does
// not know or names twice, or a value or seed no sweep writes
// (checkCellValues).
func parseCellJSON(data []byte) (c sweepCell, err error) {
	if err := decodeStrict(data, &c); err != nil {
		return c, err
	}
	if len(c.Axes) == 0 || c.Seed < 1 {
		return c, errors.New("no axes or no seed: not the description of a sweep's cell")
	}
	seen := map[string]bool{}
	for _, a := range c.Axes {
		if err := checkCellAxis(a, seen); err != nil {
			return c, err
		}
	}
	return c, checkCellValues(c)
}

// checkCellAxis refuses a cell.json's axis setting a that no sweep
// writes: without a name, with a control character, of an axis sweep
// does not know, or of one already in seen (which it adds a to).
func checkCellAxis(a cellSetting, seen map[string]bool) error {
	if a.Name == "" {
		return errors.New("an axis without a name: not the description of a sweep's cell")
	}
	// The names and values go to the terminal as they are: an escape
	// sequence there would act on it.
	for _, s := range []string{a.Name, a.Value} {
		if r, ok := controlRune(s); ok {
			return fmt.Errorf("axis %s: %s holds the control character %U, which no sweep writes: not the description of a sweep's cell", core.QuoteInput(a.Name), core.QuoteInput(s), r)
		}
	}
	// Another name, from a hand edit or another tool, would be
	// summarised as a column that no sweep can rerun.
	if _, known := lookupAxis(a.Name); !known {
		return fmt.Errorf("not the description of a sweep's cell: %w", unknownAxisError(a.Name))
	}
	if seen[a.Name] {
		return fmt.Errorf("not the description of a sweep's cell: axis %s is named twice", core.QuoteInput(a.Name))
	}
	seen[a.Name] = true
	return nil
}

// controlRune is the first control character in s, which a sweep
// neither takes in a value nor writes to a cell's files.
func controlRune(s string) (rune, bool) {
	for _, r := range s {
		if unicode.IsControl(r) {
			return r, true
		}
	}
	return 0, false
}

// settingNames are the axes of a cell's settings, as the messages name
// them: "context, noise".
func settingNames(settings []cellSetting) string {
	names := make([]string, len(settings))
	for i, a := range settings {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// axisNamesOf are the names of the varied axes, as settingNames.
func axisNamesOf(vary []axisValues) string {
	names := make([]string, len(vary))
	for i, v := range vary {
		names[i] = v.axis.name
	}
	return strings.Join(names, ", ")
}

// otherSettingsError refuses cell c of out, whose cmd.txt old is not
// want, the text this sweep writes for it, and says where they differ
// (of the two as sameSettings compares them).
func otherSettingsError(out string, c sweepCell, old, want string) error {
	if len(old) < len(want) && strings.HasPrefix(want, old) {
		return cutShortCommandError(out, c, old, want)
	}
	was, now := commandDifference(canonicalCommand(old), canonicalCommand(want))
	return UsageError("--out %s holds another sweep, of other settings: its cell %s ran with %s where this sweep has %s (%s). "+
		"Choose another --out, or continue that sweep with its --system, --backbone, --fix and --tasks (more --vary values or --seeds add cells to it)",
		out, c.ID, quoteWords(was), quoteWords(now), filepath.Join(cellDir(out, c), "cmd.txt"))
}

// cutShortCommandError refuses cell c of out, whose cmd.txt old is the
// start of want and no more: a file cut short (a disk that filled, an
// editor, a partial copy), not another sweep's settings, so the cure is
// to run that cell again rather than to choose another --out.
func cutShortCommandError(out string, c sweepCell, old, want string) error {
	dir := cellDir(out, c)
	return UsageError("--out %s: the cell %s's %s is cut short (%d bytes, the start of the %d this sweep writes for it), so its settings cannot be checked: "+
		"remove that cell's folder (%s) to run it again",
		out, c.ID, filepath.Join(dir, "cmd.txt"), len(old), len(want), dir)
}

// commandDifference is where two cmd.txt texts differ, for a message:
// the words of the first line that differs, less those the two lines
// share at either end, a value with its flag ("--tasks 200" against
// "--tasks 20").
func commandDifference(old, want string) (was, now []string) {
	a, b := firstDifferentLine(old, want)
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	q := 0
	for q < len(a)-p && q < len(b)-p && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	first := append(append([]string{}, a[p:len(a)-q]...), b[p:len(b)-q]...)
	if p > 0 && len(first) > 0 && !strings.HasPrefix(first[0], "-") {
		p--
	}
	return a[p : len(a)-q], b[p : len(b)-q]
}

// firstDifferentLine is the words of the first line where a and b
// differ, of each (none past its last line). A line that one text has
// and the other lacks, the rest alike (a one-pass evaluation that one
// sweep runs), is that line against none, not against the next line.
func firstDifferentLine(a, b string) (wa, wb []string) {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(la), len(lb)); i++ {
		if i < len(la) && i < len(lb) && la[i] == lb[i] {
			continue
		}
		switch {
		case len(la) == len(lb)+1 && slices.Equal(la[i+1:], lb[i:]):
			return strings.Fields(la[i]), nil
		case len(lb) == len(la)+1 && slices.Equal(lb[i+1:], la[i:]):
			return nil, strings.Fields(lb[i])
		}
		if i < len(la) {
			wa = strings.Fields(la[i])
		}
		if i < len(lb) {
			wb = strings.Fields(lb[i])
		}
		return wa, wb
	}
	return nil, nil
}

// quoteWords quotes the words of a difference, "nothing" for none.
func quoteWords(words []string) string {
	if len(words) == 0 {
		return "nothing"
	}
	return core.QuoteInput(strings.Join(words, " "))
}

// checkSpelling refuses a value of this sweep that is an existing cell's
// value spelled another way (noise 0.05 against the cell's 5e-2): the
// two would be cells of different names for one setting, two rows of
// one value in the collected results.
func checkSpelling(s sweepSpec, out, dir string, c sweepCell) error {
	for i, v := range s.vary {
		if i >= len(c.Axes) {
			break
		}
		had := c.Axes[i].Value
		for _, given := range v.values {
			if given != had && v.axis.sameAs(given) == v.axis.sameAs(had) {
				return UsageError("--out %s holds a cell of %s=%s (%s); this sweep spells it %s: give %s as the folder does, so that the value's cells stay together",
					out, v.axis.name, had, filepath.Join(dir, "cell.json"), core.QuoteInput(given), core.QuoteInput(had))
			}
		}
	}
	return nil
}

// checkSameCell refuses an existing cell, had, whose folder dir has the
// name of this sweep's cell mine but which is of other values (or
// another seed): values that differ only in characters a folder name
// does not keep ("m 1.safetensors" and "m_1.safetensors") share a
// folder, and the sweep would skip mine as finished and show had's
// results for it. had has mine's axes (checkOldCell).
func checkSameCell(out, dir string, had, mine sweepCell) error {
	same := had.Seed == mine.Seed
	for i, a := range mine.values {
		same = same && sameValue(a, had.Axes[i].Value, mine.Axes[i].Value)
	}
	if same {
		return nil
	}
	return UsageError("--out %s holds the cell %s of %s (%s), a folder this sweep would use for %s: the values differ only in characters that a cell folder's name does not keep "+
		"(other than letters, digits, '.', '+' and '-'). Give this sweep's value another name (a checkpoint: a renamed or linked copy), or choose another --out",
		out, filepath.Base(dir), cellWords(had), filepath.Join(dir, "cell.json"), cellWords(mine))
}

// sameValue reports whether x and y are one value of axis a: the same
// text, or spellings of one number (sameAs) where both are values of a.
func sameValue(a sweepAxis, x, y string) bool {
	if x == y {
		return true
	}
	if a.checkValue(x) != nil || a.checkValue(y) != nil {
		return false
	}
	return a.sameAs(x) == a.sameAs(y)
}

// cellWords are a cell's values and seed, as messages name them:
// checkpoint="m 1.safetensors", seed 1.
func cellWords(c sweepCell) string {
	var words []string
	for _, a := range c.Axes {
		words = append(words, a.Name+"="+core.QuoteInput(a.Value))
	}
	return strings.Join(append(words, fmt.Sprintf("seed %d", c.Seed)), ", ")
}

// sameSettings reports whether the cmd.txt texts a and b run the same
// commands: equal but for the order of the sweep's settings (--fix
// samples=2 --fix noise=0.01 and the other way round), the spelling of
// their numbers (noise 0.01 and 1e-2), --backbone B given apart or as
// --fix backbone=B, and the settings that are the command's defaults
// (canonicalCommand).
func sameSettings(a, b string) bool {
	return a == b || canonicalCommand(a) == canonicalCommand(b)
}

// canonicalCommand is cmd.txt text as sameSettings compares it: on each
// line the sweep's settings, its --flag=value words, in the order of
// their flags, each number as the axis's flag reads it (sameAs), less
// those that are the command's default (commandDefaults).
func canonicalCommand(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = canonicalLine(l)
	}
	return strings.Join(lines, "\n")
}

// canonicalLine is one line of canonicalCommand: "apic CMD" and its
// words, as shellLine writes them, the settings where the first was.
// The sweep's --backbone B, written apart (--backbone B), is the
// setting --backbone=B that --fix backbone=B writes: the command reads
// the two alike.
func canonicalLine(line string) string {
	words := shellWords(line)
	if len(words) < 2 || words[0].text != "apic" {
		return line
	}
	var kept, settings []string
	at := -1
	for i := 0; i < len(words); i++ {
		w := words[i]
		setting, ok := strings.CutPrefix(w.text, "--")
		if ok && w.text == "--backbone" && i+1 < len(words) {
			setting, i = "backbone="+words[i+1].text, i+1
		} else if !ok || !strings.Contains(setting, "=") {
			kept = append(kept, w.raw)
			continue
		}
		if at < 0 {
			at = len(kept)
		}
		settings = append(settings, setting)
	}
	if at < 0 {
		at = len(kept)
	}
	settings = canonicalSettings(words, settings)
	return strings.Join(slices.Insert(kept, at, settings...), " ")
}

// canonicalSettings are the settings (FLAG=VALUE) of the line of words
// (command words[1]), sorted, each value as its axis reads it, less
// those that are the command's defaults (commandDefaults), as words of
// a line.
func canonicalSettings(words []shellWord, settings []string) []string {
	flags, values := make([]string, len(settings)), map[string]string{}
	for i, setting := range settings {
		flag, value, _ := strings.Cut(setting, "=")
		if a, ok := axisOfFlag(flag); ok && a.checkValue(value) == nil {
			value = a.sameAs(value)
		}
		flags[i], values[flag] = flag, value
	}
	defaults := commandDefaults(words, values)
	var kept []string
	for _, flag := range flags {
		if def, ok := defaults[flag]; !ok || def != values[flag] {
			kept = append(kept, "--"+flag+"="+values[flag])
		}
	}
	sort.Strings(kept)
	for i, w := range kept {
		kept[i] = shellQuote(w)
	}
	return kept
}

// axisOfFlag is an axis that sets flag: of train's noise, the evaluation
// axis noise, read alike.
func axisOfFlag(flag string) (sweepAxis, bool) {
	return findAxis(func(a sweepAxis) bool { return a.flag == flag })
}

// shellWord is a word of a cmd.txt line, as written (raw) and as the
// shell reads it (text).
type shellWord struct{ raw, text string }

// shellWords splits a line that shellLine wrote into its words: runs
// of characters outside '...' quotes, a backslash escaping the next.
func shellWords(line string) []shellWord {
	var words []shellWord
	var raw, text strings.Builder
	quoted := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case !quoted && ch == ' ':
			if raw.Len() > 0 {
				words = append(words, shellWord{raw.String(), text.String()})
				raw.Reset()
				text.Reset()
			}
			continue
		case ch == '\'':
			quoted = !quoted
		case !quoted && ch == '\\' && i+1 < len(line):
			raw.WriteByte(ch)
			i++
			ch = line[i]
			text.WriteByte(ch)
		default:
			text.WriteByte(ch)
		}
		raw.WriteByte(ch)
	}
	if raw.Len() > 0 {
		words = append(words, shellWord{raw.String(), text.String()})
	}
	return words
}
