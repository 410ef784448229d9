package tui

import (
	"os"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestGoldenPrompt is the open prompt at the minimum size, with the
// names a tab matched, over the message of an open that failed on a
// dangling link: the frame the footer and the status line share with
// the plots. Regenerate with: go test ./tui -run TestGoldenPrompt -update
func TestGoldenPrompt(t *testing.T) {
	pkg, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // the names in the frame are relative
	for _, name := range []string{"run-a.safetensors", "run-b.safetensors"} {
		if err := os.WriteFile(name, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("gone.safetensors", "link.safetensors"); err != nil {
		t.Fatal(err)
	}
	m := newTest(t, "spring", 80, 24)
	m, _ = press(t, m, "o")
	m = typeText(t, m, "link.safetensors")
	m, _ = press(t, m, "enter", "o")
	m = typeText(t, m, "ru")
	m, _ = press(t, m, "tab")
	frame := m.render()
	frameOK(t, frame, 80, 24)
	t.Chdir(pkg) // golden reads testdata/ here
	golden.RequireEqual(t, []byte(frame))
}
