package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"apic/core/cli"
)

// writeContext writes the context points on screen (w) for calibrate
// --data, in SaveDir under the first free apic-SYSTEM-context-N.csv,
// and says the calibrate command that fits them with the model shown:
// a handout, or a check of the explorer against the CLI, that matches
// the screen (simulate --csv draws its own points).
func (m Model) writeContext() (tea.Model, tea.Cmd) {
	if m.res == nil || m.res.err != nil {
		m.setKeyMsg(msgWarn, "no prediction on screen yet: nothing to write")
		return m, nil
	}
	args, unsaved := m.calibrateModelArgs()
	path := suggestContextPath(m.opts.SaveDir, m.sys().Name())
	command, err := cli.WriteContextCSV(m.sys(), m.res.task.Context, m.real.Side, path, args...)
	if err != nil {
		m.setMsg(msgErr, "cannot write the context: %s", writeContextError(path, err))
		return m, nil
	}
	what := fmt.Sprintf("wrote %d context points to %s", m.res.task.Context.Len(), path)
	if unsaved != "" {
		m.setMsg(msgWarn, "%s; %s, then: %s --checkpoint FILE", what, unsaved, command)
		return m, nil
	}
	m.setMsg(msgInfo, "%s (its second line says how to calibrate them): %s", what, command)
	return m, nil
}

// calibrateModelArgs is the calibrate flags that name the model on
// screen and the explorer's latent samples; for weights in no file
// (trained here and not saved, or untrained) unsaved says so instead of
// naming one.
func (m Model) calibrateModelArgs() (args []string, unsaved string) {
	e := m.entry()
	switch {
	case e.src == srcAtlas || e.src == srcFile:
		args = []string{"--checkpoint", e.readFrom()}
	case e.saved != "":
		args = []string{"--checkpoint", e.saved}
	case e.src == srcEmbedded:
		args = []string{"--backbone", m.key().backbone}
	default:
		unsaved = "these weights are in no file: save them (s)"
	}
	return append(args, "--samples", strconv.Itoa(samplesFor(m.sys()))), unsaved
}

// suggestContextPath is the first apic-SYSTEM-context-N.csv in dir that
// does not exist yet, with no -u0.csv beside it either.
func suggestContextPath(dir, system string) string {
	for n := 1; ; n++ {
		p := filepath.Join(dir, fmt.Sprintf("apic-%s-context-%d.csv", system, n))
		_, err := os.Lstat(p)
		_, errSide := os.Lstat(filepath.Join(dir, fmt.Sprintf("apic-%s-context-%d-u0.csv", system, n)))
		// Any other error ends the search too, as suggestPath's: the
		// write then reports the cause.
		if err != nil && errSide != nil {
			return p
		}
	}
}

// writeContextError is why w wrote nothing: where the directory takes
// no files, it and the cause, as the save says them; the error itself
// names the temporary file of the atomic write ("open
// ./.apic-spring-context-1.csv.tmp-701484604: permission denied").
func writeContextError(path string, err error) string {
	dir := filepath.Dir(path)
	if abs, aerr := filepath.Abs(dir); aerr == nil {
		dir = abs
	}
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "no permission to write in " + dir
	case errors.Is(err, fs.ErrNotExist):
		return "directory " + dir + " does not exist (removed since the explorer started?)"
	}
	return err.Error()
}
