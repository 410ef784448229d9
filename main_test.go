package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"apic/core/cli"
	"apic/tui"
)

// registerExplorer adds the explorer to the command line once, as main
// does, for the tests that need every command.
var registerExplorer = sync.OnceFunc(func() { cli.RegisterExternal(tui.Command()) })

// TestFlagsWithoutCommandOpenTheExplorer: "apic --system lv" is the
// explorer's command line, as "apic" alone is; off a terminal the
// explorer then refuses with its own message, not "unknown command".
func TestFlagsWithoutCommandOpenTheExplorer(t *testing.T) {
	registerExplorer()
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), []string{"--system", "lv"}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "the explorer needs a terminal") {
		t.Errorf("exit %d, stderr %q; want the explorer's terminal error", code, errOut.String())
	}
	errOut.Reset()
	code = cli.Run(context.Background(), []string{"--no-such-flag"}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "apic explore: flag provided but not defined: --no-such-flag") {
		t.Errorf("exit %d, stderr %q; want the explorer's flag error", code, errOut.String())
	}
}

// TestHelpProseIsFilled: a command's description is filled, so that no
// line stops short where the next line's first word would have fitted (a
// ragged break reads as the end of a thought, or as a lost line).
// Indented lines (lists, tables) are left as written; a new thought
// takes a blank line.
func TestHelpProseIsFilled(t *testing.T) {
	const fill = 60 // columns every filled line reaches but its paragraph's last
	registerExplorer()
	prose := func(l string) bool { return l != "" && !strings.HasPrefix(l, " ") }
	for _, c := range cli.Commands() {
		var out bytes.Buffer
		cli.Run(context.Background(), []string{c.Name, "--help"}, &out, &out)
		_, description, _ := strings.Cut(out.String(), "\n\n")
		description, _, _ = strings.Cut(description, "\nflags:\n")
		lines := strings.Split(description, "\n")
		for i := 0; i+1 < len(lines); i++ {
			line, next := lines[i], lines[i+1]
			if !prose(line) || !prose(next) {
				continue
			}
			word, _, _ := strings.Cut(next, " ")
			if utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= fill {
				t.Errorf("%s --help: %q stops short of the next line's %q", c.Name, line, word)
			}
		}
	}
}
