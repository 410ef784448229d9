package cli

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// TestInputReaderKeepsLeadingComments: the comments above the first
// record are kept with their line numbers however the reads split the
// lines, the last maxLeadingComments of them; comments below the first
// record, and the bytes passed on, are left as they are.
func TestInputReaderKeepsLeadingComments(t *testing.T) {
	text := byteOrderMark + "#a\n\n \t\n#  b,c \n0,1\n#d\n"
	tap := newInputReader(context.Background(), iotest.OneByteReader(strings.NewReader(text)), "reading text")
	defer tap.Close()
	got, err := io.ReadAll(tap)
	if err != nil || string(got) != text {
		t.Fatalf("read %q, %v; want the bytes unchanged", got, err)
	}
	want := []commentLine{{1, "a"}, {4, "b,c"}}
	if !reflect.DeepEqual(tap.leading.comments, want) {
		t.Errorf("comments %v, want %v", tap.leading.comments, want)
	}

	var many strings.Builder
	for i := range maxLeadingComments + 3 {
		fmt.Fprintf(&many, "#%d\n", i)
	}
	tap = newInputReader(context.Background(), strings.NewReader(many.String()+"0,1\n"), "reading many")
	defer tap.Close()
	if _, err := io.ReadAll(tap); err != nil {
		t.Fatal(err)
	}
	if n := len(tap.leading.comments); n != maxLeadingComments || tap.leading.comments[0] != (commentLine{4, "3"}) {
		t.Errorf("%d comments from %v, want the last %d, from line 4", n, tap.leading.comments[0], maxLeadingComments)
	}
}
