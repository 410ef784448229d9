package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCalibrateNamesTheDataFilesSystem: observations whose header is
// another system's, calibrated with the wrong --system or with none,
// are refused naming the system the header is of; a header of no
// system's gets no such hint.
func TestCalibrateNamesTheDataFilesSystem(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	lv := write("lv.csv", "# written by apic simulate --csv (lv)\nt,prey,predator\n0,1,1\n1,2,1\n")
	unknown := write("when.csv", "when,y\n0,1\n")
	xy := write("xy.csv", "t,x,y\n0,1,1\n")
	ty := write("ty.csv", "t,y\n0,1\n")
	hint := `"t,prey,predator" is the header of lv's observations: calibrate them with a model of lv (--system lv, or --checkpoint FILE trained on lv)`
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--system", "spring", "--data", lv}, lv + `:2: unknown column "prey" (want "t,y", or time for t); ` + hint + "\n"},
		{[]string{"--data", lv}, "give --checkpoint FILE, or --system ("},
		{[]string{"--data", lv}, "to use an embedded checkpoint; " + hint + "\n"},
		{[]string{"--data", unknown}, "to use an embedded checkpoint\n"},
		// lv's aliases name its files too, but y alone is spring's.
		{[]string{"--system", "spring", "--data", xy}, `is the header of lv's observations`},
		{[]string{"--data", ty}, `"t,y" is the header of spring's or`},
		{[]string{"--system", "lv", "--data", unknown, "--u0", "1,1"}, unknown + `:1: unknown column "when" (want "t,prey,predator", or time for t, predators for predator, x,y for prey,predator)` + "\n"},
	} {
		code, _, stderr := runCLI(t, append([]string{"calibrate"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
