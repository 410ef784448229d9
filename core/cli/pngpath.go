package cli

import (
	"path/filepath"
	"strings"
)

// pngInput is a file a command with --png reads (its flag, without
// dashes, and the path given), which the figure must not overwrite.
type pngInput struct{ flag, path string }

// checkPNGOutput checks the --png file before any work, in the one
// order each step relies on: first that a file can be created there
// (checkOutputPath: "-", a directory, a missing or unwritable
// directory), so that what follows is about the file's name and
// content, not where it goes; then that it is none of the command's
// inputs; then its name and what it would replace (checkPNGTarget).
func checkPNGOutput(path string, inputs ...pngInput) error {
	if err := checkOutputPath("png", path, "a figure"); err != nil {
		return err
	}
	for _, in := range inputs {
		if in.path != "" && !isStdinPath(in) && !strings.HasPrefix(in.path, embeddedPrefix) && sameFile(path, in.path) {
			return UsageError("--png %s is the --%s file, which the figure would overwrite; choose another name", path, in.flag)
		}
	}
	return checkPNGTarget(path)
}

// isStdinPath reports whether in is "-" given to a flag that reads it
// as standard input (--data, --u0-file), which names no file.
func isStdinPath(in pngInput) bool {
	return in.path == "-" && (in.flag == "data" || in.flag == "u0-file")
}

// checkPNGTarget checks what the --png file will be, once
// checkPNGOutput has found it can be created: its name ends in .png
// (in any case), and an existing file there is a PNG
// (checkReplacesOnlyPNG). The figure is always PNG bytes; under another
// extension (out.jpg, out.svg, none) viewers and people would take it
// for what it is not.
func checkPNGTarget(path string) error {
	ext := filepath.Ext(path)
	switch {
	case ext == "":
		return UsageError("--png %s has no extension: the figure is a PNG image, so give a name ending in .png", path)
	case !strings.EqualFold(ext, ".png"):
		return UsageError("--png %s ends in %s: the figure is a PNG image, so give a name ending in .png", path, ext)
	}
	if err := checkHasStem("png", path, "figure.png"); err != nil {
		return err
	}
	return checkReplacesOnlyPNG(path)
}
