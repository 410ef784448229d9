package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeMaxLines bounds README.md: the README is for users; longer
// material belongs in docs/.
const readmeMaxLines = 350

func TestReadmeIsShort(t *testing.T) {
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(text, []byte("\n")); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move detail to docs/", n, readmeMaxLines)
	}
}

// TestReadmeDefinesTermsBeforeUse: each abbreviation and symbol the
// README leans on is spelled out where it first appears, so that a
// reader new to the paper meets no bare LL, ECE or λθ.
func TestReadmeDefinesTermsBeforeUse(t *testing.T) {
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(text)), " ") // a definition may wrap
	for _, tc := range []struct{ term, definition string }{
		{`\bcontext\b`, "(the *context*)"},
		{`δ`, "δ = G − F"},
		{`\bCNP\b`, "conditional, latent and attentive neural processes"},
		{`\bKOH-GP\b`, "Kennedy–O'Hagan GP or KOH-GP"},
		{`\bLL\b`, "log-likelihood (LL)"},
		{`\bECE\b`, "expected calibration error (ECE)"},
		{`λθ`, "λθ, λδ (the θ and δ loss weights)"},
		{`\bSBC\b`, "SBC: simulation-based calibration"},
	} {
		defined := strings.Index(readme, tc.definition)
		used := regexp.MustCompile(tc.term).FindStringIndex(readme)
		switch {
		case defined < 0:
			t.Errorf("README.md does not define %s as %q", tc.term, tc.definition)
		case used != nil && used[0] < defined:
			t.Errorf("README.md uses %s before its definition %q", tc.term, tc.definition)
		}
	}
}

// TestDocsNameTheMachineTheyMeasuredOn: a timing names the kind of
// machine it was measured on, never "this machine", which to a reader
// is their own.
func TestDocsNameTheMachineTheyMeasuredOn(t *testing.T) {
	thisMachine := regexp.MustCompile(`(?i)\bthis (\d+-core )?machine\b`)
	checkDocs(t, func(file, text string) []string {
		var problems []string
		for _, m := range thisMachine.FindAllString(strings.Join(strings.Fields(text), " "), -1) {
			problems = append(problems, fmt.Sprintf("%s says %q: name the machine (a 2-core machine)", file, m))
		}
		return problems
	})
}

func TestDocLinksResolve(t *testing.T) {
	checkDocs(t, brokenLinks)
}

// checkDocs reports every problem check finds in README.md and
// docs/*.md.
func checkDocs(t *testing.T, check func(file, text string) []string) {
	t.Helper()
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range append([]string{"README.md"}, files...) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range check(file, string(text)) {
			t.Error(problem)
		}
	}
}

func TestBenchmarksCopyMatchesSpecification(t *testing.T) {
	spec, err := os.ReadFile(filepath.Join("..", "shared", "BENCHMARKS.md"))
	if os.IsNotExist(err) {
		t.Skip("../shared/BENCHMARKS.md is not beside this checkout")
	}
	if err != nil {
		t.Fatal(err)
	}
	copied, err := os.ReadFile(filepath.Join("docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(spec, withoutReaderNote(copied)) {
		t.Error("docs/benchmarks.md differs from ../shared/BENCHMARKS.md: copy it again (docs/regen.sh does)")
	}
}

// withoutReaderNote is docs/benchmarks.md less the note regen.sh puts
// under its title: the blank line and "> " lines after the first line.
func withoutReaderNote(page []byte) []byte {
	title, rest, ok := bytes.Cut(page, []byte("\n"))
	if !ok || !bytes.HasPrefix(rest, []byte("\n> ")) {
		return page
	}
	rest = rest[1:]
	for bytes.HasPrefix(rest, []byte("> ")) {
		_, rest, _ = bytes.Cut(rest, []byte("\n"))
	}
	return slices.Concat(title, []byte("\n"), rest)
}

func TestBrokenLinksFindsMissingFilesAndAnchors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# Quick tour\n## The `eval` command\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "[ok](a.md) [ok](a.md#quick-tour) [ok](a.md#the-eval-command) [ok](#local) [web](https://x.org/none)\n" +
		"## Local\n[bad](missing.md) [bad](a.md#nowhere)\n" +
		"```\n[in code](ignored.md)\n```\n"
	got := brokenLinks(filepath.Join(dir, "b.md"), text)
	if len(got) != 2 || !strings.Contains(got[0], "missing.md") || !strings.Contains(got[1], "#nowhere") {
		t.Errorf("brokenLinks = %q, want the missing file and the missing anchor", got)
	}
}

// TestRegenMarkersAreWellFormed checks what docs/regen.sh relies on: a
// block marker is followed by a fenced block, and a table marker by its
// end marker, so that a run rewrites exactly the captured output.
func TestRegenMarkersAreWellFormed(t *testing.T) {
	checkDocs(t, markerProblems)
}

// TestTablesShowTheirCommand: a regen-md table ends with its command as
// a reader types it, visible on the rendered page (the marker is an HTML
// comment, which renderers hide); a regen-md-quiet table's prose gives it.
func TestTablesShowTheirCommand(t *testing.T) {
	checkDocs(t, tableCommandProblems)
}

// tableCommandProblems lists the regen-md tables of a Markdown file
// whose last two lines are not a blank and "`$ CMD`".
func tableCommandProblems(file, text string) []string {
	var problems []string
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		m := markerPattern.FindStringSubmatch(line)
		if m == nil || m[1] != "-md" {
			continue
		}
		j := i + 1
		for j < len(lines) && lines[j] != "<!-- /regen -->" {
			j++
		}
		want := "`$ " + shownCommand(m[2]) + "`"
		if j < i+3 || j == len(lines) || lines[j-1] != want || lines[j-2] != "" {
			problems = append(problems, fmt.Sprintf("%s:%d: the table does not end with a blank line and %s (docs/regen.sh writes it)", file, i+1, want))
		}
	}
	return problems
}

// shownCommand is a marker's command as docs/regen.sh shows it: apic as
// `go run .`, evaltable as `go run docs/evaltable.go`, wherever bash
// reads them as a command (regen.sh's shown has the same pattern).
func shownCommand(cmd string) string {
	const commandStart = `(^|[|;&(] *|[|;&( ](do|then|else) +)`
	for _, tool := range [][2]string{{"apic ", "go run . "}, {"evaltable ", "go run docs/evaltable.go "}} {
		cmd = regexp.MustCompile(commandStart+tool[0]).ReplaceAllString(cmd, "${1}"+tool[1])
	}
	return cmd
}

// shownCases are commands and their shown form, for shownCommand and
// regen.sh's shown alike.
var shownCases = map[string]string{
	"apic eval | evaltable -paper":               "go run . eval | go run docs/evaltable.go -paper",
	"for b in x; do apic eval; apic eval; done":  "for b in x; do go run . eval; go run . eval; done",
	"if true; then apic a; else apic b; fi":      "if true; then go run . a; else go run . b; fi",
	"(apic a) && apic b || evaltable -x":         "(go run . a) && go run . b || go run docs/evaltable.go -x",
	"echo apic eval; todo apic x; jq -f apic.jq": "echo apic eval; todo apic x; jq -f apic.jq",
}

func TestShownCommandRewritesEveryCommandPosition(t *testing.T) {
	for cmd, want := range shownCases {
		if got := shownCommand(cmd); got != want {
			t.Errorf("shownCommand(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestRegenShownMatchesShownCommand runs regen.sh's own shown function,
// so that the test's copy of its pattern cannot drift from it.
func TestRegenShownMatchesShownCommand(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script := `eval "$(sed -n '/^shown() {/,/^}/p' docs/regen.sh)"; shown "$1"`
	for cmd, want := range shownCases {
		out, err := exec.Command("bash", "-c", script, "shown", cmd).Output()
		if err != nil {
			t.Fatalf("regen.sh's shown on %q: %v", cmd, err)
		}
		if got := strings.TrimSuffix(string(out), "\n"); got != want {
			t.Errorf("regen.sh's shown(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestMarkerProblemsFindsUnendedBlocks(t *testing.T) {
	good := "<!-- regen: apic help -->\n```\nout\n```\n<!-- regen-md: x -->\n| a |\n<!-- /regen -->\n<!-- regen-run: y -->\n"
	if got := markerProblems("good.md", good); len(got) != 0 {
		t.Errorf("markerProblems(good) = %q, want none", got)
	}
	for _, bad := range []string{
		"<!-- regen: apic help -->\ntext\n",
		"<!-- regen-quiet: x -->\n```\nout\n",
		"<!-- regen-md: x -->\n| a |\n",
		"<!-- regen: x --> trailing\n",
	} {
		if got := markerProblems("bad.md", bad); len(got) != 1 {
			t.Errorf("markerProblems(%q) = %q, want one problem", bad, got)
		}
	}
}

var markerPattern = regexp.MustCompile(`^<!-- regen(-quiet|-md|-md-quiet|-run)?: (.*) -->$`)

// markerProblems lists the regen markers of a Markdown file that
// docs/regen.sh would refuse or misread.
func markerProblems(file string, text string) []string {
	var problems []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !strings.HasPrefix(line, "<!-- regen") || line == "<!-- /regen -->" {
			continue
		}
		where := fmt.Sprintf("%s:%d", file, i+1)
		m := markerPattern.FindStringSubmatch(line)
		if m == nil {
			problems = append(problems, where+": malformed regen marker")
			continue
		}
		end := ""
		switch m[1] {
		case "-run":
			continue
		case "-md", "-md-quiet":
			end = "<!-- /regen -->"
		default:
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
				problems = append(problems, where+": no fenced block right below the marker")
				continue
			}
			i++
			end = "```"
		}
		j := i + 1
		for j < len(lines) && lines[j] != end {
			j++
		}
		if j == len(lines) {
			problems = append(problems, where+": the marker's block never ends")
		}
		i = j
	}
	return problems
}

var (
	linkPattern    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingPattern = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
)

// brokenLinks lists the relative links of a Markdown file (outside code
// blocks) whose file is missing, or whose #anchor names no heading of
// the file it points at.
func brokenLinks(file, text string) []string {
	var problems []string
	for n, line := range proseLines(text) {
		for _, m := range linkPattern.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			resolved := file
			if path != "" {
				resolved = filepath.Join(filepath.Dir(file), path)
			}
			where := fmt.Sprintf("%s:%d: link %q", file, n+1, target)
			linked, err := os.ReadFile(resolved)
			if path == "" {
				linked, err = []byte(text), nil
			}
			if err != nil {
				if _, statErr := os.Stat(resolved); statErr == nil {
					continue // a directory
				}
				problems = append(problems, where+": no such file")
				continue
			}
			if anchor != "" && !hasAnchor(string(linked), anchor) {
				problems = append(problems, where+": no heading with that anchor")
			}
		}
	}
	return problems
}

// proseLines returns the lines of a Markdown text with those inside
// fenced code blocks blanked, keeping the line numbers.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	inCode := false
	for i, line := range lines {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			lines[i] = ""
		} else if inCode {
			lines[i] = ""
		}
	}
	return lines
}

// hasAnchor reports whether a heading of text has GitHub's anchor: lower
// case, punctuation dropped, spaces as hyphens.
func hasAnchor(text, anchor string) bool {
	for _, m := range headingPattern.FindAllStringSubmatch(strings.Join(proseLines(text), "\n"), -1) {
		if headingAnchor(m[1]) == anchor {
			return true
		}
	}
	return false
}

func headingAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestPeerTableTakesBestsAndRatios runs docs/peertable.jq, the table of
// docs/peer-rounds.sh, on rounds with known answers: PyTorch's figure
// per round is the better of its thread counts, ranges span the rounds
// and the ratios set the bests side by side (latency: PyTorch's over
// apic's).
func TestPeerTableTakesBestsAndRatios(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed (docs/peer-rounds.sh needs it)")
	}
	rounds := `{"side":"apic","what":"train","steps_per_s":10}
{"side":"torch","round":1,"what":"train","steps_per_s":5}
{"side":"torch","round":1,"what":"train","steps_per_s":8}
{"side":"apic","what":"train","steps_per_s":20}
{"side":"torch","round":2,"what":"train","steps_per_s":9}
{"side":"torch","round":2,"what":"train","steps_per_s":4}
{"side":"apic","what":"infer","latency_s":0.002,"batched":300}
{"side":"torch","round":1,"what":"infer","latency_s":0.006,"batched":100}
{"side":"torch","round":1,"what":"infer","latency_s":0.004,"batched":150}
{"side":"apic","what":"infer","latency_s":0.001,"batched":450}
{"side":"torch","round":2,"what":"infer","latency_s":0.005,"batched":120}
{"side":"torch","round":2,"what":"infer","latency_s":0.007,"batched":90}
`
	cmd := exec.Command("jq", "-s", "-r", "--arg", "sys", "lv", "-f", "docs/peertable.jq")
	cmd.Stdin = strings.NewReader(rounds)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("jq: %v", err)
	}
	want := []string{
		"| lv LNP, closest sizes | apic | PyTorch + OpenBLAS (better of 1, 2 threads) | apic ÷ PyTorch (best against best) |",
		"|---|---|---|---|",
		"| training steps/s (best; range) | 20; 10–20 | 9; 8–9 | 2.22 |",
		"| one-pass latency, 32 samples | 1–2 ms | 4–5 ms | 4 (speed) |",
		"| batched realizations/s, 50 | 300–450 | 120–150 | 3 |",
	}
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); !slices.Equal(got, want) {
		t.Errorf("peertable.jq printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
