package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPNGNeedsPNGExtension: --png out.jpg used to write PNG bytes into
// a .jpg; every command with --png now refuses, before any work, a name
// whose extension is not .png, or that is only .png, naming it, and
// takes .PNG as .png.
func TestPNGNeedsPNGExtension(t *testing.T) {
	dir := t.TempDir()
	ckpt := tinyCheckpoint(t, dir, "spring", 0, 0)
	data := writeFile(t, dir, "obs.csv", "t,y\n0.5,0.3\n1,0.2\n1.5,-0.4\n")
	commands := map[string][]string{
		"calibrate": {"calibrate", "--checkpoint", ckpt, "--data", data},
		"diagnose":  {"diagnose", "--checkpoint", ckpt, "--tasks", "2", "--samples", "2"},
	}
	for name, args := range commands {
		for path, want := range map[string]string{
			filepath.Join(dir, "out.jpg"): "out.jpg ends in .jpg: the figure is a PNG image, so give a name ending in .png",
			filepath.Join(dir, "out"):     "out has no extension",
			filepath.Join(dir, ".png"):    ".png has no name before its extension .png: give a file name, such as figure.png",
		} {
			code, _, errOut := runCLI(t, append(args, "--png", path)...)
			if code != 2 || !strings.Contains(errOut, want) {
				t.Errorf("%s --png %s: exit %d, stderr %q; want 2 and %q", name, filepath.Base(path), code, errOut, want)
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s --png %s: the file was written", name, filepath.Base(path))
			}
		}
	}
	upper := filepath.Join(dir, "OUT.PNG")
	if code, _, errOut := runCLI(t, append(commands["calibrate"], "--png", upper)...); code != 0 {
		t.Errorf("calibrate --png OUT.PNG: exit %d, stderr %q", code, errOut)
	}
}

// TestCheckPNGOutputOrder: checkPNGOutput runs its checks in one order,
// the first failing one speaking: a missing directory before a wrong
// extension, an input before "exists and is not a PNG", and an
// input's "-" (stdin) is no file.
func TestCheckPNGOutputOrder(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "obs.csv", "t,y\n0.5,0.3\n")
	for _, tc := range []struct {
		path   string
		inputs []pngInput
		want   string
	}{
		{filepath.Join(dir, "none", "out.jpg"), nil, "directory " + filepath.Join(dir, "none") + " does not exist (for --png"},
		{data, []pngInput{{"data", data}}, "is the --data file, which the figure would overwrite"},
		{data, []pngInput{{"data", "-"}}, "ends in .csv: the figure is a PNG image"},
	} {
		err := checkPNGOutput(tc.path, tc.inputs...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("checkPNGOutput(%s, %v): %v, want %q", tc.path, tc.inputs, err, tc.want)
		}
	}
}
