package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSweepPanelShortensLongTicks: a category axis of long values (a
// 150-character checkpoint path) is drawn with labels of at most
// maxTickRunes runes, the start and end kept, a checkpoint by its file
// name without the extension.
func TestSweepPanelShortensLongTicks(t *testing.T) {
	long := "/data/runs/" + strings.Repeat("x", 150) + ".safetensors"
	xs := []string{long, "c.safetensors"}
	p, err := sweepPanel("recon_mae", "checkpoint", xs, nil, []float64{0, 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	ticks := p.X.Tick.Marker.Ticks(0, 1)
	var got []string
	for _, tk := range ticks {
		got = append(got, tk.Label)
		if n := utf8.RuneCountInString(tk.Label); n > maxTickRunes {
			t.Errorf("label %q has %d runes, more than %d", tk.Label, n, maxTickRunes)
		}
	}
	if len(got) != 2 || got[0] != "xxxxxxx…xxxxxxxx" || got[1] != "c" {
		t.Errorf("ticks %q", got)
	}
}
