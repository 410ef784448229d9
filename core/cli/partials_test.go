package cli

import (
	"os"
	"path/filepath"
	"sync"
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

// TestKeepPartialConcurrentRunsKeepTheirOwn: runs of one --out that are
// interrupted at once each keep their weights in a file of their own;
// none replaces another's partial file (a name checked free and then
// saved to could be taken by the other run in between). A name that a
// dangling link holds is passed over, not written through.
func TestKeepPartialConcurrentRunsKeepTheirOwn(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "model.safetensors")
	elsewhere := filepath.Join(t.TempDir(), "target.safetensors")
	if err := os.Symlink(elsewhere, partialName(out, 1)); err != nil {
		t.Fatal(err)
	}
	m, err := core.NewModel(tinySpringConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	const runs = 8
	paths := make([]string, runs)
	errs := make([]error, runs)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			paths[i], errs[i] = keepPartial(out, m, core.Info{Steps2: i + 1, Unfinished: true}, nets.F32)
		}()
	}
	close(start)
	wg.Wait()
	seen := map[string]bool{}
	for i, p := range paths {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		if seen[p] {
			t.Errorf("two runs kept their weights in %s", p)
		}
		seen[p] = true
		_, info, err := core.LoadCheckpoint(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
		} else if info.Steps2 != i+1 {
			t.Errorf("%s holds run %d's weights, want run %d's", p, info.Steps2-1, i)
		}
	}
	if _, err := os.Lstat(elsewhere); err == nil {
		t.Errorf("a partial file was written through the dangling link to %s", elsewhere)
	}
}
