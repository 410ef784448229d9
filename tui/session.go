package tui

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"apic/checkpoints"
	"apic/core"
	"apic/core/cli"
	"apic/sims"
)

// source says where the weights on screen came from.
type source int

const (
	srcUntrained source = iota // fresh initial weights
	srcEmbedded                // a checkpoint shipped in the binary
	srcFile                    // a checkpoint file opened by the user
	srcTrained                 // trained in this session
	srcAtlas                   // a model of the embedded ablation atlas
)

// entryKey names a model: one per system and backbone.
type entryKey struct{ system, backbone string }

// entry is the model the explorer shows for one system and backbone. Its
// model is never modified once the entry exists (training works on a
// copy), so inference and saving may read it from any goroutine.
type entry struct {
	model *core.Model
	src   source
	path  string    // the file for srcFile
	info  core.Info // steps and wall time behind the weights
	saved string    // where the weights were last saved, if anywhere
	prev  *entry    // the weights before the last training run or opened file (u)
	cell  AtlasCell // the atlas cell for srcAtlas
	// from is what was shown when this file was opened over another
	// system or backbone (zero when opened in place): u then goes back
	// there, as the message of the open promises, and not just to
	// whatever this system and backbone held before.
	from entryKey
}

// parent names the checkpoint a fine-tune of e's weights started from,
// as a saved file records it (core.Info.Init): e's own file, shipped
// model or atlas model with its bytes' SHA-256; for weights read from
// no file (trained here), the one they in turn were tuned from, if any.
func (e *entry) parent() (name, sha256 string) {
	if name := e.readFrom(); name != "" && e.info.SHA256 != "" {
		return name, e.info.SHA256
	}
	return e.info.Init, e.info.InitSHA256
}

// readFrom is the checkpoint e's weights were read from, as the
// commands' --checkpoint takes it (embedded:NAME for a shipped or atlas
// model), or "" for weights trained here or untrained.
func (e *entry) readFrom() string {
	switch e.src {
	case srcEmbedded:
		a := e.model.Config.Arch
		return checkpoints.Prefix + checkpoints.Name(a.System, string(a.Backbone))
	case srcAtlas:
		return checkpoints.Prefix + e.cell.Name()
	case srcFile:
		return e.path
	}
	return ""
}

// undoable reports whether u has something to go back to from e.
func (e *entry) undoable() bool {
	return e.prev != nil || e.from != entryKey{}
}

// openedFile is the file on disk whose weights e shows, opened with o
// (not a shipped one opened as embedded:NAME, which is in no file), or
// "". An entry's model never changes: training makes a new one.
func (e *entry) openedFile() string {
	if e.src != srcFile || strings.HasPrefix(e.path, checkpoints.Prefix) {
		return ""
	}
	return e.path
}

// sourceText describes the checkpoint for the header.
func (e *entry) sourceText() string {
	return e.describe(func(path string) string { return path })
}

// shortSourceText is sourceText with every path shortened to "…/NAME",
// for a header short of room: a file's name survives where its folders
// do not fit.
func (e *entry) shortSourceText(t theme) string { return e.describe(t.shortPath) }

// describe is sourceText with each path (the file opened, the file
// saved) written as path writes it.
func (e *entry) describe(path func(string) string) string {
	saved := e.savedText(path)
	switch e.src {
	case srcEmbedded:
		return "embedded" + saved
	case srcAtlas:
		return "atlas: " + e.cell.label() + saved
	case srcFile:
		return "file " + path(e.path) + saved
	case srcTrained:
		if e.saved != "" {
			return "trained here" + saved
		}
		return "trained here (unsaved)"
	}
	return "untrained"
}

// savingSources are the header's forms of the checkpoint (longest
// first) for trained weights that a save is writing to path: "(unsaved)"
// said that no file would hold them while it wrote.
func savingSources(t theme, path string) []string {
	long := "trained here, saving " + path + t.ellipsis
	return []string{"checkpoint: " + long, long, "trained here, saving " + t.shortPath(path) + t.ellipsis}
}

// savedText is ", saved PATH" when the weights were saved, the path as
// path writes it.
func (e *entry) savedText(path func(string) string) string {
	if e.saved == "" {
		return ""
	}
	return ", saved " + path(e.saved)
}

// phrase names the weights in a sentence ("spring/lnp: the shipped
// checkpoint"), where sourceText is a header's label ("atlas: spring
// λθ=0.5", which "… checkpoint" after it garbled).
func (e *entry) phrase() string {
	switch e.src {
	case srcEmbedded:
		return "the shipped checkpoint" + e.savedPhrase()
	case srcAtlas:
		return "the atlas model " + e.cell.label() + e.savedPhrase()
	case srcFile:
		if e.info.Unfinished {
			// A stopped run's weights: no spread was fitted to them.
			return "the unfinished checkpoint " + e.path + " (bands not recalibrated)" + e.savedPhrase()
		}
		return "the checkpoint " + e.path + e.savedPhrase()
	case srcTrained:
		if e.saved == "" {
			return "weights trained here, unsaved"
		}
		return "weights trained here" + e.savedPhrase()
	}
	return "untrained weights"
}

// savedPhrase is ", saved as FILE" when the weights were saved.
func (e *entry) savedPhrase() string {
	if e.saved == "" {
		return ""
	}
	return ", saved as " + e.saved
}

// shortPath is "…/NAME" for a path with folders, else the path.
func (t theme) shortPath(path string) string {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return t.ellipsis + path[i:]
	}
	return path
}

// loadEntry returns the shipped checkpoint for key, or a model with fresh
// weights when none is shipped (or the shipped one cannot be read, which
// the returned warning says).
func loadEntry(key entryKey, embedded func(system, backbone string) ([]byte, bool)) (*entry, string, error) {
	sys, err := sims.Lookup(key.system)
	if err != nil {
		return nil, "", err
	}
	b, err := core.ParseBackbone(key.backbone)
	if err != nil {
		return nil, "", err
	}
	var warn string
	if embedded != nil {
		if data, ok := embedded(key.system, key.backbone); ok {
			m, info, err := core.DecodeCheckpoint(data)
			if err == nil {
				return &entry{model: m, src: srcEmbedded, info: info}, "", nil
			}
			warn = fmt.Sprintf("embedded %s-%s checkpoint unreadable (%v); using untrained weights", key.system, key.backbone, err)
		}
	}
	m, err := core.NewModel(core.DefaultConfig(sys, b))
	if err != nil {
		return nil, "", err
	}
	return &entry{model: m, src: srcUntrained}, warn, nil
}

// splitStream is the PCG stream of the explorer's context/target splits;
// the realization itself is the one "apic simulate --seed N" prints.
const splitStream = 0x6578706c2d73706c // "expl-spl"

// drawRealization returns the realization and split of seed for sys.
func drawRealization(sys sims.System, seed uint64) (sims.Realization, sims.Split) {
	r := cli.DrawRealization(sys, seed)
	sp := sims.NewSplit(sys, rand.New(rand.NewPCG(seed, splitStream)))
	return r, sp
}
