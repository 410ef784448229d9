package tui

import "testing"

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
