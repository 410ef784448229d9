package cli

import (
	"bytes"
	"io"
)

// maxLeadingComments is how many of the comment lines above a file's
// first record a commentTap keeps: the last ones, nearest the data,
// where a commented-out header sits.
const maxLeadingComments = 16

// commentLine is a comment line of an input file: its number and its
// text after the '#', trimmed of spaces.
type commentLine struct {
	line int
	text string
}

// commentTap passes an input file's bytes through unchanged and keeps
// the comment lines above its first record, which the CSV reader skips
// unseen: a header commented out (#t,y) can then be named in the
// message about the numbers below it. It reads lines as the CSV reader
// does: '#' as a line's first byte (after a byte-order mark on line 1)
// makes a comment, a line of spaces is blank, and any other line is
// the first record, after which the tap only passes bytes on. Lines
// come to it with LF endings and bounded in length (inputReader).
type commentTap struct {
	src      io.Reader
	line     int    // the line being read, from 1
	current  []byte // its bytes so far
	done     bool   // the first record has begun
	comments []commentLine
}

func newCommentTap(src io.Reader) *commentTap { return &commentTap{src: src, line: 1} }

// Read implements io.Reader.
func (t *commentTap) Read(p []byte) (int, error) {
	n, err := t.src.Read(p)
	if !t.done {
		t.watch(p[:n])
	}
	return n, err
}

// watch classifies each line that data ends.
func (t *commentTap) watch(data []byte) {
	for len(data) > 0 && !t.done {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			t.current = append(t.current, data...)
			return
		}
		t.current = append(t.current, data[:end]...)
		data = data[end+1:]
		t.endLine()
	}
}

// endLine classifies the line just read.
func (t *commentTap) endLine() {
	text := t.current
	if t.line == 1 {
		text = bytes.TrimPrefix(text, []byte(byteOrderMark))
	}
	switch {
	case len(text) > 0 && text[0] == '#':
		if len(t.comments) == maxLeadingComments {
			t.comments = append(t.comments[:0], t.comments[1:]...)
		}
		t.comments = append(t.comments, commentLine{t.line, string(bytes.TrimSpace(text[1:]))})
	case len(bytes.TrimSpace(text)) > 0:
		t.done = true
	}
	t.current = t.current[:0]
	t.line++
}
