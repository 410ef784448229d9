package tui

import (
	"fmt"
	"testing"
)

func TestSplitMsg(t *testing.T) {
	for _, tc := range []struct {
		msg    string
		widths []int
		want   []string
	}{
		{"short", []int{20}, []string{"short"}},
		{"a note longer than its line", []int{10}, []string{"a note longer than its line"}},
		{"one two three", []int{0, 20}, []string{"", "one two three"}},
		{"one two three four", []int{8, 8, 8}, []string{"one two", "three", "four"}},
		// The last line starts at a word, never inside one.
		{"one two three four five six", []int{8, 8}, []string{"one two", "…six"}},
		{"aaa bbb ccc", []int{0, 8}, []string{"", "…bbb ccc"}},
		{"see /a/very/long/path", []int{0, 8}, []string{"", "…ng/path"}},
		// ... and at a part of the message where one starts in it.
		{"koh-gp: need at least 2 context observations, got 1; bcpi: channel y has 1 context observations, need at least 2",
			[]int{0, 78}, []string{"", "…bcpi: channel y has 1 context observations, need at least 2"}},
		{"a long range warning here · cannot open x: no such file", []int{0, 40}, []string{"", "…cannot open x: no such file"}},
		{"see /a/very/long/path/name", []int{12, 30}, []string{"see /a/very/", "long/path/name"}},
	} {
		got := splitMsg(tc.msg, tc.widths)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("splitMsg(%q, %v) = %q, want %q", tc.msg, tc.widths, got, tc.want)
		}
	}
}
