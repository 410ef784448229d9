package cli

import (
	"strings"
	"testing"
)

// A sweep whose --out lies on the kernel's /proc is refused before any
// cell runs, in the words of the file flags (checkOutputPath), not by
// the first cell's mkdir; --plan, whose lines may run elsewhere, is
// not.
func TestSweepOutOnVirtualFileSystem(t *testing.T) {
	out := "/proc/no-such-apic-dir/sweep"
	args := []string{"sweep", "--system", "spring", "--vary", "context=10", "--tasks", "2", "--out", out}
	want := "--out " + out + " cannot be written: /proc is on the kernel's proc file system"
	for _, extra := range [][]string{nil, {"--only", "context=10_seed=1"}} {
		code, _, stderr := runCLI(t, append(args, extra...)...)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", extra, code, stderr, want)
		}
	}
	if code, _, stderr := runCLI(t, append(args, "--plan")...); code != 0 {
		t.Errorf("--plan: exit %d, stderr %q; want 0", code, stderr)
	}
}
