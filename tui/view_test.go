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
		{"one two three four five six", []int{8, 8}, []string{"one two", "…ive six"}},
		{"see /a/very/long/path/name", []int{12, 30}, []string{"see /a/very/", "long/path/name"}},
	} {
		got := splitMsg(tc.msg, tc.widths)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("splitMsg(%q, %v) = %q, want %q", tc.msg, tc.widths, got, tc.want)
		}
	}
}
