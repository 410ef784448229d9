package core

import (
	"os"
	"path/filepath"
	"strings"
)

// CheckpointExt is the extension of a checkpoint file.
const CheckpointExt = ".safetensors"

// CheckpointFileName is the file a save of a checkpoint to path
// writes, the rule of every save (train --out, the explorer's s):
// a name without an extension ("m") gets CheckpointExt, as the files
// the program writes and offers have it; any other name is kept as
// given (m.ckpt stays m.ckpt). So is a name any file holds, a link
// (even a dangling one) included: it is refused, or replaced, as it
// was typed, never saved beside under another (/dev/full as
// /dev/full.safetensors). A path ending in a separator names a
// directory, not a file, and is kept for the save to refuse.
func CheckpointFileName(path string) string {
	if path == "" || filepath.Ext(path) != "" || strings.HasSuffix(path, string(filepath.Separator)) {
		return path
	}
	if _, err := os.Lstat(path); err == nil {
		return path
	}
	return path + CheckpointExt
}
