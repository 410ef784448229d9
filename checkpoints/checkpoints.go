// Package checkpoints embeds the trained APIC weights shipped with the
// program, one safetensors file per system and backbone, named
// SYSTEM-BACKBONE.safetensors, so the explorer and the commands work on a
// fresh machine without any download; beside them the ablation atlas
// (atlas.go), one model per value of λθ, λδ and the regulariser.
package checkpoints

import (
	"embed"
	"fmt"
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
func Lookup(system, backbone string) ([]byte, bool) { return byName(Name(system, backbone)) }

// byName returns the embedded checkpoint file of that name (as List
// gives it, or atlas/FILE for an atlas cell, as Cell.Name gives it).
func byName(name string) ([]byte, bool) {
	fsys := fs.FS(files)
	if cell, ok := strings.CutPrefix(name, AtlasPrefix); ok {
		// An atlas file: embedded:atlas/spring-reg-l1.safetensors.
		fsys = atlasFiles
		if _, ok := parseCell(cell); !ok {
			return nil, false
		}
	} else if !strings.HasSuffix(name, suffix) || strings.ContainsRune(name, '/') {
		return nil, false
	}
	b, err := fs.ReadFile(fsys, name)
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

// Prefix marks an embedded checkpoint where a file path is expected, as
// the commands name their weights' source ("embedded:lv-anp.safetensors");
// every flag that reads a checkpoint takes the same form back.
const Prefix = "embedded:"

// FromPath returns the embedded checkpoint that path names as
// embedded:NAME; ok is false when path is not of that form, and an
// unknown NAME is an error listing the embedded ones.
func FromPath(path string) (data []byte, ok bool, err error) {
	name, ok := strings.CutPrefix(path, Prefix)
	if !ok {
		return nil, false, nil
	}
	data, found := byName(name)
	if !found {
		return nil, true, fmt.Errorf("no embedded checkpoint %q (embedded: %s; the ablation atlas's as atlas/FILE: apic inspect --atlas lists them)", name, strings.Join(List(), ", "))
	}
	return data, true, nil
}
