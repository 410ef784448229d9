package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode/utf8"

	"apic/core"
)

// Every parser of an input file (observations, side information) reads
// it through an inputReader, which makes the file's size and the wait
// for it bounded:
//
//   - reads of a source that may block (a FIFO no one writes, a terminal,
//     a stalled pipe: anything but a regular file or memory) happen in a
//     goroutine, so that they do not keep Ctrl-C from ending the command:
//     Read returns an interruptedError as soon as the context is
//     cancelled; other sources are read directly, the context checked
//     between reads;
//   - lines are counted and bounded as the bytes pass (core.LimitLineBytes),
//     so that a 200 MB line is refused after its first 4 kB with the line
//     number, never held in memory whole, and so are the bytes of the
//     whole file (core.LimitInputBytes), blank lines included, so that an
//     endless source is refused rather than read forever; the lines of
//     a quoted field count as one record, and a quote in a comment line
//     opens no field (classifyLine);
//   - old Mac line endings (CR alone) and CRLF are turned into LF, so that
//     "y\r0" is a header and a row, not a column name.

// How much an inputReader reads from its source at a time: through the
// goroutine, a fresh buffer each time (few handovers); directly, one
// buffer the size of the bufio.Reader's above it.
const (
	inputChunkBytes  = 32 << 10
	directChunkBytes = 4 << 10
)

// stdin is what an input file given as "-" reads (--data -, --u0-file
// -); tests replace it. One command reads it for one flag at most
// (calibrate refuses --data - beside --u0-file -).
var stdin io.Reader = os.Stdin

// interruptedError is a read or open that Ctrl-C (the context) stopped.
// It unwraps to the context's error, so that commands treat it as any
// interruption; its message says what was being waited for.
type interruptedError struct {
	what string // "reading --data obs.csv"
	err  error
}

func (e *interruptedError) Error() string { return "interrupted while " + e.what }
func (e *interruptedError) Unwrap() error { return e.err }

// lineTooLongError is a line beyond core.LimitLineBytes: line is where
// the limit was crossed, start where the record began (earlier when a
// quoted field holds line breaks).
type lineTooLongError struct{ line, start int }

func (e *lineTooLongError) Error() string {
	l := core.LimitLineBytes
	if e.start < e.line {
		return fmt.Sprintf("the record from line %d, a quoted field with line breaks, is longer than %d bytes, the %s limit (%s)", e.start, l.Max, l.Name, l.Why)
	}
	return fmt.Sprintf("line longer than %d bytes, the %s limit (%s)", l.Max, l.Name, l.Why)
}

// inputTooLargeError is input beyond core.LimitInputBytes; why is the
// reason given for the bound (core.LimitInputBytes.Why, which speaks of
// observations, when empty).
type inputTooLargeError struct{ why string }

func (e *inputTooLargeError) Error() string {
	l := core.LimitInputBytes
	why := e.why
	if why == "" {
		why = l.Why
	}
	return fmt.Sprintf("more than %d bytes (%d MiB), the %s limit (%s)", l.Max, l.Max>>20, l.Name, why)
}

// inputChunk is one read of the goroutine: data, then the read's error.
type inputChunk struct {
	data []byte
	err  error
}

// inputReader reads a source through a goroutine, checking the context
// between reads, turning CR and CRLF into LF and bounding line length.
type inputReader struct {
	ctx    context.Context
	what   string    // what an interruption was waiting for
	direct io.Reader // a source that cannot block, read without the goroutine
	buf    []byte    // direct's chunk
	chunks chan inputChunk
	done   chan struct{}
	rest   []byte // of the last chunk, not yet returned
	err    error  // sticky: the source's error once rest is drained, or the reader's own

	sizeWhy   string // the reason for the size limit, when not --data's (inputTooLargeError)
	total     int    // bytes read from the source so far
	line      int    // the line being read, from 1
	start     int    // the line the current record began on
	lineBytes int    // bytes of the current record so far (a quoted line break does not end it)
	skipLF    bool   // the previous byte was a CR turned into LF: drop an LF after it
	inQuote   bool   // inside a quoted field, as far as counting quotes tells
	undecided bool   // the current line begins a record, and no byte of it yet tells whether it is a comment
	inComment bool   // the current line is a comment, which the CSV reader skips whole, quotes and all
	leading   leadingComment
}

// newInputReader starts reading src; what names it in an interruption
// ("reading --data obs.csv"). Close stops the goroutine once it
// returns from the read in progress; closing src as well unblocks that
// read where the source allows it (a pipe or FIFO opened by os.Open).
func newInputReader(ctx context.Context, src io.Reader, what string) *inputReader {
	r := &inputReader{ctx: ctx, what: what, chunks: make(chan inputChunk), done: make(chan struct{}), line: 1, start: 1, undecided: true}
	if !mayBlock(src) {
		r.direct = src
		return r
	}
	go func() {
		for {
			buf := make([]byte, inputChunkBytes)
			n, err := src.Read(buf)
			select {
			case r.chunks <- inputChunk{buf[:n], err}:
			case <-r.done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return r
}

// mayBlock reports whether a read of src may wait indefinitely: true
// for anything but memory and regular files.
func mayBlock(src io.Reader) bool {
	switch s := src.(type) {
	case *strings.Reader, *bytes.Reader, *bytes.Buffer:
		return false
	case *os.File:
		st, err := s.Stat()
		return err != nil || !st.Mode().IsRegular()
	}
	return true
}

// Close stops the reading goroutine.
func (r *inputReader) Close() {
	select {
	case <-r.done:
	default:
		close(r.done)
	}
}

// Read implements io.Reader.
func (r *inputReader) Read(p []byte) (int, error) {
	for len(p) > 0 {
		if len(r.rest) == 0 {
			if r.err != nil {
				return 0, r.err
			}
			if err := r.fill(); err != nil {
				return 0, err
			}
			continue
		}
		if n := r.translate(p); n > 0 {
			return n, nil // an error with the rest comes with the next Read
		}
		// Nothing moved: the chunk's rest was an LF after a CR, or the
		// line went over its limit at once (then r.err says so).
	}
	return 0, nil
}

// fill waits for the next chunk or the context's end.
func (r *inputReader) fill() error {
	if err := r.ctx.Err(); err != nil {
		return r.interrupted(err)
	}
	if r.direct != nil {
		if r.buf == nil {
			r.buf = make([]byte, directChunkBytes)
		}
		n, err := r.direct.Read(r.buf)
		r.rest, r.err = r.buf[:n], err
		return nil
	}
	select {
	case <-r.ctx.Done():
		return r.interrupted(r.ctx.Err())
	case c, ok := <-r.chunks:
		switch {
		case !ok:
			r.err = io.EOF
		case c.err != nil:
			r.err = c.err
		}
		r.rest = c.data
		return nil
	}
}

// interrupted makes err sticky as an interruptedError.
func (r *inputReader) interrupted(err error) error {
	r.err = &interruptedError{what: r.what, err: err}
	r.rest = nil
	return r.err
}

// translate moves bytes from rest into p, turning CR and CRLF into LF,
// counting lines and refusing one longer than the limit. It returns
// how many bytes it wrote.
func (r *inputReader) translate(p []byte) int {
	n, i := 0, 0
	for ; i < len(r.rest) && n < len(p); i++ {
		if r.total++; r.total > core.LimitInputBytes.Max {
			r.err, r.rest = &inputTooLargeError{r.sizeWhy}, nil
			return n
		}
		b := r.rest[i]
		if r.skipLF {
			r.skipLF = false
			if b == '\n' {
				continue
			}
		}
		if b == '\r' {
			b, r.skipLF = '\n', true
		}
		if r.undecided {
			r.classifyLine(b)
		}
		if !r.undecided && !r.inQuote || b == '\n' {
			r.leading.noteByte(b, r.line, r.inComment)
		}
		switch {
		case b == '"' && !r.inComment:
			r.inQuote = !r.inQuote // "" inside a quoted field toggles twice
		case b == '\n' && !r.inQuote:
			r.line++
			r.start, r.lineBytes = r.line, 0
			r.undecided, r.inComment = true, false
			p[n] = b
			n++
			continue
		case b == '\n':
			r.line++
		}
		r.lineBytes++
		if r.lineBytes > core.LimitLineBytes.Max {
			r.err, r.rest = &lineTooLongError{line: r.line, start: r.start}, nil
			return n
		}
		p[n] = b
		n++
	}
	r.rest = r.rest[i:]
	return n
}

// classifyLine decides, from b, the next byte of a line that begins a
// record, whether the line is a comment, by the rule of the CSV reader
// above (csvRecords): '#' as the line's first byte, after the
// byte-order mark that csvRecords drops at the start of the file. A
// quote in a comment line ("# probe 20\" wide") opens no quoted field,
// so the lines below it are counted one by one; a line that starts
// with spaces before the '#' is a record, as it is to the CSV reader.
// The mark's own bytes leave the decision open.
func (r *inputReader) classifyLine(b byte) {
	if r.line == 1 && r.lineBytes < len(byteOrderMark) && b == byteOrderMark[r.lineBytes] {
		return
	}
	r.undecided = false
	r.inComment = b == '#' && (r.lineBytes == 0 || r.lineBytes == len(byteOrderMark))
}

// openInput opens the input file a flag names. Its errors are usage
// errors naming the flag; so is anything but a regular file, refused
// unopened (notRegularInput): a named pipe would wait for a writer, a
// directory fail only at the first read, with a message that names
// neither the flag nor the cause plainly. The open runs in a goroutine
// all the same, and a cancelled ctx ends its wait with an
// interruptedError: a file made a named pipe since the check blocks it.
func openInput(ctx context.Context, flag, path string) (*os.File, error) {
	if err := notRegularInput(flag, path); err != nil {
		return nil, err
	}
	f, err := interruptible(ctx, "opening "+flag+" "+path, func() (*os.File, error) { return os.Open(path) },
		func(f *os.File) { f.Close() })
	var ie *interruptedError
	switch {
	case errors.As(err, &ie):
		return nil, err
	case err != nil:
		return nil, UsageError("%s: %v", flag, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, UsageError("%s: %s is a directory", flag, path)
	}
	return f, nil
}

// notRegularInput is the usage error for an input file (of flag) that
// is neither a regular file nor an unnamed pipe (core.CheckReadableFile),
// nil for any other.
// Standard input, which "-" reads, is the way to give a named pipe; an
// unnamed one (/dev/stdin, a shell's <(cmd)) has a writer and is read.
func notRegularInput(flag, path string) error {
	if err := core.CheckReadableFile(path); err != nil {
		return UsageError("%s: %v; give a file, or - to read standard input", flag, err)
	}
	return nil
}

// interruptible runs do in a goroutine and returns its result, or an
// interruptedError naming what as soon as ctx is cancelled, whichever
// comes first. The abandoned call runs on; discard (if not nil) gets
// its result when it ends (to close a file it opened).
func interruptible[T any](ctx context.Context, what string, do func() (T, error), discard func(T)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := do()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		go func() {
			if r := <-done; r.err == nil && discard != nil {
				discard(r.v)
			}
		}()
		var zero T
		return zero, &interruptedError{what: what, err: ctx.Err()}
	}
}

// csvRecords reads the records of an input CSV file through an
// inputReader, and checks what every input CSV must satisfy: valid CSV,
// text (UTF-8, no NUL), at most core.LimitFieldsPerLine fields of at
// most core.LimitFieldBytes bytes, lines of at most
// core.LimitLineBytes. Fields come trimmed of spaces. A line that
// starts with '#' is a comment and skipped (a lab file's "# sample 3,
// 20 °C" above its header), as is a spreadsheet's byte-order mark
// before the first line. The comments above the first record are kept
// (leadingComments) for the messages about a header.
type csvRecords struct {
	name    string // labels the errors: "name:line: problem"
	in      *inputReader
	br      *bufio.Reader
	cr      *csv.Reader
	started bool // the byte-order mark, if any, is skipped
}

// newCSVRecords reads r, which name labels in errors, until ctx ends.
// Close it when done.
func newCSVRecords(ctx context.Context, r io.Reader, name string) *csvRecords {
	in := newInputReader(ctx, r, "reading "+name)
	br := bufio.NewReader(in)
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // count fields ourselves for a clearer message
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	cr.Comment = '#'
	return &csvRecords{name: name, in: in, br: br, cr: cr}
}

// leadingComments returns the comment lines above the first record
// (the last maxLeadingComments of them), complete once the first
// record has been read.
func (c *csvRecords) leadingComments() []commentLine { return c.in.leading.comments }

// Close stops the reading goroutine.
func (c *csvRecords) Close() { c.in.Close() }

// noRecordWhat says what a file that gave no record holds, for the
// refusal "name: WHAT; want a header ...": "empty file", unless it
// has comment lines, which a reader who sees text in the file would
// otherwise not take for empty.
func (c *csvRecords) noRecordWhat() string {
	if len(c.leadingComments()) > 0 {
		return "no header row, only comment lines (starting with #)"
	}
	return "empty file"
}

// looksBinary reports whether the file's first bytes hold a NUL, which
// no text CSV has: catching binary data up front gives a clearer
// message than the CSV reader's complaint about quotes.
func (c *csvRecords) looksBinary() bool {
	head, _ := c.br.Peek(4096) // a shorter file, or an error, shows at the first record
	return bytes.IndexByte(head, 0) >= 0
}

// binaryKind names what binary input is, for the error that refuses
// it: a checkpoint given where observations go (--data and
// --checkpoint swapped), a spreadsheet workbook saved as such, a
// compressed file; "binary data" when its first bytes say no more.
func (c *csvRecords) binaryKind() string {
	head, _ := c.br.Peek(4096)
	switch {
	case isSafetensors(head, math.MaxInt64):
		return "a safetensors checkpoint, which goes to --checkpoint"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "a ZIP archive, such as an .xlsx or .ods workbook: export the sheet as CSV"
	case bytes.HasPrefix(head, []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")):
		return "an .xls workbook: export the sheet as CSV"
	case bytes.HasPrefix(head, []byte("\x1f\x8b")):
		return "gzip-compressed: decompress it first"
	case bytes.HasPrefix(head, []byte("\xff\xfe")) || bytes.HasPrefix(head, []byte("\xfe\xff")):
		// Spreadsheets offer "Unicode text", UTF-16 with this mark,
		// whose ASCII characters each carry a NUL byte.
		return "UTF-16 text: save it as UTF-8 (CSV UTF-8 in a spreadsheet)"
	default:
		return "binary data"
	}
}

// byteOrderMark is the UTF-8 byte-order mark that spreadsheets write
// at the start of a CSV file.
const byteOrderMark = "\ufeff"

// skipByteOrderMark drops a byte-order mark at the start of the file,
// so that the first line is read as written: a header, or a comment
// the CSV reader skips only when '#' is its first byte. cr reads
// through br (csv.NewReader does not wrap a large enough
// bufio.Reader), so what br drops cr never sees.
func (c *csvRecords) skipByteOrderMark() {
	if head, _ := c.br.Peek(len(byteOrderMark)); string(head) == byteOrderMark {
		_, _ = c.br.Discard(len(byteOrderMark))
	}
}

// bad is a usage error about line of the file.
func (c *csvRecords) bad(line int, format string, args ...any) error {
	return UsageError("%s:%d: %s", c.name, line, fmt.Sprintf(format, args...))
}

// csvSyntaxWords says what is wrong with a record the CSV reader
// refused, for a message about the line where the record starts. A
// quote left open there swallows the lines below it, and the reader
// notices only where the file or a later quote ends them: that line
// alone would send the user to a row with nothing wrong in it.
func csvSyntaxWords(pe *csv.ParseError) string {
	switch {
	case pe.Line > pe.StartLine:
		return fmt.Sprintf("not valid CSV: the quote opened on this line is not closed before line %d (%v)", pe.Line, pe.Err)
	case errors.Is(pe.Err, csv.ErrQuote):
		// "1" ,2: the reader names the quote, not the blank after it.
		return fmt.Sprintf("not valid CSV: %v at column %d: a quoted field must end at its closing quote, with nothing (not even a space) before the next comma, and a quote inside it is written twice (\"\")", pe.Err, pe.Column)
	}
	return fmt.Sprintf("not valid CSV: %v", pe.Err)
}

// next returns the next record (valid until the next call) and its line
// number; io.EOF at the end; an interruptedError when ctx ended; else a
// usage error naming the file and line.
func (c *csvRecords) next() (rec []string, line int, err error) {
	for {
		rec, line, err = c.nextRecord()
		// A line of spaces is skipped as an empty one is (the CSV
		// reader skips only the latter), and so is a row of empty
		// cells: the ",," that spreadsheets export below the data. A
		// comment indented under a header is a comment too (the reader
		// takes only a '#' in the first column for one).
		if err != nil || !allEmpty(rec) && !strings.HasPrefix(rec[0], "#") {
			return rec, line, err
		}
	}
}

// allEmpty reports whether every field of rec is empty.
func allEmpty(rec []string) bool {
	for _, f := range rec {
		if f != "" {
			return false
		}
	}
	return true
}

// nextRecord is next without skipping lines of spaces.
func (c *csvRecords) nextRecord() (rec []string, line int, err error) {
	if !c.started {
		c.started = true
		c.skipByteOrderMark()
	}
	rec, err = c.cr.Read()
	var pe *csv.ParseError
	var long *lineTooLongError
	var ie *interruptedError
	var big *inputTooLargeError
	switch {
	case err == io.EOF:
		return nil, 0, err
	case errors.As(err, &ie):
		return nil, 0, err
	case errors.As(err, &big):
		return nil, 0, UsageError("%s: %v", c.name, big)
	case errors.As(err, &long):
		return nil, long.line, c.bad(long.line, "%v", long)
	case errors.As(err, &pe):
		return nil, pe.StartLine, c.bad(pe.StartLine, "%s", csvSyntaxWords(pe))
	case err != nil:
		return nil, 0, UsageError("%s: %v", c.name, err)
	}
	line, _ = c.cr.FieldPos(0)
	if l := core.LimitFieldsPerLine; len(rec) > l.Max {
		return nil, line, c.bad(line, "%d fields, more than the %s limit %d (%s)", len(rec), l.Name, l.Max, l.Why)
	}
	for i := range rec {
		if !utf8.ValidString(rec[i]) || strings.IndexByte(rec[i], 0) >= 0 {
			return nil, line, c.bad(line, "not a CSV text file (binary data)")
		}
		rec[i] = strings.TrimSpace(rec[i])
		if l := core.LimitFieldBytes; len(rec[i]) > l.Max {
			return nil, line, c.bad(line, "field %d is %d bytes long, over the %s limit %d (%s): %s", i+1, len(rec[i]), l.Name, l.Max, l.Why, core.QuoteInput(rec[i]))
		}
	}
	return rec, line, nil
}
