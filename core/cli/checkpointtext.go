package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// textHeadBytes is how much of a file textCheckpointReason reads to tell
// text from binary data: a checkpoint's header length comes first, and
// text of this length has shown what it is.
const textHeadBytes = 512

// textCheckpointReason says, for a file given as a checkpoint that is not
// safetensors, that it is text and which kind when its name says so ("a
// CSV file (observations go to calibrate --data)"), quoting its first
// line; ok is false for a file that is not text, or cannot be read
// again. The safetensors reader can only say that the first 8 bytes of
// a CSV give an absurd header length: true, and of no help to whoever
// swapped --data and --checkpoint.
func textCheckpointReason(path string) (reason string, ok bool) {
	first, ok := textFirstLine(path)
	if !ok {
		return "", false
	}
	kind := "a text file"
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		kind = "a CSV file (observations go to calibrate --data)"
	case ".json":
		kind = "a JSON file (a command's --json output)"
	}
	return kind + " that begins " + quoteLine(first) + ", not the binary weights that apic train writes", true
}

// textFirstLine is the first non-empty line of the file at path when its
// first textHeadBytes are text: valid UTF-8 (a rune cut by the end of
// the read aside) without control characters but tab, CR and LF.
func textFirstLine(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	head := make([]byte, textHeadBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return "", false
	}
	head = bytes.TrimPrefix(head[:n], []byte(byteOrderMark))
	if !isText(head, n == textHeadBytes) {
		return "", false
	}
	for line := range strings.Lines(string(head)) {
		if line = strings.TrimSpace(line); line != "" {
			return line, true
		}
	}
	return "", false
}

// isText reports whether b is text; cut says the read may have split its
// last rune.
func isText(b []byte, cut bool) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			return cut && !utf8.FullRune(b)
		}
		if unicode.IsControl(r) && r != '\t' && r != '\r' && r != '\n' {
			return false
		}
		b = b[size:]
	}
	return true
}

// quoteLine quotes a line of text (no control characters but tabs,
// which isText let through) for a message, cut to its first 40 runes.
// It is not escaped: %q would bury a JSON file's words in backslashes.
func quoteLine(s string) string {
	const most = 40
	if runes := []rune(s); len(runes) > most {
		s = string(runes[:most]) + "…"
	}
	return `"` + s + `"`
}
