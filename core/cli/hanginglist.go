package cli

import "strings"

// hangingList joins items with ", " in lines of at most width columns,
// each line after the first indented by indent spaces: a long list in a
// command's help wraps under its own start, not at the terminal's edge.
func hangingList(items []string, width, indent int) string {
	var b strings.Builder
	column := indent
	for i, item := range items {
		piece := item
		if i < len(items)-1 {
			piece += ","
		}
		switch {
		case i == 0:
		case column+1+len(piece) > width:
			b.WriteString("\n" + strings.Repeat(" ", indent))
			column = indent
		default:
			b.WriteString(" ")
			column++
		}
		b.WriteString(piece)
		column += len(piece)
	}
	return b.String()
}
