package tui

import (
	"testing"

	"apic/core"
)

// TestSourceTextNamesSaves: the header says where the weights on screen
// came from and, once saved, where they went.
func TestSourceTextNamesSaves(t *testing.T) {
	for _, tc := range []struct {
		e    entry
		want string
	}{
		{entry{src: srcEmbedded}, "embedded"},
		{entry{src: srcEmbedded, saved: "a.safetensors"}, "embedded, saved a.safetensors"},
		{entry{src: srcFile, path: "b.safetensors", saved: "c.safetensors"}, "file b.safetensors, saved c.safetensors"},
		{entry{src: srcTrained}, "trained here (unsaved)"},
		{entry{src: srcTrained, saved: "d.safetensors"}, "trained here, saved d.safetensors"},
	} {
		if got := tc.e.sourceText(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}

// TestPhraseReadsAsASentence: the status line's "spring/lnp: …" names
// the weights in words, without a header label run into "checkpoint"
// ("atlas: spring reg=gradpen checkpoint").
func TestPhraseReadsAsASentence(t *testing.T) {
	cell := AtlasCell{}
	cell.System, cell.Axis, cell.Value = "spring", "reg", "gradpen"
	for _, tc := range []struct {
		e    entry
		want string
	}{
		{entry{src: srcEmbedded}, "the shipped checkpoint"},
		{entry{src: srcAtlas, cell: cell}, "the atlas model " + cell.label()},
		{entry{src: srcFile, path: "b.safetensors", saved: "c.safetensors"}, "the checkpoint b.safetensors, saved as c.safetensors"},
		{entry{src: srcFile, path: "b.partial.safetensors", info: core.Info{Unfinished: true}}, "the unfinished checkpoint b.partial.safetensors (bands not recalibrated)"},
		{entry{src: srcTrained}, "weights trained here, unsaved"},
		{entry{src: srcTrained, saved: "d.safetensors"}, "weights trained here, saved as d.safetensors"},
		{entry{src: srcUntrained}, "untrained weights"},
	} {
		if got := tc.e.phrase(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
	m := newTest(t, "spring", 80, 24)
	m.entries[m.key()] = &entry{model: m.entry().model, src: srcAtlas, cell: cell}
	m.describeEntry()
	if want := "spring/lnp: the atlas model " + cell.label(); m.msg != want {
		t.Errorf("describeEntry: %q, want %q", m.msg, want)
	}
}
