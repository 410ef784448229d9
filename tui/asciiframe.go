package tui

import (
	"strings"
	"unicode"
)

// asciiRunes writes each non-ASCII rune the explorer draws as one ASCII
// character, so that --ascii frames keep every column where it was:
// box and curve lines as - | / \ +, plot marks as distinct characters
// (a panel tells its series apart by them), arrows as < > ^ v, and
// Greek letters as the keys the Symbol font gives them (θ q, ω w, η h),
// a convention of long standing. ± has no one-character form: it is ~,
// as the help says in --ascii; ≈ (a curve drawn under another, a σ about
// the prior's) is =, apart from it.
var asciiRunes = map[rune]rune{
	// Box drawing and asciigraph's curves: a rising step is ╭ over ╯,
	// a falling one ╮ over ╰.
	'─': '-', '│': '|', '┤': '|', '├': '|', '┼': '+', '┬': '+', '┴': '+',
	'┌': '+', '┐': '+', '└': '+', '┘': '+', '╭': '/', '╯': '/', '╮': '\\', '╰': '\\',
	'▕': '|', '▏': '|',
	// Plot marks, one character each and apart from those of the second
	// channel (+ : ~ x) and the baselines (k b p).
	'·': '.', '•': '*', '∘': 'o', '×': 'X', '●': '@', '▪': '#', '▲': 'A',
	'◆': '#', '◇': 'O', '↑': '^', '↓': 'v', '←': '<', '→': '>', '◂': '<', '▸': '>',
	// Blocks: the prompt's cursor, the sparklines' ramp, heatmaps in
	// colour (--ascii draws them with a character ramp instead).
	'█': '#', '▀': '#', '▁': '.', '▂': ',', '▃': ':', '▄': '-', '▅': '=', '▆': '+', '▇': '*',
	// Status: the busy marks and the activity spinner's frames.
	'◐': '*', '✓': '+', '✗': 'x', '⠋': '|', '⠙': '/', '⠹': '-', '⠸': '\\', '⠼': '|',
	'⠴': '/', '⠦': '-', '⠧': '\\', '⠇': '|', '⠏': '/',
	// Text.
	'…': '.', '–': '-', '—': '-', '−': '-', '±': '~', '≈': '=', '≤': '<', '≥': '>',
	'∞': 'I', '√': 'V', '²': '2', '∈': 'E', '‖': '|', '∂': 'd', '′': '\'', 'ₖ': 'k',
	'₊': '+', 'ᵀ': 'T', 'ü': 'u', 'û': 'u', 'é': 'e',
	// Greek, as the Symbol font's keys.
	'α': 'a', 'β': 'b', 'γ': 'g', 'δ': 'd', 'ε': 'e', 'ζ': 'z', 'η': 'h', 'θ': 'q',
	'κ': 'k', 'λ': 'l', 'μ': 'm', 'ν': 'n', 'ξ': 'x', 'π': 'p', 'ρ': 'r', 'σ': 's',
	'τ': 't', 'φ': 'f', 'χ': 'c', 'ψ': 'y', 'ω': 'w', 'Δ': 'D', 'Σ': 'S', 'Θ': 'Q', 'Ω': 'W',
}

// laidOutForASCII is m (View's copy) laid out for a frame written in
// ASCII: its ellipses, the theme's, the help's and the message's, are
// "..." (theme.asciiText). toASCII writes "…" as ".", one cell for
// one, which made a path cut to "…/a.safetensors" read
// "./a.safetensors", another file, and "running…" a full stop.
func (m Model) laidOutForASCII() Model {
	m.theme = m.theme.asciiText()
	m.help.Ellipsis = m.theme.ellipsis
	m.msg = m.theme.dots(m.msg)
	return m
}

// asciiHelp is the help's note on what --ascii writes instead, in
// ASCII itself: a θ in it would be drawn q. An estimate's hat takes no
// cell and is left out (toASCII), so δ̂ and δ are both d: the legend's
// "true δ ≈ δ̂" read "true d = d", a tautology, with nothing to say why.
// It says why the frame is ASCII: under a locale that is not UTF-8 the
// explorer draws so without --ascii (wantASCII), and --ascii=false
// brings Unicode back on a terminal that shows it all the same.
var asciiHelp = []string{
	"ASCII (--ascii, or a locale that is not UTF-8; --ascii=false: Unicode):",
	"  ~ is +/-, = is about equal (a curve drawn under another);",
	"  Greek letters are the Symbol font's keys: q theta, w omega, a alpha,",
	"  b beta, h eta, g gamma, k kappa, d delta, l lambda, s sigma;",
	"  an estimate's hat is left out: \"true d = d\" is true delta under d-hat",
}

// toASCII writes s in ASCII, one character for each rune it draws in a
// cell: a combining mark (θ̂'s hat) takes no cell and is left out, a
// rune asciiRunes lacks becomes ?. Escape sequences are ASCII already.
func toASCII(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch a, ok := asciiRunes[r]; {
		case r < 0x80:
			b.WriteRune(r)
		case ok:
			b.WriteRune(a)
		case unicode.Is(unicode.Mn, r):
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}
