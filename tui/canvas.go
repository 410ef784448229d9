package tui

import (
	"image/color"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// cell is one character cell of a canvas: a rune and its colours (nil:
// the terminal default).
type cell struct {
	r      rune
	fg, bg color.Color
}

// canvas is a fixed grid of cells that panels draw into before it is
// turned into lines of text. Runs of equally coloured cells share one
// escape sequence, so a full frame stays small.
type canvas struct {
	w, h  int
	cells []cell
}

func newCanvas(w, h int) canvas {
	c := canvas{w: max(w, 0), h: max(h, 0)}
	c.cells = make([]cell, c.w*c.h)
	for i := range c.cells {
		c.cells[i].r = ' '
	}
	return c
}

// set writes a cell; positions outside the canvas are ignored.
func (c canvas) set(x, y int, r rune, fg, bg color.Color) {
	if x < 0 || y < 0 || x >= c.w || y >= c.h {
		return
	}
	c.cells[y*c.w+x] = cell{r: r, fg: fg, bg: bg}
}

// text writes s from (x, y) in one colour, clipped at the right edge.
func (c canvas) text(x, y int, s string, fg color.Color) {
	for _, r := range s {
		c.set(x, y, r, fg, nil)
		x++
	}
}

// lines renders the canvas; a plain theme drops every colour.
func (c canvas) lines(t theme) []string {
	out := make([]string, c.h)
	var b strings.Builder
	for y := 0; y < c.h; y++ {
		b.Reset()
		row := c.cells[y*c.w : (y+1)*c.w]
		var curFG, curBG color.Color
		open := false
		for _, ce := range row {
			fg, bg := ce.fg, ce.bg
			if t.plain {
				fg, bg = nil, nil
			}
			if fg != curFG || bg != curBG {
				if open {
					b.WriteString(ansi.ResetStyle)
					open = false
				}
				if fg != nil || bg != nil {
					var st ansi.Style
					if fg != nil {
						st = st.ForegroundColor(fg)
					}
					if bg != nil {
						st = st.BackgroundColor(bg)
					}
					b.WriteString(st.String())
					open = true
				}
				curFG, curBG = fg, bg
			}
			b.WriteRune(ce.r)
		}
		if open {
			b.WriteString(ansi.ResetStyle)
		}
		out[y] = b.String()
	}
	return out
}
