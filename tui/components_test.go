package tui

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

var plainTheme = newTheme(colorprofile.ASCII)
var colorTheme = newTheme(colorprofile.TrueColor)

func sine(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Sin(float64(i) / 5)
	}
	return v
}

func TestLinePlotSizeAndClamp(t *testing.T) {
	for _, th := range []theme{plainTheme, colorTheme} {
		for _, sz := range [][2]int{{40, 10}, {63, 22}, {16, 6}, {10, 3}, {120, 40}} {
			p := linePlot{title: "a long title that will not fit in a narrow panel", width: sz[0], height: sz[1], n: 100,
				xName: "t", xLo: 0, xHi: 4, yLo: -0.5, yHi: 0.5,
				series: []series{{values: sine(100), color: colMean}, {values: sine(100), mark: "·", color: colBand}},
				points: []scatter{{idx: []int{0, 50, 99}, vals: []float64{0, 10, math.NaN()}, mark: '●', color: colContext}},
				legend: []legendItem{{mark: "──", name: "mean", color: colMean}, {mark: "●", name: "context", color: colContext}},
			}
			lines := p.render(th)
			if len(lines) != sz[1] {
				t.Fatalf("%v: %d lines", sz, len(lines))
			}
			for i, l := range lines {
				if w := displayWidth(l); w != sz[0] {
					t.Fatalf("%v: line %d is %d wide: %q", sz, i, w, l)
				}
			}
			if th.plain && strings.Contains(strings.Join(lines, ""), "\x1b") {
				t.Fatal("plain theme emitted escapes")
			}
		}
	}
}

// TestLinePlotShortTitle: a title too wide for the panel gives way to
// its short form, so a slice note at the end stays readable; one that
// fits is kept.
func TestLinePlotShortTitle(t *testing.T) {
	p := linePlot{title: "4 truth vs prediction (nominal dimmed) at t=0.508", short: "4 truth vs prediction at t=0.508",
		height: 10, n: 10, xName: "x", xHi: 1, series: []series{{values: sine(10), color: colMean}}}
	for _, tc := range []struct {
		width int
		want  string
	}{{60, p.title}, {40, p.short}, {21, "4 truth vs predicti…"}} {
		p.width = tc.width
		if got := strings.TrimRight(p.render(plainTheme)[0], " "); got != tc.want {
			t.Errorf("width %d: title %q, want %q", tc.width, got, tc.want)
		}
	}
}

func TestLinePlotPointsSitOnTheirValues(t *testing.T) {
	// A flat series at 0 and a point at 0 must share a row.
	flat := make([]float64, 50)
	p := linePlot{width: 60, height: 14, n: 50, yLo: -1, yHi: 1,
		series: []series{{values: flat, mark: "#"}},
		points: []scatter{{idx: []int{25}, vals: []float64{0}, mark: '@'}}}
	lines := p.render(plainTheme)
	row := -1
	for i, l := range lines {
		if strings.Contains(l, "@") {
			row = i
		}
	}
	if row < 0 || !strings.Contains(lines[row], "#") {
		t.Fatalf("point not on the flat line:\n%s", strings.Join(lines, "\n"))
	}
	// A value far outside the range sits on the edge row as an arrow.
	for _, tc := range []struct {
		v    float64
		line int
		mark string
	}{{100, 1, "↑"}, {-100, len(lines) - 3, "↓"}} {
		p.points[0].vals[0] = tc.v
		lines = p.render(plainTheme)
		if !strings.Contains(lines[tc.line], tc.mark) || strings.Contains(strings.Join(lines, ""), "@") {
			t.Fatalf("point at %v not drawn as %s on line %d:\n%s", tc.v, tc.mark, tc.line, strings.Join(lines, "\n"))
		}
	}
}

// TestLinePlotAxisMarksZero: the y axis's ┼ sits on the row labelled
// 0 where the range holds zero, and nowhere where it does not; it
// marked the row where the first curve starts (lv's prey at 1.2),
// which read as the axis's origin.
func TestLinePlotAxisMarksZero(t *testing.T) {
	rising := make([]float64, 40)
	for i := range rising {
		rising[i] = 1.2 + float64(i)/40
	}
	axisRow := regexp.MustCompile(`^\s*(-?[0-9.]+) ([┤┼])`)
	for _, tc := range []struct {
		lo, hi float64
		zero   bool
	}{{-1, 3, true}, {1, 2.6, false}, {0, 2.4, true}, {0, 0, false}} {
		p := linePlot{width: 50, height: 12, n: 40, xName: "t", xHi: 1, yLo: tc.lo, yHi: tc.hi,
			series: []series{{values: rising, color: colMean}}}
		lines := p.render(plainTheme)
		crosses := 0
		for _, l := range lines {
			g := axisRow.FindStringSubmatch(l)
			if g == nil || g[2] != "┼" {
				continue
			}
			crosses++
			if v, err := strconv.ParseFloat(g[1], 64); err != nil || v != 0 {
				t.Errorf("range %v..%v: ┼ on the row labelled %s, not 0:\n%s", tc.lo, tc.hi, g[1], strings.Join(lines, "\n"))
			}
		}
		if want := map[bool]int{true: 1, false: 0}[tc.zero]; crosses != want {
			t.Errorf("range %v..%v: %d rows marked ┼, want %d:\n%s", tc.lo, tc.hi, crosses, want, strings.Join(lines, "\n"))
		}
	}
}

func TestNiceRange(t *testing.T) {
	cases := [][3]float64{{-1.1, 1.1, 6}, {0, 1, 18}, {0.2, 0.21, 5}, {-3, 7, 9}, {5, 5, 4}, {1e-4, 3e-4, 7}}
	for _, c := range cases {
		lo, hi, step := niceRange(c[0], c[1], int(c[2]))
		if lo > c[0]+1e-12 || hi < c[1]-1e-12 {
			t.Errorf("%v: range [%v, %v] does not cover", c, lo, hi)
		}
		if got := (hi - lo) / step; math.Abs(got-c[2]) > 1e-6 {
			t.Errorf("%v: %v rows, want %v", c, got, c[2])
		}
		if k := lo / step; math.Abs(k-math.Round(k)) > 1e-6 {
			t.Errorf("%v: start %v not a multiple of step %v", c, lo, step)
		}
		if c[0] < c[1] && (hi-lo) > 3*(c[1]-c[0])+2*step {
			t.Errorf("%v: range [%v, %v] wastes the panel", c, lo, hi)
		}
	}
	if d := stepDecimals(0.15); d != 2 {
		t.Errorf("decimals of 0.15: %d", d)
	}
	if d := stepDecimals(20); d != 0 {
		t.Errorf("decimals of 20: %d", d)
	}
}

func TestHeatmapSizeAndRamp(t *testing.T) {
	vals := make([]float64, 64*64)
	for i := range vals {
		vals[i] = float64(i%64) / 63
	}
	for _, th := range []theme{plainTheme, colorTheme} {
		for _, sz := range [][2]int{{50, 10}, {63, 22}, {12, 4}} {
			h := heatmap{title: "field", width: sz[0], height: sz[1], rows: 64, cols: 64, values: vals, lo: 0, hi: 1,
				cmap: sequential, rowName: "t", colName: "x", rowHi: 1, colHi: 1}
			lines := h.render(th)
			if len(lines) != sz[1] {
				t.Fatalf("%v: %d lines", sz, len(lines))
			}
			for i, l := range lines {
				if w := displayWidth(l); w != sz[0] {
					t.Fatalf("%v: line %d is %d wide", sz, i, w)
				}
			}
			if th.plain && sz[1] > 4 {
				// Values grow along x: the ramp runs from blank to @.
				if !strings.Contains(lines[1], "@") || !strings.HasPrefix(strings.TrimPrefix(lines[1], "t=0 "), " ") {
					t.Errorf("shade ramp wrong: %q", lines[1])
				}
			}
		}
	}
	if shade(0) != ' ' || shade(1) != '@' || shade(math.NaN()) != '?' {
		t.Error("shade ends")
	}
}

func TestColormaps(t *testing.T) {
	tc := colorprofile.TrueColor
	r0, g0, b0, _ := sequential.at(0, tc).RGBA()
	r1, g1, b1, _ := sequential.at(1, tc).RGBA()
	if r0 == r1 && g0 == g1 && b0 == b1 {
		t.Error("sequential map is constant")
	}
	r, g, b, _ := diverging.at(0.5, tc).RGBA()
	if r>>8 < 240 || g>>8 < 240 || b>>8 < 240 {
		t.Errorf("diverging midpoint not white: %d %d %d", r>>8, g>>8, b>>8)
	}
	if sequential.at(-5, tc) != sequential.at(0, tc) || sequential.at(7, tc) != sequential.at(1, tc) {
		t.Error("colormap does not clamp")
	}
}

// cubeRGB is the colour of a 256-colour cube entry (16–231).
func cubeRGB(c ansi.IndexedColor) (r, g, b int) {
	levels := [6]int{0, 95, 135, 175, 215, 255}
	k := int(c) - 16
	return levels[k/36], levels[k/6%6], levels[k%6]
}

func luminance(r, g, b int) float64 { return 0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b) }

// TestColormapPalettes: in 256 colours the ramps stay in the colour cube
// with no grey but the diverging map's white middle; the sequential
// ramp brightens step by step, the diverging one brightens through blues
// (blue above red) to white and darkens through reds (red above blue).
// In 16 colours both step through their basic ramps in order, every step
// used, the diverging middle white.
func TestColormapPalettes(t *testing.T) {
	for _, tc := range []struct {
		cm        colormap
		diverging bool
	}{{sequential, false}, {diverging, true}} {
		cm := tc.cm
		prevCube, prevLum := ansi.IndexedColor(0), -1.0
		last := -1
		seen := map[ansi.BasicColor]bool{}
		for i := 0; i <= 200; i++ {
			u := float64(i) / 200
			c, ok := cm.at(u, colorprofile.ANSI256).(ansi.IndexedColor)
			if !ok || c < 16 || c > 231 {
				t.Fatalf("u %v: 256-colour entry %v, want the cube (16–231)", u, c)
			}
			r, g, b := cubeRGB(c)
			lum := luminance(r, g, b)
			white := tc.diverging && c == 231
			switch {
			case r == g && g == b && !white:
				t.Errorf("u %v: cube entry %d is a grey", u, c)
			case c == prevCube:
			case !tc.diverging || u < 0.5:
				if lum <= prevLum {
					t.Errorf("u %v: luminance %.0f after %.0f, want rising", u, lum, prevLum)
				}
			default:
				if lum >= prevLum {
					t.Errorf("u %v: luminance %.0f after %.0f, want falling past the middle", u, lum, prevLum)
				}
			}
			if tc.diverging && !white && ((u < 0.5 && b <= r) || (u > 0.5 && r <= b)) {
				t.Errorf("diverging u %v: entry %d (%d, %d, %d) on the wrong side", u, c, r, g, b)
			}
			prevCube, prevLum = c, lum
			bc, ok := cm.at(u, colorprofile.ANSI).(ansi.BasicColor)
			if !ok {
				t.Fatalf("u %v: 16-colour entry %v is not basic", u, cm.at(u, colorprofile.ANSI))
			}
			idx := slices.Index(cm.basic, bc)
			if idx < last {
				t.Errorf("u %v: 16-colour ramp steps back from %d to %d", u, last, idx)
			}
			last = idx
			seen[bc] = true
		}
		if len(seen) != len(cm.basic) {
			t.Errorf("16-colour ramp uses %d of its %d colours", len(seen), len(cm.basic))
		}
	}
	if diverging.at(0.5, colorprofile.ANSI) != ansi.BrightWhite || diverging.at(0.5, colorprofile.ANSI256) != ansi.IndexedColor(231) {
		t.Errorf("diverging middle %v (16) and %v (256), want white", diverging.at(0.5, colorprofile.ANSI), diverging.at(0.5, colorprofile.ANSI256))
	}
}

func TestStepperAndPicker(t *testing.T) {
	s := newStepper("x", []float64{1, 3, 2}, 2.5, nil)
	if s.value() != 2.5 || len(s.values) != 4 {
		t.Fatalf("start %v ladder %v", s.value(), s.values)
	}
	s = s.step(5)
	if s.value() != 3 {
		t.Fatalf("clamped high: %v", s.value())
	}
	s = s.step(-10)
	if s.value() != 1 {
		t.Fatalf("clamped low: %v", s.value())
	}
	p := newPicker("p", []string{"a", "b", "c"}, "b")
	if p.step(2).value() != "a" || p.step(-2).value() != "c" || p.set("c").value() != "c" || p.set("zz").value() != "b" {
		t.Fatal("picker wrap/set")
	}
	row := s.view(30, true, plainTheme)
	if displayWidth(row) != 30 || !strings.Contains(row, "▸ x") {
		t.Fatalf("focused row %q", row)
	}
}

func TestThetaControl(t *testing.T) {
	c := thetaControl{name: "omega", sym: "ω", lo: 3, hi: 8}
	c = c.step(1, 5.1)
	if !c.set || math.Abs(c.value-5.25) > 1e-12 {
		t.Fatalf("first step from estimate 5.1: %v", c.value)
	}
	// The first step from the estimate goes to the rung on its side,
	// both ways; from a rung, one rung on.
	auto := thetaControl{name: "omega", sym: "ω", lo: 3, hi: 8}
	for _, tc := range []struct {
		d         int
		est, want float64
	}{{-1, 5.1, 5}, {1, 5.2, 5.25}, {-1, 5.2, 5}, {-2, 5.1, 4.75}, {2, 5.1, 5.5}, {-1, 5, 4.75}, {1, 5, 5.25}} {
		if got := auto.step(tc.d, tc.est).value; math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("step %d from estimate %g: %g, want %g", tc.d, tc.est, got, tc.want)
		}
	}
	for i := 0; i < 40; i++ {
		c = c.step(1, 0)
	}
	if c.value != 8 {
		t.Fatalf("not clamped at the prior's top: %v", c.value)
	}
	if c.symbol() != "ω" {
		t.Fatal(c.symbol())
	}
	if plain := (thetaControl{name: "q"}); plain.symbol() != "q" {
		t.Errorf("a parameter without a symbol shows %q, want its name", plain.symbol())
	}
	if row := c.view(30, false, plainTheme, 5.123, 0.2, 5.4); displayWidth(row) != 30 || !strings.Contains(row, "8") {
		t.Fatalf("row %q", row)
	}
	if compact("0.0123") != ".0123" || compact("-0.5") != "-.5" || compact("12") != "12" {
		t.Fatal("compact")
	}
}

func TestSparkline(t *testing.T) {
	if s := sparkline([]float64{3, 2, 1, 0}, 10); s != "█▆▃▁" {
		t.Fatalf("sparkline %q", s)
	}
	long := make([]float64, 500)
	for i := range long {
		long[i] = float64(-i)
	}
	if s := sparkline(long, 20); len([]rune(s)) != 20 || []rune(s)[0] != '█' || []rune(s)[19] != '▁' {
		t.Fatalf("long sparkline %q", s)
	}
	if sparkline(nil, 5) != "" || sparkline([]float64{1, 1}, 5) != "▅▅" {
		t.Fatal("edge cases")
	}
}

func TestFormatHelpers(t *testing.T) {
	if formatDuration(0) != "0:00" || formatDuration(75e9) != "1:15" || formatDuration(3725e9) != "1:02:05" {
		t.Fatal("formatDuration")
	}
	fixed, exp := barFormat(0, 1, -0.22259, 0.19), barFormat(0, 1, 1.53e-4)
	for _, c := range []struct{ got, want string }{
		{fixed(math.NaN()), "–"}, {fixed(0), "0"}, {fixed(1), "1.00"}, {fixed(-0.22259), "-0.223"},
		{fixed(0.19), "0.190"}, {fixed(0.99996), "1.00"}, {fixed(123.4), "123"},
		{exp(1), "1.00e0"}, {exp(0), "0"}, {exp(1.53e-4), "1.53e-4"}, {exp(-0.22259), "-2.23e-1"},
		{barFormat(2e4)(2e4), "2.00e4"},
	} {
		if c.got != c.want {
			t.Errorf("barFormat: %q, want %q", c.got, c.want)
		}
	}
	if got := padRight("ab", 4); got != "ab  " {
		t.Fatal(got)
	}
	if got := plainTheme.truncate("abcdef", 4); displayWidth(got) != 4 || !strings.HasSuffix(got, "…") {
		t.Fatal(got)
	}
}

// TestLegendTightensBeforeDropping: a legend that does not fit with two
// spaces between items closes up to one, then starts at the panel's
// edge, before it drops any; on two lines it keeps every item.
func TestLegendTightensBeforeDropping(t *testing.T) {
	items := []legendItem{{mark: "──", name: "prediction"}, {mark: "•", name: "truth G"}, {mark: "∘", name: "nominal"}}
	// Items 13 + 9 + 9 wide: 33 with one space between them; with a lead
	// of 2, 37 with two spaces, 35 with one; each a panel a column
	// wider, whose last column stays blank.
	for _, tc := range []struct {
		width, lines int
		want         []string
		drop         string
	}{
		{38, 1, []string{"  ── prediction  • truth G  ∘ nominal"}, ""},
		{36, 1, []string{"  ── prediction • truth G ∘ nominal"}, ""},
		{34, 1, []string{"── prediction • truth G ∘ nominal"}, ""},
		{31, 1, []string{"prediction • truth G"}, "nominal"},
		{31, 2, []string{"── prediction • truth G", "∘ nominal"}, ""},
	} {
		p := linePlot{width: tc.width, legend: items}
		lines := p.legendLines(plainTheme, 2, tc.lines)
		all := strings.Join(lines, "\n")
		if len(lines) != tc.lines {
			t.Errorf("width %d: %d legend lines, want %d", tc.width, len(lines), tc.lines)
		}
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("width %d: legend %q lacks %q", tc.width, all, w)
			}
		}
		if tc.drop != "" && strings.Contains(all, tc.drop) {
			t.Errorf("width %d: legend %q should have dropped %q", tc.width, all, tc.drop)
		}
		for _, l := range lines {
			if w := displayWidth(l); w != tc.width {
				t.Errorf("width %d: a legend line is %d wide", tc.width, w)
			}
		}
	}
}

// TestErrorHeatmapIgnoresNaN: one NaN in the prediction greys its own
// cell of the |error| panel, not the whole panel's scale.
func TestErrorHeatmapIgnoresNaN(t *testing.T) {
	m := newTest(t, "advdiff", 80, 24)
	res := *m.res
	res.pred.Mean = append([]float64(nil), res.pred.Mean...)
	res.pred.Mean[0] = math.NaN()
	m.res = &res
	hm := m.heatPanels()[3]
	if math.IsNaN(hm.hi) || !(hm.hi > 0) {
		t.Errorf("|error| panel range [%v, %v] with one NaN cell", hm.lo, hm.hi)
	}
}

// TestPromptPasteClearsMatches: a paste changes the value, so the names
// the last tab listed no longer apply.
func TestPromptPasteClearsMatches(t *testing.T) {
	p := prompt{kind: promptOpen, value: []rune("ck"), matches: []string{"ck-a", "ck-b"}}
	p = p.paste("pt\r\n")
	if string(p.value) != "ckpt" || p.matches != nil {
		t.Errorf("after paste: value %q, matches %v", string(p.value), p.matches)
	}
}

// TestPromptWideAndCombiningCharacters: the prompt line cuts a long value
// by display width, so wide (two-cell) and combining (zero-cell)
// characters neither panic nor overrun the line, for both prompts and
// at every width; the end of the value, where the cursor is, stays shown.
func TestPromptWideAndCombiningCharacters(t *testing.T) {
	values := []string{
		"~/データモデル漢字漢字漢",
		strings.Repeat("漢", 16),
		strings.Repeat("漢", 200),
		"~/e\u0301e\u0301e\u0301" + strings.Repeat("a\u0308", 60) + "漢.safetensors",
		strings.Repeat("x漢\u0301", 50),
		"👩‍👩‍👧" + strings.Repeat("データ", 30),
	}
	for _, kind := range []promptKind{promptOpen, promptSave} {
		for _, v := range values {
			for _, w := range []int{1, 8, 10, 20, 33, 40, 59, 80, 81, 120, 200} {
				p := newPrompt(kind, v, "")
				line := p.view(w, plainTheme)
				if got := ansi.StringWidth(line); got != w {
					t.Errorf("kind %d, width %d, value %q: line is %d cells: %q", kind, w, v, got, line)
				}
				if w >= 80 && !strings.Contains(line, "█") {
					t.Errorf("kind %d, width %d: the cursor is cut off: %q", kind, w, line)
				}
				last := []rune(v)
				if w >= 80 && !strings.Contains(line, string(last[len(last)-1])+"█") {
					t.Errorf("kind %d, width %d: the end of the value is not shown: %q", kind, w, line)
				}
			}
		}
	}
}

// TestPromptTypesWideCharacters types the reproduction into the
// explorer's open and save prompts and renders every frame.
func TestPromptTypesWideCharacters(t *testing.T) {
	for _, key := range []string{"o", "s"} {
		for _, w := range []int{40, 80, 100} {
			m := newTest(t, "spring", w, 24)
			m, _ = press(t, m, key, "ctrl+u")
			for _, r := range "~/データモデル漢字漢字漢" + strings.Repeat("漢", 16) {
				m = typeText(t, m, string(r))
				_ = m.render()
			}
			m = send(t, m, tea.PasteMsg{Content: "a\u0301\x1b[31m漢\n"})
			if got := string(m.prompt.value); strings.ContainsRune(got, 0x1b) {
				t.Errorf("a pasted escape character reached the prompt: %q", got)
			}
			_ = m.render()
		}
	}
}

// TestLegendRowsAlignPanels: a panel given two legend lines (as the
// panel beside it needs) puts its series at the range's foot on the row
// the other's falls on, so that side-by-side plots line up; without, it
// would sit a row lower.
func TestLegendRowsAlignPanels(t *testing.T) {
	flat := make([]float64, 50) // at the range's foot, the row that moves
	for i := range flat {
		flat[i] = -1
	}
	long := []legendItem{{mark: "─", name: "prediction"}, {mark: "─", name: "truth"}, {mark: "●", name: "context"},
		{mark: "k", name: "koh-gp"}, {mark: "b", name: "bcpi"}, {mark: "p", name: "cpinn"}}
	wide := linePlot{width: 40, height: 14, n: 50, yLo: -1, yHi: 1, series: []series{{values: flat, mark: "#"}}, legend: long}
	short := wide
	short.legend = long[:1]
	if wide.legendNeed(40, 14) != 2 || short.legendNeed(40, 14) != 1 {
		t.Fatalf("legend lines needed: %d and %d, want 2 and 1", wide.legendNeed(40, 14), short.legendNeed(40, 14))
	}
	rowOf := func(p linePlot) int {
		for i, l := range p.render(plainTheme) {
			if strings.Contains(l, "#") {
				return i
			}
		}
		return -1
	}
	if rowOf(wide) == rowOf(short) {
		t.Fatalf("the test does not separate the panels: both at row %d", rowOf(wide))
	}
	short.legendRows = 2
	if a, b := rowOf(wide), rowOf(short); a != b {
		t.Errorf("with two legend lines each: rows %d and %d", a, b)
	}
}

// The selected time slice is marked ▸ in the gutter beside the picture
// line that shows it: the first line for the first row, the last for
// the last, in between for one in between; unmarked maps have none.
func TestHeatmapMarksSlice(t *testing.T) {
	vals := make([]float64, 64*64)
	line := func(h heatmap, th theme) int {
		for i, l := range h.render(th) {
			if strings.Contains(l, "▸") {
				return i
			}
		}
		return -1
	}
	for _, th := range []theme{plainTheme, colorTheme} {
		h := heatmap{title: "field", width: 50, height: 20, rows: 64, cols: 64, values: vals, lo: 0, hi: 1,
			cmap: sequential, rowName: "t", colName: "x", rowHi: 1, colHi: 1}
		if got := line(h, th); got != -1 {
			t.Errorf("unmarked map has a mark on line %d", got)
		}
		h.marked = true
		first, mid, last := -1, -1, -1
		for _, c := range []struct {
			row int
			at  *int
		}{{0, &first}, {32, &mid}, {63, &last}} {
			h.markRow = c.row
			*c.at = line(h, th)
		}
		if first != 1 || !(first < mid && mid < last) || last != 1+(h.height-3)-1 {
			t.Errorf("plain %v: marks on lines %d, %d, %d for rows 0, 32, 63", th.plain, first, mid, last)
		}
	}
}

// barNumbers are the numbers at the ends of the colour bars in a plain
// frame: "lo ramp hi".
var barNumbers = regexp.MustCompile(`(-?\d[\d.e-]*) +[.:]+[.:=+*#%@-]*@ (-?\d[\d.e-]*)`)

// TestHeatmapBarsReadAlike: the colour bars of the heatmap view write
// their numbers at three significant digits each, not "0.2226" beside
// "1.000" and "1.53e-04"; in fixed notation, but for a bar whose range
// needs an exponent (a near-exact fit's tiny |error|), whose ends both
// have one. The other bars keep fixed notation beside it: sharing the
// exponent form, the truth's read "0 … 1.00e0" and the discrepancy's
// "-2.23e-1 … 2.23e-1".
func TestHeatmapBarsReadAlike(t *testing.T) {
	sig := func(s string) int {
		s, _, _ = strings.Cut(strings.TrimPrefix(s, "-"), "e")
		return len(strings.TrimLeft(strings.ReplaceAll(s, ".", ""), "0"))
	}
	for _, tc := range []struct {
		name string
		gap  float64 // the prediction is the truth plus gap, if not 0
		exp  []bool  // which bars need an exponent
	}{{"model", 0, []bool{false, false, false, false}}, {"near-exact", 1.5e-4, []bool{false, false, false, true}}} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTest(t, "advdiff", 160, 48)
			if tc.gap != 0 {
				res := *m.res
				res.pred.Mean = slices.Clone(res.task.Real.True)
				for i := range res.pred.Mean {
					res.pred.Mean[i] += tc.gap * float64(i%3) / 2
				}
				m.res = &res
			}
			m, _ = press(t, m, "v")
			frame := m.render()
			found := barNumbers.FindAllStringSubmatch(frame, -1)
			if len(found) != 4 {
				t.Fatalf("%d colour bars, want 4:\n%s", len(found), frame)
			}
			for i, f := range found {
				for _, num := range f[1:] {
					if num == "0" {
						continue
					}
					if strings.Contains(num, "e") != tc.exp[i] || sig(num) != 3 {
						t.Errorf("bar %d number %q (bar %q): want three significant digits, exponent %v", i+1, num, f[0], tc.exp[i])
					}
				}
			}
		})
	}
}

// TestHeatmapPageBarsOwnFormat: two heatmaps a page (small terminal), the
// first page's bars keep plain numbers when only the error map on the
// other page needs an exponent.
func TestHeatmapPageBarsOwnFormat(t *testing.T) {
	m := newTest(t, "advdiff", 100, 30)
	res := *m.res
	res.pred.Mean = slices.Clone(res.task.Real.True)
	for i := range res.pred.Mean {
		res.pred.Mean[i] += 1.5e-4 * float64(i%3) / 2
	}
	m.res = &res
	m, _ = press(t, m, "v")
	first := barNumbers.FindAllStringSubmatch(m.render(), -1)
	m, _ = press(t, m, "p")
	second := barNumbers.FindAllStringSubmatch(m.render(), -1)
	if len(first) != 2 || len(second) != 2 {
		t.Fatalf("bars per page: %d and %d, want 2 and 2", len(first), len(second))
	}
	for _, f := range first {
		if strings.Contains(f[0], "e") {
			t.Errorf("page 1 bar %q has an exponent; only page 2's error map needs one", f[0])
		}
	}
	exp := false
	for _, f := range second {
		exp = exp || strings.Contains(f[0], "e")
	}
	if !exp {
		t.Errorf("page 2 bars %q: want the error map's exponent", second)
	}
}

// TestLinePlotSaysABandIsThinnerThanARow: a band whose edges fall in
// its curve's row (advdiff's δ̂, σ ~1e-4 on a 0.03 row) shows no cell
// of its own, and "· 95% band" over no dot read as a band not drawn;
// its legend then says it is under a row, on a second line if it needs
// one. A band with a cell in sight keeps its name, and so does one whose
// note would not fit the legend's two lines.
func TestLinePlotSaysABandIsThinnerThanARow(t *testing.T) {
	plot := func(width int, halfWidth float64) []string {
		p := sineBandPlot(width, halfWidth)
		return p.render(plainTheme)
	}
	legend := func(lines []string) string { return lines[len(lines)-1] }
	if lines := plot(60, 1e-4); !strings.Contains(legend(lines), "95% band"+thinBand) {
		t.Errorf("thin band: legend %q, want the note:\n%s", legend(lines), strings.Join(lines, "\n"))
	}
	if lines := plot(60, 0.3); strings.Contains(legend(lines), thinBand) || !strings.Contains(strings.Join(lines[1:len(lines)-2], ""), "·") {
		t.Errorf("wide band: legend %q, want no note and the band drawn:\n%s", legend(lines), strings.Join(lines, "\n"))
	}
	if lines := plot(24, 1e-4); !strings.Contains(lines[len(lines)-2]+legend(lines), "95% band"+thinBand) {
		t.Errorf("narrow panel: legend %q, want the note on a second line:\n%s", legend(lines), strings.Join(lines, "\n"))
	}
	if lines := plot(20, 1e-4); strings.Contains(legend(lines), thinBand) || !strings.Contains(legend(lines), "· 95% band") {
		t.Errorf("narrower panel: legend %q, want the band's name without the note", legend(lines))
	}
}

// sineBandPlot is a 14-row plot of width columns of δ̂ = sin(i/8) and a
// 95% band halfWidth either side, whose legend notes a band thinner
// than a row.
func sineBandPlot(width int, halfWidth float64) linePlot {
	mean := make([]float64, 50)
	for i := range mean {
		mean[i] = math.Sin(float64(i) / 8)
	}
	lo, hi := make([]float64, len(mean)), make([]float64, len(mean))
	for i, v := range mean {
		lo[i], hi[i] = v-halfWidth, v+halfWidth
	}
	return linePlot{width: width, height: 14, n: len(mean), yLo: -1.2, yHi: 1.2,
		series: []series{{values: lo, mark: "·", curve: bandName}, {values: hi, mark: "·", curve: bandName}, {values: mean, curve: deltaName}},
		legend: []legendItem{{mark: "──", name: deltaName, curve: deltaName}, {mark: "·", name: bandName, curve: bandName, hidden: bandName + thinBand}}}
}

// TestLinePlotSaysACurveLiesUnderAnother: where the δ̂ matches the true
// δ to a row (advdiff's shipped models) its line covers every truth
// mark, and "• true δ" over no dot read as a truth not drawn; the
// legend then says the truth equals the curve on top. A truth in sight
// keeps its name, as does the curve on top; a note takes the legend a
// second line where the panel has one, and is left out where not.
func TestLinePlotSaysACurveLiesUnderAnother(t *testing.T) {
	est := make([]float64, 50)
	for i := range est {
		est[i] = math.Sin(float64(i) / 8)
	}
	plot := func(width, height int, shift float64) []string {
		truth := make([]float64, len(est))
		for i, v := range est {
			truth[i] = v + shift
		}
		p := linePlot{width: width, height: height, n: len(est), yLo: -1.2, yHi: 1.2,
			series: []series{{values: truth, mark: "•", curve: trueDeltaName}, {values: est, curve: deltaName}},
			legend: []legendItem{{mark: "──", name: deltaName, curve: deltaName}, {mark: "•", name: trueDeltaName, curve: trueDeltaName}}}
		return p.render(plainTheme)
	}
	legend := func(lines []string) string { return lines[len(lines)-1] }
	body := func(lines []string) string { return strings.Join(lines[1:len(lines)-2], "") }
	under := trueDeltaName + " ≈ " + deltaName
	if lines := plot(60, 14, 1e-4); strings.Contains(body(lines), "•") || !strings.Contains(legend(lines), "• "+under) {
		t.Errorf("truth under the estimate: legend %q, want %q:\n%s", legend(lines), under, strings.Join(lines, "\n"))
	}
	if lines := plot(60, 14, 0.5); strings.Contains(legend(lines), "≈") || !strings.Contains(body(lines), "•") {
		t.Errorf("truth apart: legend %q, want no note and the truth drawn:\n%s", legend(lines), strings.Join(lines, "\n"))
	}
	if lines := plot(17, 14, 1e-4); legend(lines) != padRight("• "+under, 17) {
		t.Errorf("narrow panel: legend %q, want %q on a second line:\n%s", legend(lines), under, strings.Join(lines, "\n"))
	}
	if lines := plot(17, 7, 1e-4); strings.Contains(legend(lines), "≈") || !strings.Contains(legend(lines), "• "+trueDeltaName) {
		t.Errorf("narrow, short panel: legend %q, want the truth's name without the note", legend(lines))
	}
}

// TestLinePlotGroupsCurvesUnderOne: baselines that agree with APIC lie
// wholly under its prediction, and their notes one by one ("k koh-gp ≈
// prediction b bcpi ≈ prediction …") overran the legend, which then
// named three marks nowhere in sight. Where one note each does not fit,
// the legend names the curve on top once for all of them, and short of
// room for that, after their marks alone.
func TestLinePlotGroupsCurvesUnderOne(t *testing.T) {
	pred := make([]float64, 50)
	for i := range pred {
		pred[i] = math.Sin(float64(i) / 8)
	}
	plot := func(width, height int) []string {
		p := linePlot{width: width, height: height, n: len(pred), yLo: -1.2, yHi: 1.2,
			legend: []legendItem{{mark: "──", name: predictionName, curve: predictionName}}}
		for _, st := range baseStyles {
			p.series = append(p.series, series{values: pred, mark: st.mark, curve: st.name})
			p.legend = append(p.legend, legendItem{mark: st.mark, name: st.name, curve: st.name})
		}
		p.series = append(p.series, series{values: pred, curve: predictionName})
		return p.render(plainTheme)
	}
	legend := func(lines []string) string { return strings.TrimRight(lines[len(lines)-1], " ") }
	for _, tc := range []struct {
		width int
		want  string
	}{
		{56, "── prediction k koh-gp, b bcpi, p cpinn ≈ prediction"},
		{34, "── prediction kbp ≈ prediction"},
	} {
		if lines := plot(tc.width, 7); legend(lines) != tc.want {
			t.Errorf("width %d: legend %q, want %q:\n%s", tc.width, legend(lines), tc.want, strings.Join(lines, "\n"))
		}
	}
}

// TestPromptPasteTakesShellQuotesAway: a path pasted or dropped quoted
// for a shell (in quotes, or with its blanks escaped, a space after
// it) is the path itself in the prompt; other text comes as it is.
func TestPromptPasteTakesShellQuotesAway(t *testing.T) {
	for pasted, want := range map[string]string{
		"'/data/my runs/ü a.safetensors' ":    "/data/my runs/ü a.safetensors",
		`"/data/my runs/a.safetensors"`:       "/data/my runs/a.safetensors",
		`/data/my\ runs/a\ b.safetensors `:    "/data/my runs/a b.safetensors",
		`/data/run\ \(1\)\&\'x\'.safetensors`: "/data/run (1)&'x'.safetensors",
		`C:\runs\m.safetensors`:               `C:\runs\m.safetensors`,
		"/data/it's.safetensors":              "/data/it's.safetensors",
		`'a'b'`:                               `'a'b'`,
		`"`:                                   `"`,
		"plain.safetensors":                   "plain.safetensors",
	} {
		p := prompt{kind: promptOpen}
		if got := string(p.paste(pasted).value); got != want {
			t.Errorf("pasted %q: the prompt holds %q, want %q", pasted, got, want)
		}
	}
}

// TestNumbersTakeShortExponents: a number too small or large for fixed
// notation is written in one exponent form everywhere, the sidebar's
// short one ("1e-5", "3e6"): an axis's ends, a control's value and a
// wall time wrote Go's "1e-05", "3e+06" and "1.2e+02 s". A line
// plot's y labels take it where fixed notation would be wider than
// seven cells ("0.0000175", "12000000000000").
func TestNumbersTakeShortExponents(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{formatAxis(1e-5), "1e-5"}, {formatAxis(3e6), "3e6"}, {formatAxis(0.508), "0.508"},
		{formatLadder(1e-5), "1e-5"}, {formatLadder(0.01), "0.01"}, {sig3(2.5e-7), "2.5e-7"}, {sig2(3e6), "3e6"},
		{seconds(125 * time.Second), "125 s"}, {seconds(12400 * time.Millisecond), "12 s"},
		{seconds(2200 * time.Millisecond), "2.2 s"}, {seconds(96 * time.Millisecond), "0.096 s"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
	for _, tc := range []struct {
		scale  float64
		labels []string
	}{
		{1e-5, []string{"2.00e-5", "1.75e-5", "2.50e-6", "      0"}},
		{3e6, []string{"6400000", "800000", "0"}},
		{5e12, []string{"1.20e13", "1.05e13", "1.50e12"}},
		{0.01, []string{"0.0200", "0.0175"}},
	} {
		v := make([]float64, 50)
		for i := range v {
			v[i] = tc.scale * (1 + math.Sin(float64(i)/5))
		}
		p := linePlot{title: "t", width: 60, height: 12, n: 50, xName: "t", xLo: 1e-5, xHi: 3e6, series: []series{{values: v, mark: "─"}}}
		frame := strings.Join(p.render(plainTheme), "\n")
		for _, want := range append(tc.labels, "1e-5", "3e6 ") {
			if !strings.Contains(frame, want) {
				t.Errorf("data of %g: the plot lacks %q:\n%s", tc.scale, want, frame)
			}
		}
		for _, l := range strings.Split(frame, "\n") {
			if label, _, ok := strings.Cut(l, " ┤"); ok && len(strings.TrimSpace(label)) > 7 {
				t.Errorf("data of %g: label %q wider than 7", tc.scale, label)
			}
		}
	}
}
