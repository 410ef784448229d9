package tui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"apic/core"
)

// figureExts are extensions a save may be typed with in the hope of a
// picture of the screen, which the explorer does not draw.
var figureExts = []string{".png", ".svg", ".pdf", ".jpg", ".jpeg"}

// checkpointExtError refuses a save path whose extension is not
// core.CheckpointExt: s writes a safetensors checkpoint whatever the
// name, and fig.png held one, no image. A name without an extension
// gets the checkpoint's (core.CheckpointFileName) before this check.
func checkpointExtError(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" || ext == core.CheckpointExt {
		return nil
	}
	// Short, the name last: the status line is 80 columns at the least.
	if slices.Contains(figureExts, ext) {
		return fmt.Errorf("s saves the model, no figure; name it %s: %s", core.CheckpointExt, filepath.Base(path))
	}
	return fmt.Errorf("name it %s or leave the extension off: %s", core.CheckpointExt, filepath.Base(path))
}
