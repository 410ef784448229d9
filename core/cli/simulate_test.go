package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"apic/sims"
)

// runCLI runs the command line and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// simulateJSON runs simulate --json and decodes its object.
func simulateJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"simulate", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("simulate %v: exit %d, stderr %q", args, code, errOut)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("simulate %v: output is not JSON: %v\n%s", args, err, out)
	}
	return obj
}

// shapeOf is the array shape of a decoded JSON value (rectangular arrays).
func shapeOf(v any) []int {
	a, ok := v.([]any)
	if !ok {
		return nil
	}
	if len(a) == 0 {
		return []int{0}
	}
	return append([]int{len(a)}, shapeOf(a[0])...)
}

// flatten lists a decoded JSON array's numbers in row-major order.
func flatten(t *testing.T, v any) []float64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return []float64{x}
	case []any:
		var out []float64
		for _, e := range x {
			out = append(out, flatten(t, e)...)
		}
		return out
	}
	t.Fatalf("unexpected JSON value %T", v)
	return nil
}

func TestSimulateJSONFakeShapes(t *testing.T) {
	for _, tc := range []struct {
		system string
		shape  []int
		hasX   bool
		u0Len  int
	}{
		{"testsys", []int{5, 2}, false, 2},
		{"testfield", []int{3, 4}, true, 4},
		{"testplain", []int{6}, false, 0},
	} {
		t.Run(tc.system, func(t *testing.T) {
			obj := simulateJSON(t, "--system", tc.system, "--seed", "3")
			if obj["system"] != tc.system {
				t.Errorf("system = %v", obj["system"])
			}
			theta, ok := obj["theta"].(map[string]any)
			if !ok || len(theta) != 2 || theta["p"] == nil || theta["q"] == nil {
				t.Errorf("theta = %v, want keys p, q", obj["theta"])
			}
			for _, key := range []string{"nominal", "true", "discrepancy"} {
				if got := shapeOf(obj[key]); !reflect.DeepEqual(got, tc.shape) {
					t.Errorf("%s shape %v, want %v", key, got, tc.shape)
				}
			}
			if got := shapeOf(obj["t"]); got[0] != tc.shape[0] {
				t.Errorf("t has %v values, want %d", got, tc.shape[0])
			}
			if _, has := obj["x"]; has != tc.hasX {
				t.Errorf("x present = %v, want %v", has, tc.hasX)
			}
			if tc.hasX && shapeOf(obj["x"])[0] != tc.shape[1] {
				t.Errorf("x shape %v, want [%d]", shapeOf(obj["x"]), tc.shape[1])
			}
			u0, has := obj["u0"]
			if has != (tc.u0Len > 0) || has && shapeOf(u0)[0] != tc.u0Len {
				t.Errorf("u0 = %v, want %d values", u0, tc.u0Len)
			}
			// The discrepancy is true − nominal, element by element.
			nom, tr, d := flatten(t, obj["nominal"]), flatten(t, obj["true"]), flatten(t, obj["discrepancy"])
			for i := range d {
				if d[i] != tr[i]-nom[i] {
					t.Fatalf("discrepancy[%d] = %v, want %v", i, d[i], tr[i]-nom[i])
				}
			}
		})
	}
}

func TestSimulateFakeMatchesDraw(t *testing.T) {
	sys, _ := sims.Lookup("testfield")
	r := DrawRealization(sys, 11)
	obj := simulateJSON(t, "--system", "testfield", "--seed", "11")
	if got := flatten(t, obj["nominal"]); !reflect.DeepEqual(got, r.Nominal) {
		t.Errorf("nominal %v, want %v", got, r.Nominal)
	}
	if got := flatten(t, obj["u0"]); !reflect.DeepEqual(got, r.Side) {
		t.Errorf("u0 %v, want %v", got, r.Side)
	}
	if got := flatten(t, obj["x"]); !reflect.DeepEqual(got, []float64{0, 0.25, 0.5, 0.75}) {
		t.Errorf("x = %v", got)
	}
	if got := flatten(t, obj["t"]); !reflect.DeepEqual(got, []float64{0, 0.5, 1}) {
		t.Errorf("t = %v", got)
	}
}

func TestSimulateSameSeedSameOutput(t *testing.T) {
	for _, args := range [][]string{
		{"simulate", "--system", "testsys", "--seed", "5"},
		{"simulate", "--system", "testsys", "--seed", "5", "--json"},
		{"simulate", "--system", "testfield", "--seed", "5"},
	} {
		_, a, _ := runCLI(t, args...)
		_, b, _ := runCLI(t, args...)
		if a != b || a == "" {
			t.Errorf("%v: two runs differ or are empty", args)
		}
		other := append(append([]string(nil), args[:4]...), "6")
		other = append(other, args[5:]...)
		if _, c, _ := runCLI(t, other...); c == a {
			t.Errorf("%v: seeds 5 and 6 give the same output", args)
		}
	}
}

func TestSimulateThetaOverride(t *testing.T) {
	sys, _ := sims.Lookup("testsys")
	obj := simulateJSON(t, "--system", "testsys", "--theta", "q=-0.5, p=0.25", "--u0", "1,2")
	theta, side := []float64{0.25, -0.5}, []float64{1, 2}
	if got := flatten(t, obj["true"]); !reflect.DeepEqual(got, sys.True(theta, side)) {
		t.Errorf("true %v, want %v", got, sys.True(theta, side))
	}
	if got := obj["theta"].(map[string]any); got["p"] != 0.25 || got["q"] != -0.5 {
		t.Errorf("theta = %v", got)
	}
	if _, has := obj["seed"]; has {
		t.Errorf("seed reported although θ and u0 were given")
	}
}

func TestSimulateThetaWithoutU0DrawsSide(t *testing.T) {
	sys, _ := sims.Lookup("testsys")
	code, out, errOut := runCLI(t, "simulate", "--json", "--system", "testsys", "--theta", "p=0.5,q=0", "--seed", "9")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "u0 not given") || !strings.Contains(errOut, "--seed 9") {
		t.Errorf("stderr %q does not say u0 was drawn from the seed", errOut)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatal(err)
	}
	if got, want := flatten(t, obj["u0"]), DrawRealization(sys, 9).Side; !reflect.DeepEqual(got, want) {
		t.Errorf("u0 %v, want the seed's draw %v", got, want)
	}
}

func TestSimulateOutsidePriorWarns(t *testing.T) {
	code, _, errOut := runCLI(t, "simulate", "--system", "testplain", "--theta", "p=9,q=0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "warning: p=9 is outside the prior [0, 1]"; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
}

func TestSimulateU0File(t *testing.T) {
	sys, _ := sims.Lookup("testfield")
	path := filepath.Join(t.TempDir(), "u0.csv")
	if err := os.WriteFile(path, []byte("x,u\n0,0.1\n0.25,0.2\n0.5,0.3\n0.75,0.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := simulateJSON(t, "--system", "testfield", "--theta", "p=1,q=1", "--u0-file", path)
	side := []float64{0.1, 0.2, 0.3, 0.4}
	if got := flatten(t, obj["nominal"]); !reflect.DeepEqual(got, sys.Nominal([]float64{1, 1}, side)) {
		t.Errorf("nominal %v, want %v", got, sys.Nominal([]float64{1, 1}, side))
	}
	// '-' is standard input.
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader("x,u\n0,0.1\n0.25,0.2\n0.5,0.3\n0.75,0.4\n")
	obj = simulateJSON(t, "--system", "testfield", "--theta", "p=1,q=1", "--u0-file", "-")
	if got := flatten(t, obj["nominal"]); !reflect.DeepEqual(got, sys.Nominal([]float64{1, 1}, side)) {
		t.Errorf("--u0-file -: nominal %v, want %v", got, sys.Nominal([]float64{1, 1}, side))
	}
}

func TestSimulateUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badHeader := file("header.csv", "t,u\n0,1\n")
	badNumber := file("number.csv", "x,u\n0,1\n0.25,abc\n0.5,1\n0.75,1\n")
	shortFile := file("short.csv", "x,u\n0,1\n0.25,1\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "--system is required"},
		{[]string{"--system", "nope"}, `unknown system "nope"`},
		{[]string{"--system", "testsys", "--bogus"}, "flag provided but not defined: --bogus"},
		{[]string{"--system", "testsys", "--seed", "-1"}, `--seed must be a whole number ≥ 0, got "-1"`},
		{[]string{"--system", "testsys", "extra"}, `unexpected argument "extra"`},
		{[]string{"--system", "testsys", "--theta", "p=1,zeta=2"}, `unknown parameter "zeta"`},
		{[]string{"--system", "testsys", "--theta", "p=1"}, "missing parameter q (give all of p, q)"},
		{[]string{"--system", "lv", "--theta", "alpha=1"}, "missing parameters beta, eta, gamma (give all of alpha, beta, eta, gamma)"},
		{[]string{"--system", "testsys", "--theta", ""}, `--theta is given as "", which would read as the flag left out`},
		{[]string{"--system", "testsys", "--theta", " "}, "--theta is empty: give every parameter by name (p=…,q=…)"},
		{[]string{"--system", "testsys", "--theta", "p=1,p=2,q=0"}, "parameter p given twice"},
		{[]string{"--system", "testsys", "--theta", "p=abc,q=0"}, `"abc" is not a number`},
		{[]string{"--system", "testsys", "--theta", "p=NaN,q=0"}, `"NaN" is not a finite number`},
		{[]string{"--system", "testsys", "--theta", "p=Inf,q=0"}, `"Inf" is not a finite number`},
		{[]string{"--system", "testsys", "--theta", "p=1e999,q=0"}, `"1e999" is not a finite number`},
		{[]string{"--system", "testsys", "--theta", "p1,q=0"}, `"p1" is not name=value`},
		{[]string{"--system", "testsys", "--theta", "p=1,q=0", "--u0", "1,2,3"}, "--u0: got 3 values, want 2 comma-separated values (a0, b0)"},
		{[]string{"--system", "testsys", "--theta", "p=1,q=0", "--u0", "1,NaN"}, "value 2 (b0)"},
		{[]string{"--system", "lv", "--theta", "alpha=1,beta=1,eta=1,gamma=1", "--u0", "0,2"}, "--u0: x0 = 0 must be > 0"},
		{[]string{"--system", "advdiff", "--theta", "v=-2,kappa=0.01"}, "--theta: v=-2 must be > 0 (its prior is [0.3, 2])"},
		// Simulated as sin(1e300 t), with a warning alone.
		{[]string{"--system", "spring", "--theta", "omega=1e300"}, "--theta: omega=1e300 is beyond the sane range |omega| ≤ 8000 (1000 times the largest magnitude of its prior [3, 8])"},
		{[]string{"--system", "advdiff", "--theta", "v=1,kappa=80.5"}, "--theta: kappa=80.5 is beyond the sane range |kappa| ≤ 80"},
		{[]string{"--system", "testsys", "--u0", "1,2"}, "--u0 and --u0-file need --theta"},
		{[]string{"--system", "testsys", "--theta", "p=1,q=0", "--u0-file", badHeader}, "give it with --u0"},
		{[]string{"--system", "testplain", "--theta", "p=1,q=0", "--u0", "1"}, "testplain has no side information"},
		{[]string{"--system", "testfield", "--theta", "p=1,q=0", "--u0", "1", "--u0-file", badHeader}, "not both"},
		{[]string{"--system", "testfield", "--theta", "p=1,q=0", "--u0-file", badHeader}, badHeader + `:1: header is "t,u", want "x,u"`},
		{[]string{"--system", "testfield", "--theta", "p=1,q=0", "--u0-file", badNumber}, badNumber + `:3: u = "abc" is not a number`},
		{[]string{"--system", "testfield", "--theta", "p=1,q=0", "--u0-file", shortFile}, shortFile + ": 2 data rows, want 4"},
		{[]string{"--system", "testfield", "--theta", "p=1,q=0", "--u0-file", filepath.Join(dir, "missing.csv")}, "missing.csv"},
	} {
		code, out, errOut := runCLI(t, append([]string{"simulate"}, tc.args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", tc.args, code, errOut)
		}
		if !strings.HasPrefix(errOut, "apic simulate: ") || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: stderr %q, want \"apic simulate: ...%s...\"", tc.args, errOut, tc.want)
		}
		if out != "" {
			t.Errorf("%v: wrote %q to stdout on a usage error", tc.args, out)
		}
	}
}

func TestSimulateRuntimeFailure(t *testing.T) {
	// testplain's truth exp(p)·t overflows: not a usage error, exit 1.
	code, out, errOut := runCLI(t, "simulate", "--system", "testplain", "--theta", "p=1000,q=0")
	if code != 1 || !strings.Contains(errOut, "non-finite") || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 naming non-finite values", code, out, errOut)
	}
}

func TestSimulateText(t *testing.T) {
	for _, tc := range []struct {
		system string
		want   []string
	}{
		{"testsys", []string{"Fake testsys (testsys), seed 2", "p = ", "u0: a0 = ", "a: true vs nominal", "b: true vs nominal", "discrepancy = true − nominal", "• b"}},
		{"testfield", []string{"u0: 4 values in", "true vs nominal at t = 0", "at t = 0.5", "at t = 1", "shade ∝ |value|"}},
		{"testplain", []string{"(no side information)", "true vs nominal"}},
	} {
		code, out, errOut := runCLI(t, "simulate", "--system", tc.system, "--seed", "2")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.system, code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.system, w, out)
			}
		}
		if strings.Contains(out, "\x1b[") {
			t.Errorf("%s: ANSI escapes in output to a non-terminal", tc.system)
		}
	}
}

// The real benchmark systems: JSON shapes follow BENCHMARKS.md and the
// values are exactly the system's Nominal and True for the seed's draw.
func TestSimulateRealSystems(t *testing.T) {
	for _, tc := range []struct {
		system string
		shape  []int
		hasX   bool
		u0Len  int
	}{
		{"spring", []int{100}, false, 0},
		{"lv", []int{100, 2}, false, 2},
		{"advdiff", []int{64, 64}, true, 64},
	} {
		t.Run(tc.system, func(t *testing.T) {
			sys, err := sims.Lookup(tc.system)
			if err != nil {
				t.Skip("system not registered yet")
			}
			obj := simulateJSON(t, "--system", tc.system, "--seed", "7")
			r := DrawRealization(sys, 7)
			for _, key := range []string{"nominal", "true", "discrepancy"} {
				if got := shapeOf(obj[key]); !reflect.DeepEqual(got, tc.shape) {
					t.Errorf("%s shape %v, want %v", key, got, tc.shape)
				}
			}
			if got := flatten(t, obj["nominal"]); !reflect.DeepEqual(got, r.Nominal) {
				t.Errorf("nominal differs from sys.Nominal of the seed's draw")
			}
			if got := flatten(t, obj["true"]); !reflect.DeepEqual(got, r.True) {
				t.Errorf("true differs from sys.True of the seed's draw")
			}
			theta := obj["theta"].(map[string]any)
			for i, p := range sys.Params() {
				if theta[p.Name] != r.Theta[i] {
					t.Errorf("theta[%s] = %v, want %v", p.Name, theta[p.Name], r.Theta[i])
				}
			}
			if _, has := obj["x"]; has != tc.hasX {
				t.Errorf("x present = %v, want %v", has, tc.hasX)
			}
			if tc.u0Len > 0 {
				if got := flatten(t, obj["u0"]); !reflect.DeepEqual(got, r.Side) || len(got) != tc.u0Len {
					t.Errorf("u0 differs from the seed's draw")
				}
			} else if _, has := obj["u0"]; has {
				t.Errorf("u0 present for a system without side information")
			}
			if code, out, errOut := runCLI(t, "simulate", "--system", tc.system); code != 0 || !strings.Contains(out, sys.Title()) {
				t.Errorf("text output: exit %d, stderr %q", code, errOut)
			}
		})
	}
}

func TestSimulateRealThetaOverride(t *testing.T) {
	spring, err1 := sims.Lookup("spring")
	lv, err2 := sims.Lookup("lv")
	advdiff, err3 := sims.Lookup("advdiff")
	if err1 != nil || err2 != nil || err3 != nil {
		t.Skip("benchmark systems not registered yet")
	}

	obj := simulateJSON(t, "--system", "spring", "--theta", "omega=5")
	if got := flatten(t, obj["nominal"]); !reflect.DeepEqual(got, spring.Nominal([]float64{5}, nil)) {
		t.Errorf("spring nominal differs from sys.Nominal(omega=5)")
	}

	obj = simulateJSON(t, "--system", "lv", "--theta", "alpha=1,beta=1,eta=1,gamma=1", "--u0", "1,1.2")
	theta, u0 := []float64{1, 1, 1, 1}, []float64{1, 1.2}
	if got := flatten(t, obj["true"]); !reflect.DeepEqual(got, lv.True(theta, u0)) {
		t.Errorf("lv true differs from sys.True")
	}

	// An advdiff initial field written to CSV at the grid positions.
	var csv strings.Builder
	csv.WriteString("x,u\n")
	u0 = make([]float64, 64)
	for i := range u0 {
		x := float64(i) / 64
		u0[i] = 0.5 + 0.3*float64(i%7)/7
		fmt.Fprintf(&csv, "%v,%v\n", x, u0[i])
	}
	path := filepath.Join(t.TempDir(), "u0.csv")
	if err := os.WriteFile(path, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	obj = simulateJSON(t, "--system", "advdiff", "--theta", "v=1,kappa=0.01", "--u0-file", path)
	if got := flatten(t, obj["true"]); !reflect.DeepEqual(got, advdiff.True([]float64{1, 0.01}, u0)) {
		t.Errorf("advdiff true differs from sys.True")
	}

	// A file whose x column is off the grid names the line.
	bad := strings.Replace(csv.String(), "\n0.015625,", "\n0.02,", 1)
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "simulate", "--system", "advdiff", "--theta", "v=1,kappa=0.01", "--u0-file", path)
	if code != 2 || !strings.Contains(errOut, path+":3: x = 0.02") {
		t.Errorf("off-grid x: exit %d, stderr %q", code, errOut)
	}
}

// TestVersion: --version and the version command print the build's
// version line; neither is taken for the explorer's flags.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version", "-version"} {
		code, out, errOut := runCLI(t, arg)
		if code != 0 || !strings.HasPrefix(out, "apic ") || !strings.Contains(out, "go1.") || errOut != "" {
			t.Errorf("apic %s: exit %d, stdout %q, stderr %q", arg, code, out, errOut)
		}
	}
	if code, out, _ := runCLI(t, "help", "version"); code != 0 || !strings.Contains(out, "usage: apic version") {
		t.Errorf("apic help version: exit %d, stdout %q", code, out)
	}
}

// TestSimulateGridSaysPeriodic: advdiff's x wraps around and its grid
// stops one step short of 1, so its range is half-open and says so;
// spring's t is a closed interval.
func TestSimulateGridSaysPeriodic(t *testing.T) {
	for sys, want := range map[string]string{"advdiff": "x ∈ [0, 1) periodic", "spring": "t ∈ [0, 4];"} {
		code, stdout, stderr := runCLI(t, "simulate", "--system", sys)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("simulate --system %s: exit %d, output lacks %q:\n%s%s", sys, code, want, stdout, stderr)
		}
	}
}

// TestSimulateShowsFormulas: simulate states the system's F and G (and
// δ), in the text under the title and in --json as "formulas".
func TestSimulateShowsFormulas(t *testing.T) {
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "simulate", "--system", "spring", "--seed", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, line := range sys.Formulas() {
		if !strings.Contains(out, "\n  "+line+"\n") {
			t.Errorf("text output lacks the formula line %q:\n%s", line, out)
		}
	}
	obj := simulateJSON(t, "--system", "spring", "--seed", "1")
	got, _ := obj["formulas"].([]any)
	if len(got) != len(sys.Formulas()) || got[1] != "G(t) = sin(ωt)·e^(−0.15ωt)  (damped)" {
		t.Errorf("JSON formulas = %v, want %q", obj["formulas"], sys.Formulas())
	}
}

// TestSimulateNoDiscrepancy makes the true process the nominal one, in
// the printed realization and in the observations --csv writes, and
// says so.
func TestSimulateNoDiscrepancy(t *testing.T) {
	code, out, errOut := runCLI(t, "simulate", "--system", "lv", "--seed", "7", "--no-discrepancy", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Nominal       [][]float64 `json:"nominal"`
		True          [][]float64 `json:"true"`
		Discrepancy   [][]float64 `json:"discrepancy"`
		Formulas      []string    `json:"formulas"`
		NoDiscrepancy bool        `json:"no_discrepancy"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.True) == 0 || !reflect.DeepEqual(r.True, r.Nominal) {
		t.Errorf("true process differs from the nominal one")
	}
	for _, ch := range r.Discrepancy {
		for _, d := range ch {
			if d != 0 {
				t.Fatalf("discrepancy %v, want 0", d)
			}
		}
	}
	if !strings.Contains(errOut, "--no-discrepancy: G = F") {
		t.Errorf("no note that G = F: %q", errOut)
	}
	if !r.NoDiscrepancy || len(r.Formulas) != 3 || r.Formulas[1] != "G = F  (--no-discrepancy)" || r.Formulas[2] != "δ = 0" {
		t.Errorf("JSON does not say G = F: no_discrepancy %v, formulas %q", r.NoDiscrepancy, r.Formulas)
	}
	_, text, _ := runCLI(t, "simulate", "--system", "lv", "--seed", "7", "--no-discrepancy")
	if !strings.Contains(text, "  G = F  (--no-discrepancy)\n") || strings.Contains(text, "d(t)") {
		t.Errorf("text formulas do not say G = F:\n%s", text)
	}
	csv := filepath.Join(t.TempDir(), "lv.csv")
	if code, _, errOut := runCLI(t, "simulate", "--system", "lv", "--seed", "7", "--no-discrepancy", "--csv", csv); code != 0 {
		t.Fatalf("--csv: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), simulateCSVMark+" (lv, --no-discrepancy: G = F): observations") {
		t.Errorf("CSV's first line does not say G = F: %q", strings.SplitN(string(data), "\n", 2)[0])
	}
	_, with, _ := runCLI(t, "simulate", "--system", "lv", "--seed", "7", "--json")
	if with == out {
		t.Error("--no-discrepancy changed nothing")
	}
}
