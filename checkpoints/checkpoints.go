// Package checkpoints embeds the trained APIC weights shipped with the
// program, one safetensors file per system and backbone, named
// SYSTEM-BACKBONE.safetensors, so the explorer and the commands work on a
// fresh machine without any download.
package checkpoints

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.safetensors
var files embed.FS

const suffix = ".safetensors"

// Name is the embedded file name for a system and backbone.
func Name(system, backbone string) string { return system + "-" + backbone + suffix }

// Lookup returns the embedded checkpoint for a system and backbone.
func Lookup(system, backbone string) ([]byte, bool) { return ByName(Name(system, backbone)) }

// ByName returns the embedded checkpoint file of that name (as List
// gives it).
func ByName(name string) ([]byte, bool) {
	if !strings.HasSuffix(name, suffix) || strings.ContainsRune(name, '/') {
		return nil, false
	}
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, false
	}
	return b, true
}

// List returns the names of the embedded checkpoints, sorted.
func List() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), suffix) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}
