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
	err := fmt.Errorf("%s: s writes a model checkpoint, named %s or with no extension (which gets it)", filepath.Base(path), core.CheckpointExt)
	if slices.Contains(figureExts, ext) {
		err = fmt.Errorf("%w; the explorer saves no figures", err)
	}
	return err
}
