package nets

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFileAtomicDirSyncFailure: a directory that cannot be synced
// after the rename (one without read permission, as chmod 300 makes it)
// leaves the new file in place, and the save reports no error: an error
// would tell the caller nothing was written, and train would then write
// a second copy in the temporary directory.
func TestWriteFileAtomicDirSyncFailure(t *testing.T) {
	old := syncDirHook
	defer func() { syncDirHook = old }()
	synced := false
	syncDirHook = func(dir string) error {
		synced = true
		return errors.New("syncing directory " + dir + ": permission denied")
	}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	err := WriteFileAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "weights")
		return err
	})
	if err != nil || !synced {
		t.Fatalf("WriteFileAtomic: %v (directory sync tried: %v), want no error", err, synced)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "weights" {
		t.Errorf("%s holds %q (%v), want the new data", path, b, err)
	}
	if es, _ := os.ReadDir(filepath.Dir(path)); len(es) != 1 {
		t.Errorf("the directory holds %d entries, want the file alone", len(es))
	}
}
