package cli

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"apic/core"
)

// A figure's notes are lines of words under its title, left-aligned:
// what its panels cannot say and the command's text does, the
// diagnostics figure's failures, verdict and warnings, the calibration
// figure's noise estimate and warnings. Without them a slide of the
// diagnostics figure alone did not tell whether the checkpoint passed.

// The notes' font size, the distance between their baselines, the room
// under their last line, and how far a wrapped note's later lines are
// indented.
const (
	figNoteSize    = 12
	figNoteLeading = 0.22 * vg.Inch
	figNoteGap     = 0.08 * vg.Inch
	figNoteIndent  = 0.2 * vg.Inch
)

// figWarningColor is the colour of a warning's lines: a dark red that
// reads as dark grey in greyscale, where the word "warning" tells them
// apart.
var figWarningColor = color.RGBA{R: 0x9a, G: 0x1c, B: 0x1c, A: 0xff}

// maxFigureWarnings is the most warnings a figure lists: lv's four
// parameters can give twelve, which would take the strip of a panel.
// The rest are counted, and diagnose's text prints them all.
const maxFigureWarnings = 5

// figureNote is a line of a figure's notes.
type figureNote struct {
	text     string
	indented bool // a wrapped note's later line
	warning  bool
}

// figureNotes are a figure's notes, laid out for its width.
type figureNotes struct{ lines []figureNote }

// figNoteStyle is the style of a note's line.
func figNoteStyle(warning bool) text.Style {
	col := color.Color(color.Black)
	if warning {
		col = figWarningColor
	}
	return text.Style{Color: col, Font: font.From(plot.DefaultFont, figNoteSize), Handler: plot.DefaultTextHandler,
		XAlign: draw.XLeft, YAlign: draw.YCenter}
}

// noteBreaks are where a note too wide for its figure is broken.
var noteBreaks = []titleBreak{{"; ", ";"}, {", ", ","}, {" ", ""}}

// newFigureNotes lays notes (warning says which are warnings) out for a
// figure width wide, each wrapped within figTitleMargin of either edge,
// its later lines indented.
func newFigureNotes(notes []string, warning []bool, width vg.Length) figureNotes {
	var n figureNotes
	for i, s := range notes {
		w := i < len(warning) && warning[i]
		sty := figNoteStyle(w)
		fits := func(s string) bool { return sty.Width(s) <= width-2*figTitleMargin-figNoteIndent }
		for j, line := range wrapTitle(s, fits, noteBreaks) {
			n.lines = append(n.lines, figureNote{text: line, indented: j > 0, warning: w})
		}
	}
	return n
}

// height is that of the strip the notes take; 0 without notes.
func (n figureNotes) height() vg.Length {
	if len(n.lines) == 0 {
		return 0
	}
	return vg.Length(len(n.lines))*figNoteLeading + figNoteGap
}

// draw draws the notes from the top of c down, figTitleMargin from its
// left edge.
func (n figureNotes) draw(c draw.Canvas) {
	for i, l := range n.lines {
		x := c.Min.X + figTitleMargin
		if l.indented {
			x += figNoteIndent
		}
		y := c.Max.Y - (vg.Length(i)+0.5)*figNoteLeading
		c.FillText(figNoteStyle(l.warning), vg.Point{X: x, Y: y}, l.text)
	}
}

// diagnosisNotes are the diagnostics figure's notes, the summary
// diagnose's text prints above its tables: the failures, the verdict a
// line per parameter (verdictLines), then each warning by its headline
// (warningHeadline), at most maxFigureWarnings of them; in the text's
// words but for θ̂ (figureWords).
func diagnosisNotes(d core.Diagnostics) (notes []string, warning []bool) {
	add := func(s string, w bool) { notes, warning = append(notes, figureWords(s)), append(warning, w) }
	if line := failureLine(d.Failures, d.Tasks); line != "" {
		add("failures: "+line, true)
	}
	for _, v := range strings.Split(strings.TrimSuffix(verdictLines(d), "\n"), "\n") {
		if v != "" {
			add(v, false)
		}
	}
	for _, w := range warningNotes(d.Warnings, "diagnose") {
		add(w, true)
	}
	return notes, warning
}

// calibrationNotes are the calibration figure's notes: the estimated
// noise σ̂ of each channel, which the title has no room for, then each
// of calibrate's warnings by its headline (warningNotes). A figure of
// a context the model was not trained for looked as sure of itself as
// any: the warnings were in calibrate's text only.
func calibrationNotes(c calibration) (notes []string, warning []bool) {
	if len(c.pred.NoiseStd) > 0 {
		notes, warning = append(notes, "estimated noise σ (with the model's misfit; 95% interval): "+noiseEstimateWords(c)), append(warning, false)
	}
	for _, w := range warningNotes(c.warnings, "calibrate") {
		notes, warning = append(notes, figureWords(w)), append(warning, true)
	}
	return notes, warning
}

// warningNotes are the notes of a command's warnings: each by its
// headline (warningHeadline), at most maxFigureWarnings, the rest
// counted.
func warningNotes(ws []string, command string) []string {
	var out []string
	for i, w := range ws {
		if i == maxFigureWarnings && len(ws) > maxFigureWarnings+1 {
			return append(out, fmt.Sprintf("and %s (%s's text prints them all)", core.Count(len(ws)-i, "more warning"), command))
		}
		out = append(out, "warning: "+warningHeadline(w))
	}
	return out
}

// warningHeadline is a warning up to the colon that opens its
// explanation: "noise σ = 0.3 is more than the model was trained on (at
// most σ = 0.1)" of "…: its intervals do not account for the extra
// noise". A parameter's warning opens with its name and a colon
// ("omega: its std is …: there the model …"), which stays: the
// headline runs to the first colon after words.
func warningHeadline(w string) string {
	parts := strings.Split(w, ": ")
	head := parts[0]
	for _, p := range parts[1:] {
		if strings.Contains(head, " ") {
			break
		}
		head += ": " + p
	}
	return head
}

// figureWords is s as a figure writes it: "estimated θ" for θ̂ (and
// "estimated σ" for σ̂), whose combining circumflex the plotting library
// draws beside the letter, not over it, where it read as a stray mark
// ("biased, θˆ below θ").
func figureWords(s string) string {
	const hat = '\u0302'
	if !strings.ContainsRune(s, hat) {
		return s
	}
	r := []rune(s)
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		switch {
		case i+1 < len(r) && r[i+1] == hat:
			b.WriteString("estimated " + string(r[i]))
			i++
		case r[i] != hat: // a circumflex over nothing is left out
			b.WriteRune(r[i])
		}
	}
	return b.String()
}

// drawHeadingAndNotes draws a figure's heading at the top of dc and its
// notes below it, and returns the canvas left under them for the panels.
func drawHeadingAndNotes(dc draw.Canvas, heading figureHeading, notes figureNotes) (body draw.Canvas) {
	heading.draw(dc)
	under := dc
	under.Max.Y -= heading.height()
	notes.draw(under)
	body = under
	body.Max.Y -= notes.height()
	return body
}
