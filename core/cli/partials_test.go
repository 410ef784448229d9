package cli

import (
	"path/filepath"
	"testing"

	"apic/core"
	"apic/nets"
)

// The names keepPartial gives one after another are those that
// isPartialName, and so train's and the sweep's listings, take for
// partial files; names it never gives are not taken.
func TestPartialNamesAreKeepPartials(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "model.safetensors")
	m, _, err := core.LoadCheckpoint(tinyCheckpoint(t, dir, "spring", 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		path, err := keepPartial(out, m, core.Info{Unfinished: true}, nets.F32)
		if err != nil {
			t.Fatal(err)
		}
		if path != partialName(out, n) || !isPartialName(out, filepath.Base(path)) {
			t.Errorf("keepPartial's file %d is %s (a partial name: %v), want %s", n, path, isPartialName(out, filepath.Base(path)), partialName(out, n))
		}
	}
	if got, err := partialNamesOf(out); err != nil || len(got) != 3 {
		t.Errorf("partialNamesOf = %v, %v; want the 3 kept", got, err)
	}
	for _, name := range []string{"model.safetensors", "model.partial-1.safetensors", "model.partial-02.safetensors", "model.partial-+2.safetensors",
		"model.partial-x.safetensors", "model.partialx.safetensors", "model.partial.safetensors.bak", "other.partial.safetensors", ".safetensors"} {
		if isPartialName(out, name) {
			t.Errorf("%s is taken for a partial file of %s", name, out)
		}
	}
	if !isPartialName(out, "model.partial-12.safetensors") {
		t.Error("model.partial-12.safetensors is not taken for a partial file")
	}
}
