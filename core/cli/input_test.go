package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"apic/core"
	"apic/sims"
)

// endless is a reader of head followed by body repeated forever,
// counting the bytes it gave (atomically: the parser's reading
// goroutine may still be in a Read after the parse returned).
type endless struct {
	head, body []byte
	pos        int // read by Read alone
	given      atomic.Int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		var k int
		if e.pos < len(e.head) {
			k = copy(p[n:], e.head[e.pos:])
		} else {
			k = copy(p[n:], e.body[(e.pos-len(e.head))%len(e.body):])
		}
		n += k
		e.pos += k
	}
	e.given.Add(int64(n))
	return n, nil
}

// rowsForever is a valid spring file with ever more rows at distinct t.
type rowsForever struct {
	buf   bytes.Buffer
	row   int
	given atomic.Int64
}

func (r *rowsForever) Read(p []byte) (int, error) {
	if r.row == 0 {
		r.buf.WriteString("t,y\n")
	}
	for r.buf.Len() < len(p) {
		r.row++
		fmt.Fprintf(&r.buf, "%.9f,0.5\n", 4*float64(r.row)/1e8)
	}
	n, _ := r.buf.Read(p)
	r.given.Add(int64(n))
	return n, nil
}

// TestInputLimitsWhileReading: a line of 200 MB, a header of a million
// commas, a line of 1e8 fields, a quoted field of endless lines and
// endless rows are each refused with the file, the line and the limit,
// after reading at most a few megabytes.
func TestInputLimitsWhileReading(t *testing.T) {
	spring := lookup(t, "spring").Grid()
	maxLine := fmt.Sprint(core.LimitLineBytes.Max)
	for _, tc := range []struct {
		name string
		r    io.Reader
		want []string
	}{
		{"huge header", &endless{body: []byte("h")}, []string{"f.csv:1:", "line length", maxLine}},
		{"million commas", &endless{body: []byte(",")}, []string{"f.csv:1:", "line length"}},
		{"1e8 fields", &endless{head: []byte("t,y\n"), body: []byte("1,")}, []string{"f.csv:2:", "line length"}},
		{"endless quoted field", &endless{head: []byte("t,y\n1,\""), body: []byte("9\n")}, []string{"f.csv:", "the record from line 2, a quoted field with line breaks", "line length"}},
		{"endless CR-only lines in quotes", &endless{head: []byte("t,y\r1,\""), body: []byte("9\r")}, []string{"f.csv:", "line length"}},
		{"endless rows", &rowsForever{}, []string{fmt.Sprintf("f.csv:%d:", core.LimitObservations.Max+2), "observations limit", fmt.Sprint(core.LimitObservations.Max)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := parseObservations(context.Background(), tc.r, "f.csv", spring, nil)
			if err == nil || !IsUsageError(err) {
				t.Fatalf("error %v, want a usage error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if len(err.Error()) > 400 {
				t.Errorf("error is %d bytes long", len(err.Error()))
			}
			var given int64
			switch r := tc.r.(type) {
			case *endless:
				given = r.given.Load()
			case *rowsForever:
				given = r.given.Load()
			}
			if given > 4<<20 {
				t.Errorf("read %d bytes before refusing", given)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestCommentQuotesOpenNoField: a quote in a comment line opens no
// quoted field for the line-length bound, so a file over
// core.LimitLineBytes below "# probe 20" wide" is read line by line
// (it once was refused as one record from line 1). A line is a
// comment by the CSV reader's rule: '#' first, after a byte-order mark
// only at the start of the file; a line that continues a quoted field
// is none. Reads of one byte at a time split the mark and the lines.
func TestCommentQuotesOpenNoField(t *testing.T) {
	rows := strings.Repeat("0,1\n", core.LimitLineBytes.Max/4+10)
	for _, tc := range []struct {
		name, head string
		start      int // of the record refused as too long; 0: none is
	}{
		{"comment", "# probe 20\" wide\n", 0},
		{"comment after the mark", byteOrderMark + "# probe 20\" wide\n", 0},
		{"comment below the header", "t,y\n0,1\n# \"\n", 0},
		{"comment of quotes", "#\"\"\"\n", 0},
		{"continued quoted field", "0,\"a\n# b\"\n", 0},
		{"space before #", " # probe 20\" wide\n", 1},
		{"broken mark", byteOrderMark[:2] + "# probe 20\" wide\n", 1},
		{"mark below line 1", "t,y\n" + byteOrderMark + "# probe 20\" wide\n", 2},
		{"quote in a record", "0,\"1\n", 1},
	} {
		for _, src := range []struct {
			how string
			r   io.Reader
		}{{"whole", strings.NewReader(tc.head + rows)}, {"byte by byte", iotest.OneByteReader(strings.NewReader(tc.head + rows))}} {
			in := newInputReader(context.Background(), src.r, "reading f.csv")
			_, err := io.ReadAll(in)
			in.Close()
			var long *lineTooLongError
			switch {
			case tc.start == 0 && err != nil:
				t.Errorf("%s, %s: %v, want the file read whole", tc.name, src.how, err)
			case tc.start > 0 && (!errors.As(err, &long) || long.start != tc.start):
				t.Errorf("%s, %s: %v, want the record from line %d refused as too long", tc.name, src.how, err, tc.start)
			}
		}
	}

	// The whole path: calibrate --data, and --u0-file.
	spring := lookup(t, "spring").Grid()
	obs, err := parseObservations(context.Background(), strings.NewReader("# probe 20\" wide\n"+longCSV(1000)), "f.csv", spring, nil)
	if err != nil || obs.Len() != 1000 {
		t.Errorf("observations below a comment with a quote: %d, %v; want 1000", obs.Len(), err)
	}
	var side strings.Builder
	side.WriteString(byteOrderMark + "# probe 20\" wide\nx,u\n")
	for i := range 400 {
		fmt.Fprintf(&side, "%.4f,0.5\n", float64(i)/400)
	}
	u0, err := parseSideCSV(context.Background(), strings.NewReader(side.String()), "u.csv", sims.SideInfo{Len: 400}, sideAxis{lo: 0, hi: 1})
	if err != nil || len(u0) != 400 {
		t.Errorf("side information below a comment with a quote: %d values, %v; want 400", len(u0), err)
	}
}

// TestInputFieldLimits: a field over core.LimitFieldBytes and a line of
// more than core.LimitFieldsPerLine fields are refused, naming the line,
// the limit and (cut short) the field.
func TestInputFieldLimits(t *testing.T) {
	spring := lookup(t, "spring").Grid()
	long := strings.Repeat("7", core.LimitFieldBytes.Max+1)
	for _, tc := range []struct{ text, want string }{
		{"t,y\n1," + long + "\n", fmt.Sprintf("f.csv:2: field 2 is %d bytes long, over the field length limit %d", len(long), core.LimitFieldBytes.Max)},
		{"t,y\n" + strings.Repeat("1,", core.LimitFieldsPerLine.Max) + "1\n", fmt.Sprintf("f.csv:2: %d fields, more than the fields per line limit %d", core.LimitFieldsPerLine.Max+1, core.LimitFieldsPerLine.Max)},
		{strings.Repeat("h", 300) + ",y\n", "f.csv:1: field 1 is 300 bytes long"},
	} {
		_, err := parseObservations(context.Background(), strings.NewReader(tc.text), "f.csv", spring, nil)
		if err == nil || !IsUsageError(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: error %v, want a usage error containing %q", tc.text, err, tc.want)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Errorf("%.40q: error is %d bytes long", tc.text, len(err.Error()))
		}
	}
	_, err := parseSideCSV(context.Background(), &endless{head: []byte("x,u\n"), body: []byte("0")}, "u.csv", sims.SideInfo{Len: 4}, sideAxis{lo: 0, hi: 1})
	if err == nil || !IsUsageError(err) || !strings.Contains(err.Error(), "u.csv:2: line longer than") {
		t.Errorf("endless side line: %v", err)
	}
}

// TestErrorsQuoteAtMost80: whatever a hostile header holds, the message
// quotes at most core.QuoteMax characters of it.
func TestErrorsQuoteAtMost80(t *testing.T) {
	spring := lookup(t, "spring").Grid()
	field := strings.Repeat("h", 250)
	for _, text := range []string{
		field + "\n",                                   // unknown column
		"t,y," + strings.Repeat(",", 60) + "\n",        // empty column name
		"t,y,t" + strings.Repeat("x", 240) + "\n",      // unknown column, long
		"t," + field + ";" + "\n",                      // foreign delimiter?
		strings.Repeat(field+",", 15) + "\n",           // many long columns
		"t,y\n1," + strings.Repeat("9", 250) + "x\n",   // not a number
		"t;" + strings.Repeat("y", 250) + "\n",         // semicolons
		"t,y\n1,2," + strings.Repeat("9;", 100) + "\n", // fields
	} {
		_, err := parseObservations(context.Background(), strings.NewReader(text), "f.csv", spring, nil)
		if err == nil {
			t.Errorf("%.40q accepted", text)
			continue
		}
		if strings.Contains(err.Error(), strings.Repeat("h", core.QuoteMax+1)) || strings.Contains(err.Error(), strings.Repeat("9", core.QuoteMax+1)) || len(err.Error()) > 400 {
			t.Errorf("%.40q: error of %d bytes quotes too much: %.200s", text, len(err.Error()), err)
		}
	}
	_, err := parseSideCSV(context.Background(), strings.NewReader(strings.Repeat("x", 250)+",u\n"), "u.csv", sims.SideInfo{Len: 4}, sideAxis{lo: 0, hi: 1})
	if err == nil || strings.Contains(err.Error(), strings.Repeat("x", core.QuoteMax+1)) {
		t.Errorf("side header: %v", err)
	}
}

// TestLineEndings: CR alone (old Mac) and CRLF end lines like LF, in
// observation and side-information files.
func TestLineEndings(t *testing.T) {
	spring := lookup(t, "spring").Grid()
	for _, text := range []string{"t,y\r0,0.5\r1,0.25\r", "t,y\r\n0,0.5\r\n1,0.25", "t,y\r0,0.5\n1,0.25\r\n", "t,y\r\r0,0.5\r\r\n1,0.25\r"} {
		obs, err := parseObservations(context.Background(), strings.NewReader(text), "f.csv", spring, nil)
		if err != nil || obs.Len() != 2 || obs.Values[1][0] != 0.25 {
			t.Errorf("%q: %d observations, %v", text, obs.Len(), err)
		}
	}
	// The line numbers count CR-only lines.
	_, err := parseObservations(context.Background(), strings.NewReader("t,y\r0,0.5\r1,x\r"), "f.csv", spring, nil)
	if err == nil || !strings.Contains(err.Error(), "f.csv:3:") {
		t.Errorf("CR-only line number: %v", err)
	}
	got, err := parseSideCSV(context.Background(), strings.NewReader("x,u\r0,1\r0.5,2\r"), "u.csv", sims.SideInfo{Len: 2}, sideAxis{lo: 0, hi: 1})
	if err != nil || len(got) != 2 || got[1] != 2 {
		t.Errorf("CR-only side file: %v, %v", got, err)
	}
}

// TestSaneRangeEverySystem: an observed value beyond core.SaneValueBound
// is refused the same way on every system, with the line; one inside is
// accepted (and left to the warnings).
func TestSaneRangeEverySystem(t *testing.T) {
	for _, name := range []string{"spring", "lv", "advdiff"} {
		sys := lookup(t, name)
		g := sys.Grid()
		bound := core.SaneValueBound(sys)
		lo, hi := core.TrainingValueRange(sys)
		header := strings.Join(obsHeader(g), ",")
		state := "1"
		if len(g.StateNames) == 2 {
			state = "1,0.5"
		}
		rows := func(v string) string {
			var b strings.Builder
			b.WriteString(header + "\n" + state)
			for range g.Channels {
				b.WriteString("," + v)
			}
			return b.String() + "\n"
		}
		for _, v := range []string{"1e308", "-1e200", fmt.Sprint(2 * bound[0])} {
			_, err := parseObservations(context.Background(), strings.NewReader(rows(v)), "f.csv", g, bound)
			if err == nil || !IsUsageError(err) || !strings.Contains(err.Error(), "f.csv:2:") || !strings.Contains(err.Error(), "sane range") {
				t.Errorf("%s, %s: error %v, want a usage error on f.csv:2 about the sane range", name, v, err)
			}
		}
		inside := fmt.Sprint(0.5 * min(bound[0], bound[len(bound)-1]))
		if _, err := parseObservations(context.Background(), strings.NewReader(rows(inside)), "f.csv", g, bound); err != nil {
			t.Errorf("%s, %s (training range [%v, %v]): %v", name, inside, lo, hi, err)
		}
	}
	// Side information by the same rule: lv's u0 and advdiff's u0(x).
	lv := lookup(t, "lv")
	if _, err := parseSideValues("1e300,1", lv.Side()); err == nil || !strings.Contains(err.Error(), "sane range") {
		t.Errorf("lv --u0 1e300,1: %v", err)
	}
	adv := lookup(t, "advdiff")
	si := adv.Side()
	si.Len = 2
	if _, err := parseSideCSV(context.Background(), strings.NewReader("x,u\n0.1,1e300\n0.2,0\n"), "u.csv", si, sideAxis{lo: 0, hi: 1}); err == nil || !strings.Contains(err.Error(), "u.csv:2:") || !strings.Contains(err.Error(), "sane range") {
		t.Errorf("advdiff u0 file with 1e300: %v", err)
	}
}

// blockingReader blocks every Read until closed.
type blockingReader struct{ closed chan struct{} }

func (b blockingReader) Read([]byte) (int, error) {
	<-b.closed
	return 0, io.EOF
}

// TestParseReturnsWhenCancelled: a read that blocks does not keep a
// cancelled context from ending the parse at once, with an
// interruption (not a usage error).
func TestParseReturnsWhenCancelled(t *testing.T) {
	spring := lookup(t, "spring").Grid()
	src := blockingReader{make(chan struct{})}
	defer close(src.closed)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := parseObservations(ctx, src, "f.csv", spring, nil)
	if d := time.Since(start); d > time.Second {
		t.Errorf("returned %v after the cancellation", d)
	}
	if !errors.Is(err, context.Canceled) || IsUsageError(err) || !strings.Contains(err.Error(), "interrupted while reading f.csv") {
		t.Errorf("error %v, want an interruption naming the file", err)
	}
	// A long file that does not block stops at the cancellation too.
	_, err = parseObservations(ctx, &rowsForever{}, "f.csv", spring, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before reading: %v", err)
	}
}

// TestInputSizeLimit: an input file's bytes are bounded as they are read,
// blank lines included: an endless source of blank lines (the output of
// yes piped to apic calibrate --data -) once was read forever. The error names the
// file and the limit; a file within the limit is read whole.
func TestInputSizeLimit(t *testing.T) {
	spring := lookup(t, "spring").Grid()
	limit := fmt.Sprint(core.LimitInputBytes.Max)
	for _, r := range []*endless{{head: []byte("t,y\n"), body: []byte("\n")}, {head: []byte("t,y\n1,0.5\n"), body: []byte("   \r\n")}} {
		done := make(chan error, 1)
		go func() {
			_, err := parseObservations(context.Background(), r, "f.csv", spring, nil)
			done <- err
		}()
		select {
		case err := <-done:
			if !IsUsageError(err) || !strings.Contains(err.Error(), "f.csv: more than "+limit+" bytes") || !strings.Contains(err.Error(), "input size limit") {
				t.Errorf("endless blank lines: %v, want a usage error naming f.csv and the %s-byte limit", err, limit)
			}
			if n := r.given.Load(); n > int64(core.LimitInputBytes.Max)+1<<20 {
				t.Errorf("read %d bytes before refusing", n)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("endless blank lines: still reading after a minute")
		}
	}

	// At a lowered limit, on a file: one byte over is refused, the
	// limit itself is read (the side-information file too).
	defer func(old int) { core.LimitInputBytes.Max = old }(core.LimitInputBytes.Max)
	dir := t.TempDir()
	text := "t,y\n1,0.5\n2,0.25\n\n\n\n"
	core.LimitInputBytes.Max = len(text)
	path := writeFile(t, dir, "obs.csv", text)
	if _, err := readObservations(context.Background(), path, spring, nil); err != nil {
		t.Errorf("a file of exactly the limit: %v", err)
	}
	core.LimitInputBytes.Max = len(text) - 1
	_, err := readObservations(context.Background(), path, spring, nil)
	if err == nil || !strings.Contains(err.Error(), path+": more than "+fmt.Sprint(len(text)-1)+" bytes") {
		t.Errorf("a byte over the limit: %v", err)
	}
	adv := lookup(t, "advdiff")
	side := writeFile(t, dir, "u0.csv", "x,u\n"+strings.Repeat("\n", 100))
	_, err = readSideCSV(context.Background(), side, adv.Side(), sideAxisOf(adv.Grid(), adv.Side().Len))
	if err == nil || !strings.Contains(err.Error(), side+": more than") {
		t.Errorf("a side-information file over the limit: %v", err)
	}
	// Each gives its own reason: --data's observations are no reason
	// for --u0-file's bound.
	if err == nil || strings.Contains(err.Error(), "observations") || !strings.Contains(err.Error(), fmt.Sprintf("a --u0-file is a header and %d rows of x,u", adv.Side().Len)) {
		t.Errorf("a side-information file over the limit: %v, want --u0-file's own reason", err)
	}
	if _, err := readObservations(context.Background(), path, spring, nil); err == nil || !strings.Contains(err.Error(), core.LimitInputBytes.Why) {
		t.Errorf("an observation file over the limit: %v, want the reason %q", err, core.LimitInputBytes.Why)
	}
}

// TestCalibrateHelpLimitsWrapped: the limits paragraph of calibrate
// --help has no line cut short in mid-sentence (once "An observed
// value" ended a line of its own after a line too long).
func TestCalibrateHelpLimitsWrapped(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(inputLimitsHelp()), "\n")
	for i, l := range lines {
		if len(l) > 72 {
			t.Errorf("line %d is %d bytes long: %q", i+1, len(l), l)
		}
		if i+1 < len(lines) && len(l) < 55 {
			t.Errorf("line %d is cut short (%d bytes): %q", i+1, len(l), l)
		}
	}
}
