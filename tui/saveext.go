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

// checkpointNameError refuses, as train --out does, a save path whose
// name does not end in core.CheckpointExt (core.CheckCheckpointName):
// fig.png would hold a checkpoint, no image. A name without an
// extension gets the checkpoint's (core.CheckpointFileName) before
// this check. The file's name alone is said, and the name to use: the
// status line is 80 columns at the least, and the directory was typed.
func checkpointNameError(path string) error {
	name := filepath.Base(path)
	err := core.CheckCheckpointName(name)
	if err == nil {
		return nil
	}
	if slices.Contains(figureExts, strings.ToLower(filepath.Ext(name))) {
		return fmt.Errorf("s saves the model, no figure; %s: %w", name, err)
	}
	return fmt.Errorf("%s: %w", name, err)
}
