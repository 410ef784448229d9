package tui

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
)

// asciiState is one screen of the explorer: the keys that lead to it
// from the first frame.
type asciiState struct {
	name string
	keys []string
}

// TestASCIIFramesArePureASCII: with --ascii every frame is ASCII, where
// box lines, plot marks, arrows and Greek letters were drawn in Unicode
// whatever the flag; each non-ASCII rune of the Unicode frame has its
// own character in asciiRunes (none falls back to ?), and the frame
// keeps its size, line by line.
func TestASCIIFramesArePureASCII(t *testing.T) {
	common := []asciiState{
		{"panels", nil},
		{"help", []string{"?"}},
		{"other panels", []string{"p"}},
		{"theta by hand", []string{"a"}}, // set below, on a θ row
		{"open prompt", []string{"o"}},
	}
	for _, tc := range []struct {
		sys    string
		w, h   int
		states []asciiState
	}{
		{"spring", 80, 24, append(common, asciiState{"diagnostics", []string{"d"}}, asciiState{"ablation", []string{"A"}}, asciiState{"baselines running", nil})},
		{"spring", 160, 48, append(common, asciiState{"baselines running", nil})},
		{"lv", 80, 24, append(common, asciiState{"diagnostics", []string{"d"}})},
		{"lv", 160, 48, common},
		{"advdiff", 80, 24, append(common, asciiState{"heatmaps", []string{"v"}}, asciiState{"slice", []string{"]"}})},
		{"advdiff", 160, 48, append(common, asciiState{"heatmaps", []string{"v"}})},
	} {
		for _, st := range tc.states {
			t.Run(fmt.Sprintf("%s_%dx%d_%s", tc.sys, tc.w, tc.h, st.name), func(t *testing.T) {
				m := newTest(t, tc.sys, tc.w, tc.h)
				if st.name == "theta by hand" {
					m = focusOn(t, m, ctlTheta)
					st.keys = []string{"right", "right"}
				}
				m, _ = press(t, m, st.keys...)
				if st.name == "baselines running" {
					m, _ = pressNoRun(t, m, "c") // the fits left unrun
					defer m.base.cancel()
				}
				if st.name == "diagnostics" && m.diag.res == nil || st.name == "ablation" && !m.abl.open {
					t.Fatalf("%s: not on screen", st.name)
				}
				checkASCIIFrame(t, m)
			})
		}
	}
}

// checkASCIIFrame checks m's frame and window title under --ascii
// against the same frame in Unicode.
func checkASCIIFrame(t *testing.T, m Model) {
	t.Helper()
	uni := m.render()
	// Every ellipsis is laid out as the "..." the frame shows: toASCII
	// would write a "…" left as ".".
	if laid := m.laidOutForASCII().render(); strings.Contains(laid, "…") {
		t.Errorf("an ellipsis laid out as \"…\" under --ascii:\n%s", laid)
	}
	m.opts.ASCII = true
	v := m.View()
	frameOK(t, v.Content, m.width, m.height)
	for i, l := range strings.Split(v.Content, "\n") {
		if j := strings.IndexFunc(l, func(r rune) bool { return r >= 0x80 }); j >= 0 {
			t.Fatalf("line %d has a non-ASCII rune at byte %d: %q", i, j, l)
		}
	}
	if strings.IndexFunc(v.WindowTitle, func(r rune) bool { return r >= 0x80 }) >= 0 {
		t.Errorf("window title %q is not ASCII", v.WindowTitle)
	}
	for _, r := range uni {
		if _, ok := asciiRunes[r]; r >= 0x80 && !ok && !unicode.Is(unicode.Mn, r) {
			t.Errorf("%q (%U) has no ASCII character: it is drawn ?", r, r)
		}
	}
}

// TestASCIINamesArrowKeysInWords: --ascii draws ↑ ↓ ← → as ^ v < >,
// and its help offered "v/j next control" (v is the heatmap key), its
// footer "^v select" and "<> change" (^ < > are no keys): the arrow
// keys are named in words there.
func TestASCIINamesArrowKeysInWords(t *testing.T) {
	m, err := New(Options{System: "spring", ASCII: true, Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: noAtlas, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	m = send(t, m, tea.WindowSizeMsg{Width: 250, Height: 30})
	m, _ = run(t, m, m.Init())
	frame := m.View().Content
	if footer := frame[strings.LastIndex(frame, "\n")+1:]; !strings.Contains(footer, "up/down select") || !strings.Contains(footer, "left/right change") {
		t.Errorf("footer %q", footer)
	}
	// In a word a key (80 to 120 columns) the four make one entry.
	m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	frame = m.View().Content
	if footer := frame[strings.LastIndex(frame, "\n")+1:]; !strings.Contains(footer, "arrows set") || strings.ContainsAny(footer, "^<>") {
		t.Errorf("footer %q", footer)
	}
	m, _ = press(t, m, "?")
	frame = m.View().Content
	for _, want := range []string{"up/k ", "down/j ", "left/h/- ", "right/l/+ ", "up/down scroll"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the --ascii help lacks %q:\n%s", want, frame)
		}
	}
	// The controls' heading, a scroll down.
	if whole := strings.Join(helpAt(m, 120), "\n"); !strings.Contains(whole, "(up/down select, wrapping round; left/right change)") {
		t.Errorf("the --ascii help names the arrows of the controls otherwise:\n%s", whole)
	}
	if strings.Contains(frame, "v/j") {
		t.Errorf("the --ascii help names v for the next control:\n%s", frame)
	}
	m, _ = press(t, m, "?", "A")
	if frame = m.View().Content; !strings.Contains(frame, "up/down another control") {
		t.Errorf("the --ascii ablation view names ^/v:\n%s", frame)
	}
}

// TestASCIIKeepsPlusMinusApartFromAboutEqual: ± and ≈ were both drawn ~,
// and the --ascii help says ~ is +/-, so "prediction ≈ truth" (a curve
// drawn under another) read as "prediction +/- truth". Each has its own
// character, and the help names both, and the hat it leaves out.
func TestASCIIKeepsPlusMinusApartFromAboutEqual(t *testing.T) {
	if got := toASCII("θ̂ 1.2±0.1 · prediction ≈ truth"); got != "q 1.2~0.1 . prediction = truth" {
		t.Errorf("toASCII = %q", got)
	}
	help := strings.Join(asciiHelp, "\n")
	// The hat of an estimate takes no cell and is dropped: δ̂ and δ are
	// both d, and "true d = d" needs the help's word.
	// Under LANG=C the frame is ASCII without --ascii: the help says
	// why, and how to have Unicode back.
	for _, want := range []string{"~ is +/-", "= is about equal", "\"true d = d\" is true delta under d-hat", "a locale that is not UTF-8", "--ascii=false"} {
		if !strings.Contains(help, want) {
			t.Errorf("the --ascii help lacks %q:\n%s", want, help)
		}
	}
	for i, l := range asciiHelp {
		if len(l) > 80 {
			t.Errorf("help line %d is %d columns, past 80: %q", i, len(l), l)
		}
	}
}

// TestGoldenASCIIEllipses: under --ascii, text cut or marked as going
// on ends in "...": a file's path shortened in the header to its name
// (".../a.safetensors"), an error elided in its middle, the footer's
// keys left out, the path prompt's value cut at its start. "…" was
// drawn ".", one cell for one, and "…/a.safetensors" read
// "./a.safetensors", another file.
func TestGoldenASCIIEllipses(t *testing.T) {
	const path = "/home/someone/experiments/calibration-runs/2026-11-27/spring/lnp/a.safetensors"
	m, err := New(Options{System: "spring", ASCII: true, Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: noAtlas, Averages: -1})
	if err != nil {
		t.Fatal(err)
	}
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m, _ = run(t, m, m.Init())
	base := m.entry()
	m.entries[m.key()] = &entry{model: base.model, src: srcFile, path: path, prev: base}
	m.setMsg(msgErr, "cannot open %s: load checkpoint: the file ends before its header says it does", path)
	for _, tc := range []struct {
		name string
		keys []string
		want []string
	}{
		{"panels", nil, []string{"file .../a.safetensors", "load... before its header", "A ablate ...  "}},
		{"prompt", []string{"o"}, []string{"open checkpoint: ...", "/a.safetensors#"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := press(t, m, tc.keys...)
			if tc.name == "prompt" {
				m = typeText(t, m, path)
			}
			frame := m.View().Content
			frameOK(t, frame, 80, 24)
			for _, want := range tc.want {
				if !strings.Contains(frame+"\n", want) {
					t.Errorf("the frame lacks %q:\n%s", want, frame)
				}
			}
			golden.RequireEqual(t, []byte(frame))
		})
	}
}
