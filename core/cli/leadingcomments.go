package cli

import "bytes"

// maxLeadingComments is how many of the comment lines above a file's
// first record an inputReader keeps: the last ones, nearest the data,
// where a commented-out header sits.
const maxLeadingComments = 16

// commentLine is a comment line of an input file: its number and its
// text after the '#', trimmed of spaces.
type commentLine struct {
	line int
	text string
}

// leadingComment is how an inputReader keeps the comment lines above a
// file's first record, which the CSV reader skips unseen: a header
// commented out (#t,y) can then be named in the message about the
// numbers below it. It reads lines as the reader's classifyLine decides
// them, the CSV reader's rule; a line of spaces is blank, and the first
// other line that is no comment is the first record, after which
// nothing more is kept.
type leadingComment struct {
	comments []commentLine // the last maxLeadingComments kept
	text     []byte        // the comment line being read
	recordUp bool          // the first record has begun
}

// noteByte takes byte b of line (CR already turned into LF), which is a
// comment line's when inComment.
func (c *leadingComment) noteByte(b byte, line int, inComment bool) {
	switch {
	case c.recordUp:
	case b == '\n':
		if inComment {
			if len(c.comments) == maxLeadingComments {
				c.comments = append(c.comments[:0], c.comments[1:]...)
			}
			c.comments = append(c.comments, commentLine{line, string(bytes.TrimSpace(c.text[1:]))})
		}
		c.text = c.text[:0]
	case inComment:
		c.text = append(c.text, b)
	case b != ' ' && b != '\t':
		c.recordUp = true
	}
}
