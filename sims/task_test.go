package sims

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDrawReproducible(t *testing.T) {
	for _, name := range []string{"spring", "lv"} {
		sys, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		a, b := rand.New(rand.NewPCG(30, 31)), rand.New(rand.NewPCG(30, 31))
		for range 5 {
			ra, rb := Draw(sys, a), Draw(sys, b)
			if !slices.Equal(ra.Theta, rb.Theta) || !slices.Equal(ra.Side, rb.Side) ||
				!slices.Equal(ra.Nominal, rb.Nominal) || !slices.Equal(ra.True, rb.True) {
				t.Fatalf("%s: same seed, different realizations", name)
			}
			sa, sb := NewSplit(sys, a), NewSplit(sys, b)
			if !slices.Equal(sa.Perm, sb.Perm) || !slices.Equal(sa.Eps, sb.Eps) {
				t.Fatalf("%s: same seed, different splits", name)
			}
		}
		c := rand.New(rand.NewPCG(32, 31))
		if slices.Equal(Draw(sys, c).Theta, Draw(sys, rand.New(rand.NewPCG(30, 31))).Theta) {
			t.Errorf("%s: different seeds, same θ", name)
		}
	}
}

// rejecting wraps a system and rejects its first n true trajectories.
type rejecting struct {
	System
	n int
}

func (r *rejecting) Valid(v []float64) bool {
	if r.n > 0 {
		r.n--
		return false
	}
	return r.System.Valid(v)
}

func TestDrawRedrawsInvalid(t *testing.T) {
	lv, err := Lookup("lv")
	if err != nil {
		t.Fatal(err)
	}
	got := Draw(&rejecting{System: lv, n: 2}, rand.New(rand.NewPCG(33, 34)))
	rng := rand.New(rand.NewPCG(33, 34))
	var th, side []float64
	for range 3 {
		th, side = lv.SampleTheta(rng), lv.SampleSide(rng)
	}
	if !slices.Equal(got.Theta, th) || !slices.Equal(got.Side, side) {
		t.Errorf("got θ %v u0 %v, want the third draw θ %v u0 %v", got.Theta, got.Side, th, side)
	}
	if !slices.Equal(got.True, lv.True(th, side)) || !slices.Equal(got.Nominal, lv.Nominal(th, side)) {
		t.Error("realization's processes do not match its θ")
	}
}

func TestSplitTask(t *testing.T) {
	lv, err := Lookup("lv")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(35, 36))
	r := Draw(lv, rng)
	sp := NewSplit(lv, rng)
	const noise = 0.05
	small, err := sp.Task(lv, r, r.True, 10, noise)
	if err != nil {
		t.Fatal(err)
	}
	big, err := sp.Task(lv, r, r.True, 40, noise)
	if err != nil {
		t.Fatal(err)
	}
	if small.Context.Len() != 10 || big.Context.Len() != 40 || len(small.Targets) != 90 || len(big.Targets) != 60 {
		t.Fatalf("sizes: context %d/%d, targets %d/%d", small.Context.Len(), big.Context.Len(), len(small.Targets), len(big.Targets))
	}
	// Growing n keeps the prefix, values and noise included.
	for i := range 10 {
		if small.Context.GridIndex[i] != big.Context.GridIndex[i] ||
			!slices.Equal(small.Context.Values[i], big.Context.Values[i]) ||
			!slices.Equal(small.Context.States[i], big.Context.States[i]) {
			t.Fatalf("context point %d changed when n grew", i)
		}
	}
	// Context and targets partition the grid; values are truth + noise·ε.
	seen := make([]bool, 100)
	for i, p := range small.Context.GridIndex {
		seen[p] = true
		for c := range 2 {
			want := r.True[2*p+c] + noise*sp.Eps[2*p+c]
			if small.Context.Values[i][c] != want || !small.Context.Mask[i][c] {
				t.Fatalf("context %d channel %d: %g, want %g", i, c, small.Context.Values[i][c], want)
			}
		}
	}
	for _, p := range small.Targets {
		if seen[p] {
			t.Fatalf("grid point %d both context and target", p)
		}
		seen[p] = true
	}
	if slices.Contains(seen, false) {
		t.Error("context and targets do not cover the grid")
	}
	for _, n := range []int{0, -1, 101} {
		if _, err := sp.Task(lv, r, r.True, n, 0); err == nil {
			t.Errorf("context size %d accepted", n)
		}
	}
	if _, err := NewTask(lv, r, 100, 0, rng); err != nil {
		t.Errorf("full context: %v", err)
	}
}
