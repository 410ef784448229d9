package cli

import (
	"path/filepath"
	"strings"
)

// checkHasStem refuses an output file (of --flag) whose name is only an
// extension (".csv", "dir/.png"): a hidden file no one would look for,
// and for advdiff's --csv a side file named "-u0.csv", whose leading
// dash other tools (rm, ls) take for an option. example is a name to
// give instead.
func checkHasStem(flag, path, example string) error {
	name := filepath.Base(path)
	if strings.TrimSuffix(name, filepath.Ext(name)) == "" {
		return UsageError("--%s %s has no name before its extension %s: give a file name, such as %s", flag, path, filepath.Ext(name), example)
	}
	return nil
}
