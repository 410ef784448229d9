package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestElideMiddleKeepsAPathWhole: a message cut in the middle keeps its
// head and tail within the width; a tail that begins inside a path
// joins the ellipsis without a space (a space there read as two paths),
// and one that begins a word keeps it.
func TestElideMiddleKeepsAPathWhole(t *testing.T) {
	path := "weights already in a file: /home/someone/experiments/long/directory/name/spring-lnp-finetuned.safetensors"
	got := plainTheme.elideMiddle(path, 60)
	if w := ansi.StringWidth(got); w > 60 {
		t.Errorf("%q is %d cells wide, want ≤ 60", got, w)
	}
	if strings.Contains(got, "… ") || !strings.Contains(got, "…") || !strings.HasSuffix(got, "finetuned.safetensors") {
		t.Errorf("path elided as %q", got)
	}
	words := "the baseline failed on this realization because the context has too few points to fit a GP to"
	got = plainTheme.elideMiddle(words, 50)
	if !strings.Contains(got, "… ") {
		t.Errorf("words elided as %q, want the tail set off by a space", got)
	}
}

// TestElideMiddleKeepsWordsWhole: at every width the head of a message
// of words, cut in the middle, ends where a word of it ends: cut inside
// one, "…trained on: in… miss the extra noise" read "in" as a word.
func TestElideMiddleKeepsWordsWhole(t *testing.T) {
	msg := "the ablation view covers the panels: A or esc shows them, then p flips them · σ 0.5, over the 0.1 trained on: intervals miss the extra noise"
	for w := 20; w < ansi.StringWidth(msg); w++ {
		got := plainTheme.elideMiddle(msg, w)
		head, _, ok := strings.Cut(got, "…")
		if !ok {
			t.Fatalf("width %d: %q has no ellipsis", w, got)
		}
		if rest, ok := strings.CutPrefix(msg, head); !ok || rest != "" && rest[0] != ' ' {
			t.Errorf("width %d: %q cuts a word of its head", w, got)
		}
	}
}
