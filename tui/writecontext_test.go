package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"apic/checkpoints"
	"apic/core/cli"
)

// TestWriteContextCalibratesAsShown: w writes the context on screen in
// calibrate --data's format (advdiff's u0 beside it) and says the
// calibrate command that fits it with the model shown; that command,
// asked for the one pass the screen shows, gives the screen's θ̂ ± σ.
func TestWriteContextCalibratesAsShown(t *testing.T) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		t.Run(sys, func(t *testing.T) {
			dir := t.TempDir()
			m, err := New(Options{System: sys, Embedded: checkpoints.Lookup, SaveDir: dir, RefineDelay: -1, Atlas: noAtlas, Averages: -1})
			if err != nil {
				t.Fatal(err)
			}
			m, _ = run(t, m, m.Init())
			m, _ = press(t, m, "w")
			path := filepath.Join(dir, "apic-"+sys+"-context-1.csv")
			command, ok := strings.CutPrefix(m.msg[strings.Index(m.msg, "apic calibrate"):], "apic ")
			if m.msgKind != msgInfo || !ok || !strings.Contains(m.msg, "wrote "+contextCount(m)+" context points to "+path) {
				t.Fatalf("message %q", m.msg)
			}
			if _, err := os.Stat(filepath.Join(dir, "apic-advdiff-context-1-u0.csv")); (err == nil) != (sys == "advdiff") {
				t.Errorf("u0 file: %v", err)
			}
			var stdout, stderr bytes.Buffer
			args := append(strings.Fields(command), "--refine", "0", "--json")
			if code := cli.Run(context.Background(), args, &stdout, &stderr); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
			}
			var out struct {
				Theta map[string]struct{ Mean, Std float64 }
			}
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatal(err)
			}
			for i, p := range m.sys().Params() {
				got := out.Theta[p.Name]
				if math.Abs(got.Mean-m.res.est[i]) > 1e-9*math.Abs(m.res.est[i]) || math.Abs(got.Std-m.res.estStd[i]) > 1e-9*m.res.estStd[i] {
					t.Errorf("%s: calibrate %g ± %g, screen %g ± %g", p.Name, got.Mean, got.Std, m.res.est[i], m.res.estStd[i])
				}
			}
		})
	}
}

func contextCount(m Model) string { return strconv.Itoa(m.res.task.Context.Len()) }

// TestWriteContextUnsavedAndNames: weights in no file get a warning to
// save them, the file is still written, and the next w takes the next
// free name.
func TestWriteContextUnsavedAndNames(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "w")
	if m.msgKind != msgWarn || !strings.Contains(m.msg, "save them (s)") || !strings.Contains(m.msg, "--checkpoint FILE") {
		t.Errorf("untrained weights: %q", m.msg)
	}
	m, _ = press(t, m, "w")
	for _, n := range []string{"1", "2"} {
		data, err := os.ReadFile(filepath.Join(m.opts.SaveDir, "apic-spring-context-"+n+".csv"))
		if err != nil || !strings.HasPrefix(string(data), explorerMark) {
			t.Errorf("file %s: %v, %.60q", n, err, data)
		}
	}
}

const explorerMark = "# written by the apic explorer"

// TestWriteContextWhereNoFileCanBeMade: w into a save directory that is
// gone, or that takes no files, names the directory and the cause, not
// the temporary file of the atomic write.
func TestWriteContextWhereNoFileCanBeMade(t *testing.T) {
	m := newTest(t, "spring", 80, 24)
	m.opts.SaveDir = filepath.Join(t.TempDir(), "gone")
	m, _ = press(t, m, "w")
	if want := "cannot write the context: directory " + m.opts.SaveDir + " does not exist (removed since the explorer started?)"; m.msgKind != msgErr || m.msg != want {
		t.Errorf("w into a removed directory: %q, want %q", m.msg, want)
	}
	if os.Geteuid() == 0 {
		return // root writes in a read-only directory
	}
	ro := t.TempDir()
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ro, 0o755)
	m.opts.SaveDir = ro
	m, _ = press(t, m, "w")
	if want := "cannot write the context: no permission to write in " + ro; m.msg != want {
		t.Errorf("w into a read-only directory: %q, want %q", m.msg, want)
	}
}
