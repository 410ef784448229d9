package cli

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// TestCommentTapKeepsLeadingComments: the comments above the first
// record are kept with their line numbers however the reads split the
// lines, the last maxLeadingComments of them; comments below the first
// record, and the bytes passed on, are left as they are.
func TestCommentTapKeepsLeadingComments(t *testing.T) {
	text := byteOrderMark + "#a\n\n \t\n#  b,c \n0,1\n#d\n"
	tap := newCommentTap(iotest.OneByteReader(strings.NewReader(text)))
	got, err := io.ReadAll(tap)
	if err != nil || string(got) != text {
		t.Fatalf("read %q, %v; want the bytes unchanged", got, err)
	}
	want := []commentLine{{1, "a"}, {4, "b,c"}}
	if !reflect.DeepEqual(tap.comments, want) {
		t.Errorf("comments %v, want %v", tap.comments, want)
	}

	var many strings.Builder
	for i := range maxLeadingComments + 3 {
		fmt.Fprintf(&many, "#%d\n", i)
	}
	tap = newCommentTap(strings.NewReader(many.String() + "0,1\n"))
	if _, err := io.ReadAll(tap); err != nil {
		t.Fatal(err)
	}
	if n := len(tap.comments); n != maxLeadingComments || tap.comments[0] != (commentLine{4, "3"}) {
		t.Errorf("%d comments from %v, want the last %d, from line 4", n, tap.comments[0], maxLeadingComments)
	}
}
