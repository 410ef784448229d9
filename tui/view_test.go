package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestSplitMsg(t *testing.T) {
	for _, tc := range []struct {
		msg    string
		widths []int
		want   []string
	}{
		{"short", []int{20}, []string{"short"}},
		{"a note longer than its line", []int{10}, []string{"a note longer than its line"}},
		{"one two three", []int{0, 20}, []string{"", "one two three"}},
		{"one two three four", []int{8, 8, 8}, []string{"one two", "three", "four"}},
		// The last line starts at a word, never inside one.
		{"one two three four five six", []int{8, 8}, []string{"one two", "…six"}},
		{"aaa bbb ccc", []int{0, 8}, []string{"", "…bbb ccc"}},
		{"see /a/very/long/path", []int{0, 8}, []string{"", "…ng/path"}},
		// ... and at a part of the message where one starts in it.
		{"koh-gp: need at least 2 context observations, got 1; bcpi: channel y has 1 context observations, need at least 2",
			[]int{0, 78}, []string{"", "…bcpi: channel y has 1 context observations, need at least 2"}},
		{"a long range warning here · cannot open x: no such file", []int{0, 40}, []string{"", "…cannot open x: no such file"}},
		{"see /a/very/long/path/name", []int{12, 30}, []string{"see /a/very/", "long/path/name"}},
		// Before a digit the mark stands apart: "…5 points" reads as a
		// number cut to its last digit.
		{"training (fine-tune) · 5 points, under the 15–100 trained on", []int{0, 39}, []string{"", "… 5 points, under the 15–100 trained on"}},
	} {
		got := splitMsg(tc.msg, tc.widths)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("splitMsg(%q, %v) = %q, want %q", tc.msg, tc.widths, got, tc.want)
		}
	}
}

// TestNoStubsAt80Columns: at 80 columns the open prompt keeps its hint
// whole (the example path shows its file name), a note with no room
// beside the baselines' status goes rather than showing as "ba…", and
// the averages' heading with θ set by hand drops its count rather than
// being cut.
func TestNoStubsAt80Columns(t *testing.T) {
	line := newPrompt(promptOpen, "", "path/to/checkpoint.safetensors").view(80, plainTheme)
	if !strings.Contains(line, "tab complete") || !strings.Contains(line, "checkpoint.safetensors") || ansi.StringWidth(line) != 80 {
		t.Errorf("open prompt at 80 columns: %q", line)
	}

	m := newTest(t, "spring", 80, 24)
	m, _ = pressNoRun(t, m, "c")
	defer m.base.cancel()
	if m.msg == "" || m.msgKind != msgInfo {
		t.Fatalf("message %q (kind %v), want c's note", m.msg, m.msgKind)
	}
	if status := strings.Split(m.render(), "\n")[1]; strings.Contains(status, "│") || !strings.HasSuffix(strings.TrimRight(status, " "), "cpinn running…") {
		t.Errorf("a stub of the note, or a cut status: %q", status)
	}

	m = newTest(t, "spring", 80, 24)
	m.opts.Averages = avgTasks
	m = focusOn(t, m, ctlTheta)
	m, _ = press(t, m, "right")
	if h := m.avgHeading(11); h != "θ̂ mean±95%" {
		t.Errorf("heading with θ set by hand %q, want %q", h, "θ̂ mean±95%")
	}
}
