package cli

import (
	"strings"
	"testing"
)

// TestOutputsOnProcSayWhy: an output under /proc said "cannot create a
// file in /proc/self/: no such file or directory" of a directory that
// exists; it now names the path and the kernel's file system it is on.
func TestOutputsOnProcSayWhy(t *testing.T) {
	if virtualFileSystem("/proc") != "proc" {
		t.Skip("no proc file system at /proc")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--system", "spring", "--csv", "/proc/self/x.csv"}, "--csv /proc/self/x.csv cannot be written: /proc/self is on the kernel's proc file system"},
		{[]string{"train", "--system", "spring", "--out", "/proc/foo.safetensors"}, "--out /proc/foo.safetensors cannot be written: /proc is on the kernel's proc file system"},
		{[]string{"diagnose", "--system", "spring", "--png", "/proc/self/x.png"}, "--png /proc/self/x.png cannot be written: /proc/self is on the kernel's proc"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "takes no new ones") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
