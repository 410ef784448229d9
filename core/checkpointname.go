package core

import (
	"fmt"
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
// given, for CheckCheckpointName to refuse unless it ends in
// CheckpointExt. So is a name any file holds, a link (even a dangling
// one) included: it is refused as it was typed, never saved beside
// under another (/dev/full as /dev/full.safetensors). A path ending
// in a separator names a directory, not a file, and is kept for the
// save to refuse.
func CheckpointFileName(path string) string {
	if path == "" || filepath.Ext(path) != "" || strings.HasSuffix(path, string(filepath.Separator)) {
		return path
	}
	if _, err := os.Lstat(path); err == nil {
		return path
	}
	return path + CheckpointExt
}

// CheckCheckpointName refuses a checkpoint's name (as CheckpointFileName
// gives it) that does not end in CheckpointExt, in any case, saying the
// name to use instead. Every save applies it before its work: train
// used to write --out m.ckpt while the explorer refused it, and a
// checkpoint under another name is one neither the open prompt's
// completion nor a reader of the directory takes for one. Reading is
// not bound by it: a file is recognised by its content.
func CheckCheckpointName(path string) error {
	if base := filepath.Base(path); strings.EqualFold(base, CheckpointExt) {
		// The extension alone: a hidden file with no name before it,
		// which a listing (ls, the open prompt) leaves out.
		return fmt.Errorf("a checkpoint's name has a name before %s (try %s)", CheckpointExt, filepath.Join(filepath.Dir(path), "model"+CheckpointExt))
	}
	if strings.EqualFold(filepath.Ext(path), CheckpointExt) {
		return nil
	}
	try := strings.TrimSuffix(path, filepath.Ext(path)) + CheckpointExt
	return fmt.Errorf("a checkpoint's name ends in %s (try %s)", CheckpointExt, try)
}
