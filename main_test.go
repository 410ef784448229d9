package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"apic/core/cli"
	"apic/tui"
)

// TestFlagsWithoutCommandOpenTheExplorer: "apic --system lv" is the
// explorer's command line, as "apic" alone is; off a terminal the
// explorer then refuses with its own message, not "unknown command".
func TestFlagsWithoutCommandOpenTheExplorer(t *testing.T) {
	cli.RegisterExternal(tui.Command())
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
