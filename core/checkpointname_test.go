package core

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheckpointFileName: a name without an extension, where no file
// is, gets .safetensors; a name with another extension, one a file or a
// link holds, and a directory's (ending in a separator) stay as given.
func TestCheckpointFileName(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "taken")
	if err := os.WriteFile(taken, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.Separator)
	for path, want := range map[string]string{
		filepath.Join(dir, "m"):             filepath.Join(dir, "m.safetensors"),
		"m":                                 "m.safetensors",
		filepath.Join(dir, "m.safetensors"): filepath.Join(dir, "m.safetensors"),
		filepath.Join(dir, "m.ckpt"):        filepath.Join(dir, "m.ckpt"),
		filepath.Join(dir, "v1.2", "m"):     filepath.Join(dir, "v1.2", "m.safetensors"),
		taken:                               taken,
		dangling:                            dangling,
		dir:                                 dir,
		filepath.Join(dir, "new") + sep:     filepath.Join(dir, "new") + sep,
		"":                                  "",
	} {
		if got := CheckpointFileName(path); got != want {
			t.Errorf("CheckpointFileName(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestCheckCheckpointName: a checkpoint's name ends in .safetensors, in
// any case; any other, a bare one included, is refused with the name
// to use, its extension replaced.
func TestCheckCheckpointName(t *testing.T) {
	for _, ok := range []string{"m.safetensors", "dir/m.SafeTensors", "v1.2/m.safetensors"} {
		if err := CheckCheckpointName(ok); err != nil {
			t.Errorf("CheckCheckpointName(%q) = %v, want nil", ok, err)
		}
	}
	for path, want := range map[string]string{
		"m.ckpt":         "a checkpoint's name ends in .safetensors (try m.safetensors)",
		"dir/fig.png":    "a checkpoint's name ends in .safetensors (try dir/fig.safetensors)",
		"taken":          "a checkpoint's name ends in .safetensors (try taken.safetensors)",
		"v1.2/m.pt":      "a checkpoint's name ends in .safetensors (try v1.2/m.safetensors)",
		".safetensors":   "a checkpoint's name has a name before .safetensors (try model.safetensors)",
		"d/.SafeTensors": "a checkpoint's name has a name before .safetensors (try d/model.safetensors)",
	} {
		if err := CheckCheckpointName(path); err == nil || err.Error() != want {
			t.Errorf("CheckCheckpointName(%q) = %v, want %q", path, err, want)
		}
	}
}
