package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"apic/core"
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
		{"see /a/very/long/path/name", []int{12, 30}, []string{"see /a/very/", "long/path/name"}},
		// The last line keeps the start of what is left, where an error
		// says what failed, and its end, where it says why.
		{"cannot open /home/someone/experiments/2026/spring/run-17.safetensors: no such file or directory", []int{0, 60},
			[]string{"", "cannot open /home/someone/experim… no such file or directory"}},
		// Its parts go whole while they fit, the next from its start.
		{"koh-gp: need at least 2 context observations, got 1; bcpi: channel y has 1 context observations, need at least 2",
			[]int{0, 78}, []string{"", "koh-gp: need at least 2 context observations, got 1; bcpi: channel… at least 2"}},
		// A message beside the range warning keeps its start.
		{"cannot open /tmp/no-such-dir/some/long/folder/model-trained-yesterday.safetensors: no such file or directory · σ 0.5, over the 0.1 trained on: intervals miss the extra noise",
			[]int{69, 69}, []string{"cannot open /tmp/no-such-dir/some/long/folder/model-trained-", "yesterday.safetensors: no such file or directory · …"}},
		// Too short for a part's start and end, a mark holds its place.
		{"one two three four five six", []int{8, 8}, []string{"one two", "…"}},
	} {
		got, _ := plainTheme.splitMsg(tc.msg, tc.widths)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("splitMsg(%q, %v) = %q, want %q", tc.msg, tc.widths, got, tc.want)
		}
	}
}

// TestNoStubsAt80Columns: at 80 columns the open prompt keeps its hint
// whole (the example path shows its file name), a note with no room
// beside the baselines' status goes onto the line below rather than
// showing as "ba…", and
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
	lines := strings.Split(m.render(), "\n")
	lead, _, _ := strings.Cut(m.msg, " · ")
	// The note goes beside the fits' shortest account with its first
	// part whole, or else onto the line below.
	if fits, note, beside := strings.Cut(strings.TrimRight(lines[1], " "), "  │  "); beside {
		if !strings.HasSuffix(fits, "cpinn …") || !strings.HasPrefix(note, lead) {
			t.Errorf("a stub of the note, or a cut status: %q", lines[1])
		}
	} else if !strings.HasSuffix(fits, "cpinn running…") || !strings.HasPrefix(strings.TrimSpace(lines[2]), lead) {
		t.Errorf("a cut status %q, or the line below %q without the note %q", lines[1], lines[2], m.msg)
	}

	m = newTest(t, "spring", 80, 24)
	m.opts.Averages = avgTasks
	m = focusOn(t, m, ctlTheta)
	m, _ = press(t, m, "right")
	if h := m.avgHeading(11); h != "θ̂ mean±95%" {
		t.Errorf("heading with θ set by hand %q, want %q", h, "θ̂ mean±95%")
	}
}

// TestHeaderSaysWhenItCutsTheMessage: the cut headerCut reports (which
// the ? help acts on) is whether the status line's text, spaces aside
// (line breaks and the indent below are spaces), lacks the message: for
// notes, warnings and errors of every length, beside the idle and the
// long training status, at the smallest and larger sizes.
func TestHeaderSaysWhenItCutsTheMessage(t *testing.T) {
	words := strings.Fields("cannot open /home/someone/experiments/run-17.safetensors: header length 4294967295 exceeds the file · and so on")
	noSpace := strings.NewReplacer(" ", "")
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 48}} {
		m := newTest(t, "spring", sz[0], sz[1])
		for _, training := range []bool{false, true} {
			if training {
				m.run = &trainRun{mode: modeFineTune}
				m.prog = &core.Progress{Stage: 2, Step: 1234, Steps: 5000}
			}
			for _, kind := range []msgKind{msgInfo, msgWarn, msgErr} {
				for n := 1; n <= 4*len(words); n++ {
					var parts []string
					for i := range n {
						parts = append(parts, words[i%len(words)])
					}
					m.setMsg(kind, "%s", strings.Join(parts, " "))
					lines, cut := m.headerCut()
					shown := ansi.Strip(strings.Join(lines[1:], ""))
					if want := !strings.Contains(noSpace.Replace(shown), noSpace.Replace(m.msg)); cut != want {
						t.Fatalf("%v, training %v, kind %d, %d words: cut %v, want %v:\n%s", sz, training, kind, n, cut, want, strings.Join(lines, "\n"))
					}
				}
			}
		}
	}
}
