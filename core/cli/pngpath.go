package cli

import (
	"path/filepath"
	"strings"
)

// checkPNGTarget checks what the --png file will be, after
// checkOutputPath has found it can be created: its name ends in .png
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
	return checkReplacesOnlyPNG(path)
}
