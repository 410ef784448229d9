package cli

import (
	"os"
)

// sameBytesError refuses a --checkpoint whose bytes are those of a file
// given before: its row would repeat that model's under another name,
// which reads as two models agreeing.
func sameBytesError(path, first, sum string) error {
	return UsageError("--checkpoint %s has the same bytes as %s (sha256 %s), which compare includes already: give each model once", path, first, sum)
}

// checkCheckpointsOnce refuses a compare --checkpoint given twice: by
// the same name, or a file under another name (./m.safetensors, a
// link). Compared once, its row would hide that the second name was
// likely meant for another file; compared twice, it would be two rows
// of one model. An embedded checkpoint of the system given once is
// compared once, as it always is.
func checkCheckpointsOnce(files []string) error {
	type given struct {
		path string
		st   os.FileInfo // nil where the path names no file (embedded:NAME)
	}
	var seen []given
	for _, path := range files {
		st, err := os.Stat(path)
		if err != nil {
			st = nil // a missing file is refused when it is opened
		}
		for _, g := range seen {
			switch {
			case g.path == path:
				return UsageError("--checkpoint %s is given twice: give each checkpoint once", path)
			case st != nil && g.st != nil && os.SameFile(st, g.st):
				return UsageError("--checkpoint %s is the file given before as --checkpoint %s: give each checkpoint once", path, g.path)
			}
		}
		seen = append(seen, given{path, st})
	}
	return nil
}
