package tui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"apic/core/cli"
)

var registerOnce sync.Once

// TestExploreUnreadableCheckpoint: a checkpoint file that cannot be read
// is a usage error (exit 2) naming the file, as in the other commands,
// and is reported before the terminal is needed.
func TestExploreUnreadableCheckpoint(t *testing.T) {
	registerOnce.Do(func() { cli.RegisterExternal(Command()) })
	junk := filepath.Join(t.TempDir(), "junk.safetensors")
	if err := os.WriteFile(junk, []byte("not a checkpoint at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), []string{"explore", "--checkpoint", junk}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "junk.safetensors") {
		t.Errorf("exit %d, stderr %q; want 2 and the file named", code, errOut.String())
	}
}

// TestExploreSeedZero: --seed 0 is refused, not silently read as 1.
func TestExploreSeedZero(t *testing.T) {
	registerOnce.Do(func() { cli.RegisterExternal(Command()) })
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), []string{"explore", "--seed", "0"}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "--seed must be ≥ 1") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
