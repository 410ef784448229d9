package cli

import (
	"fmt"
	"strings"

	"apic/core"
)

// headerHint adds to the error about a refused header (of a --data or
// a --u0-file file) what the lines around it tell, or returns "": that
// the header is commented out above the numbers the file starts with
// (#t,y), or, below a header separated by semicolons, a row that shows
// decimal commas as well (t;y above 0;1,5). isHeader says whether
// fields make a header the file's reader accepts. The latter reads the
// record after the header (--data - typed at a terminal waits for that
// line), so header must not be the CSV reader's reused record.
func headerHint(recs *csvRecords, header []string, isHeader func(fields []string) bool) string {
	switch {
	case numberSyntax(header[0]):
		if c, ok := commentedHeader(recs.leadingComments(), isHeader); ok {
			return fmt.Sprintf("; the header %s is commented out on line %d; remove the #", core.QuoteInput(c.text), c.line)
		}
	case len(header) == 1 && strings.Contains(header[0], ";"):
		rec, line, err := recs.next()
		if err != nil {
			return "" // the header's own error is the one to give
		}
		columns := strings.Count(header[0], ";") + 1
		if hint := semicolonDecimalHint(strings.Join(rec, ","), columns); hint != "" {
			return fmt.Sprintf("; as line %d shows, %s", line, hint)
		}
	}
	return ""
}

// commentedHeader returns the last of comments that reads as a header
// (isHeader of its comma-separated fields, trimmed), if any.
func commentedHeader(comments []commentLine, isHeader func(fields []string) bool) (commentLine, bool) {
	for i := len(comments) - 1; i >= 0; i-- {
		fields := strings.Split(comments[i].text, ",")
		for j := range fields {
			fields[j] = strings.TrimSpace(fields[j])
		}
		if isHeader(fields) {
			return comments[i], true
		}
	}
	return commentLine{}, false
}
