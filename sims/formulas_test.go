package sims

import (
	"strings"
	"testing"
)

// TestFormulasStateFAndG: every system states its nominal simulator F
// and its true process G in one to three lines, F first, then G.
func TestFormulasStateFAndG(t *testing.T) {
	for _, sys := range All() {
		lines := sys.Formulas()
		if len(lines) < 2 || len(lines) > 3 {
			t.Errorf("%s: %d formula lines, want 1–3 with F and G", sys.Name(), len(lines))
			continue
		}
		if !strings.HasPrefix(lines[0], "F") || !strings.HasPrefix(lines[1], "G") {
			t.Errorf("%s: formulas %q do not start with F, then G", sys.Name(), lines)
		}
		for _, l := range lines {
			if strings.TrimSpace(l) != l || l == "" || strings.Contains(l, "\n") {
				t.Errorf("%s: formula line %q is not one trimmed line", sys.Name(), l)
			}
		}
	}
}

// TestSpringFormulasMatchTheLaw: spring's G is the law True computes,
// sin(ωt)·e^(−0.15ωt) (docs/benchmarks.md §1).
func TestSpringFormulasMatchTheLaw(t *testing.T) {
	sys, err := Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(sys.Formulas(), "\n")
	for _, want := range []string{"F(t) = sin(ωt)", "G(t) = sin(ωt)·e^(−0.15ωt)"} {
		if !strings.Contains(text, want) {
			t.Errorf("spring formulas %q lack %q", text, want)
		}
	}
}
