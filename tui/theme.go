package tui

import (
	"image/color"
	"math"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// theme holds every style the explorer draws with. Colours are given in
// truecolor; Bubble Tea's renderer downsamples them to the terminal's
// profile (256 or 16 colours). A plain theme (no-colour terminals and
// --ascii) draws no escape sequences at all and tells series apart by
// their glyphs alone, and heatmaps by a shade ramp.
type theme struct {
	plain   bool
	profile colorprofile.Profile // the terminal's, for the heatmaps' ramps
	// ellipsis marks text left out or going on: "…", or "..." in ASCII
	// (asciiText), where "…" is drawn "." and a path cut to
	// "…/a.safetensors" read "./a.safetensors", another path.
	ellipsis string

	title, bold, dim, label, accent, focus, warn, err, ok ansi.Style
}

// Semantic colours of the plots.
var (
	colTruth    = rgb(0x4e, 0xc9, 0x8c) // ground truth
	colMean     = rgb(0x5a, 0xa9, 0xff) // corrected prediction
	colBand     = rgb(0x3d, 0x6f, 0xa8) // its 95% band
	colSim      = rgb(0xdd, 0xcc, 0x44) // simulator output F(x; θ̂); yellow, not red, in 16 colours
	colDelta    = rgb(0xd0, 0x7b, 0xe0) // learned discrepancy δ̂
	colDeltaBnd = rgb(0x86, 0x52, 0x92) // its 95% band
	colNeeded   = rgb(0xff, 0x8c, 0x5a) // discrepancy a θ override needs
	colNominal  = rgb(0x78, 0x78, 0x78) // nominal process, dimmed
	colContext  = rgb(0xff, 0x5f, 0x87) // context observations
	// Lotka–Volterra channels: prey and predator.
	colPrey     = rgb(0x5a, 0xa9, 0xff)
	colPreyDim  = rgb(0x3d, 0x6f, 0xa8)
	colPred     = rgb(0xff, 0x9f, 0x43)
	colPredDim  = rgb(0xa8, 0x6a, 0x2e)
	colPreyCtx  = rgb(0x9f, 0xd8, 0xff)
	colPredCtx  = rgb(0xff, 0xd0, 0x80)
	colLabel    = rgb(0x8a, 0x8a, 0x8a)
	colAccent   = rgb(0x7d, 0xcf, 0xff)
	colWarn     = rgb(0xff, 0xc8, 0x57)
	colErr      = rgb(0xff, 0x5f, 0x5f)
	colOK       = rgb(0x4e, 0xc9, 0x8c)
	colFocusBG  = rgb(0x2a, 0x3a, 0x55)
	colFocusFG  = rgb(0xff, 0xff, 0xff)
	colTitle    = rgb(0xff, 0xff, 0xff)
	colTitleBG  = rgb(0x3b, 0x4a, 0x6b)
	colSparks   = rgb(0xb0, 0x8c, 0xff)
	colHeatNone = rgb(0x30, 0x30, 0x30)
)

func rgb(r, g, b uint8) color.Color { return ansi.RGBColor{R: r, G: g, B: b} }

// newTheme returns the theme for a colour profile.
func newTheme(p colorprofile.Profile) theme {
	if p <= colorprofile.ASCII {
		return theme{plain: true, profile: p, ellipsis: "…"}
	}
	return theme{
		profile:  p,
		ellipsis: "…",
		title:    ansi.Style{}.Bold().ForegroundColor(colTitle).BackgroundColor(colTitleBG),
		bold:     ansi.Style{}.Bold(),
		dim:      ansi.Style{}.ForegroundColor(colNominal),
		label:    ansi.Style{}.ForegroundColor(colLabel),
		accent:   ansi.Style{}.ForegroundColor(colAccent),
		focus:    ansi.Style{}.Bold().ForegroundColor(colFocusFG).BackgroundColor(colFocusBG),
		warn:     ansi.Style{}.ForegroundColor(colWarn),
		err:      ansi.Style{}.Bold().ForegroundColor(colErr),
		ok:       ansi.Style{}.ForegroundColor(colOK),
	}
}

// asciiText is t for a frame drawn in ASCII (--ascii): its ellipsis is
// "...". The frame is laid out in Unicode and written in ASCII one cell
// for one (toASCII), so text cut or marked as going on is laid out
// with the ellipsis it will show.
func (t theme) asciiText() theme {
	t.ellipsis = asciiEllipsis
	return t
}

// asciiEllipsis is the ellipsis of an ASCII frame.
const asciiEllipsis = "..."

// dots is s with each "…" in it written as t's ellipsis: for text
// whose "…" says it goes on ("running…"), or stands for what is left
// out ("--vary λθ=…"), laid out after.
func (t theme) dots(s string) string {
	if t.ellipsis == "…" || t.ellipsis == "" {
		return s
	}
	return strings.ReplaceAll(s, "…", t.ellipsis)
}

// paint applies st to s unless the theme is plain.
func (t theme) paint(st ansi.Style, s string) string {
	if t.plain || len(st) == 0 || s == "" {
		return s
	}
	return st.Styled(s)
}

// fg returns a foreground style of c (empty in a plain theme).
func (t theme) fg(c color.Color) ansi.Style {
	if t.plain || c == nil {
		return nil
	}
	return ansi.Style{}.ForegroundColor(c)
}

// helpStyles are the help bubble's styles for this theme.
func (t theme) helpStyles() help.Styles {
	if t.plain {
		plain := lipgloss.NewStyle()
		return help.Styles{Ellipsis: plain, ShortKey: plain, ShortDesc: plain, ShortSeparator: plain, FullKey: plain, FullDesc: plain, FullSeparator: plain}
	}
	key := lipgloss.NewStyle().Foreground(colAccent)
	desc := lipgloss.NewStyle().Foreground(rgb(0xb2, 0xb2, 0xb2))
	sep := lipgloss.NewStyle().Foreground(rgb(0x5c, 0x5c, 0x5c))
	return help.Styles{Ellipsis: sep, ShortKey: key, ShortDesc: desc, ShortSeparator: sep, FullKey: key, FullDesc: desc, FullSeparator: sep}
}

// colormap maps u ∈ [0, 1] to a colour: truecolor stops interpolated
// linearly, and the ramps the terminal's smaller palettes get. Bubble
// Tea's own downsampling picks each colour's nearest palette entry, which
// on a ramp can fall on a grey out of order (a strong red drawn dark
// grey in 256 colours, a bright blue among cyans in 16), so the map does
// it itself: it steps through palette entries chosen in order, cube
// colours (no greys) in 256 colours and basic ones in 16.
type colormap struct {
	stops [][3]float64        // evenly spaced truecolor stops
	cube  []ansi.IndexedColor // the 256-colour ramp, low to high
	basic []ansi.BasicColor   // the 16-colour ramp, low to high
}

// The heatmaps' maps: a perceptually ordered sequential map (dark blue →
// teal → yellow, viridis-like) for fields and |error|, and a diverging
// blue–white–red map for signed discrepancies, white at its middle.
var (
	sequential = colormap{
		stops: [][3]float64{{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}},
		// The cube colours nearest to the stops' ramp with their
		// luminance rising step by step.
		cube:  []ansi.IndexedColor{53, 54, 60, 61, 30, 31, 36, 72, 77, 113, 185, 220},
		basic: []ansi.BasicColor{ansi.Magenta, ansi.Blue, ansi.Cyan, ansi.Green, ansi.BrightGreen, ansi.BrightYellow},
	}
	diverging = colormap{
		stops: [][3]float64{{33, 102, 172}, {146, 197, 222}, {247, 247, 247}, {244, 165, 130}, {178, 24, 43}},
		// Blues brightening to white (231), then reds darkening: the
		// cube colours nearest to each half's ramp.
		cube:  []ansi.IndexedColor{25, 67, 110, 152, 153, 189, 231, 224, 223, 216, 173, 167, 124},
		basic: []ansi.BasicColor{ansi.Blue, ansi.BrightBlue, ansi.BrightWhite, ansi.BrightRed, ansi.Red},
	}
)

// at is the colour of u under profile p; NaN (no value) is dark grey.
func (c colormap) at(u float64, p colorprofile.Profile) color.Color {
	if math.IsNaN(u) {
		if p == colorprofile.ANSI {
			return ansi.BrightBlack
		}
		return colHeatNone
	}
	u = math.Max(0, math.Min(1, u))
	switch p {
	case colorprofile.ANSI:
		return c.basic[int(math.Round(u*float64(len(c.basic)-1)))]
	case colorprofile.ANSI256:
		return c.cube[int(math.Round(u*float64(len(c.cube)-1)))]
	}
	return rgb(interpStops(c.stops, u))
}

// interpStops interpolates linearly between evenly spaced colour stops,
// u ∈ [0, 1].
func interpStops(stops [][3]float64, u float64) (r, g, b uint8) {
	pos := u * float64(len(stops)-1)
	i := min(int(pos), len(stops)-2)
	f := pos - float64(i)
	a, z := stops[i], stops[i+1]
	c := func(k int) uint8 { return uint8(math.Round(a[k] + (z[k]-a[k])*f)) }
	return c(0), c(1), c(2)
}
