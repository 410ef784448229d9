package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"apic/sims"
)

// A likelihood-aware scale is the grid factor nearest the likelihood's
// scale among those within likelihoodECETol of the least mean ECE: with
// heavy-tailed errors it is wider than the ECE's own and raises the mean
// LL, at most 0.01 of ECE from the least; with Gaussian errors at the
// band's own scale it stays near 1.
func TestLikelihoodAwareScale(t *testing.T) {
	sys, _ := sims.Lookup("spring")
	tasks := testTasks(t, sys, 40, 0, 5)
	mus := func(heavy bool) ([][]float64, [][]float64) {
		rng := rand.New(rand.NewPCG(10, 10))
		mu, sd := make([][]float64, len(tasks)), make([][]float64, len(tasks))
		for i, task := range tasks {
			truth := task.Real.True
			mu[i], sd[i] = make([]float64, len(truth)), make([]float64, len(truth))
			// A few realizations miss by far more than their band: the
			// whole trajectory off, as a wrong θ̂ puts it.
			off := 1.0
			if heavy && i%10 == 0 {
				off = 6
			}
			for j, y := range truth {
				sd[i][j] = 0.05
				mu[i][j] = y + off*0.05*rng.NormFloat64()
			}
		}
		return mu, sd
	}
	for _, heavy := range []bool{true, false} {
		mu, sd := mus(heavy)
		get := func(i int) ([]float64, []float64, []float64) { return mu[i], sd[i], tasks[i].Real.True }
		scales, sums := scaleECESums(tasks, sys, get)
		eceAt := func(s float64) float64 {
			for k, v := range scales {
				if v == s {
					return sums[k] / float64(len(tasks))
				}
			}
			t.Fatalf("scale %v is not on the grid", s)
			return 0
		}
		meanLL := func(s float64) float64 { return meanScaledLL(tasks, sys, get, s) }
		ece, least := bestScale(tasks, sys, get)
		got := likelihoodAwareScale(tasks, sys, get)
		t.Logf("heavy %v: ECE scale %.3f (ECE %.4f, LL %.3f), likelihood-aware %.3f (ECE %.4f, LL %.3f), likelihood %.3f",
			heavy, ece, least, meanLL(ece), got, eceAt(got), meanLL(got), likelihoodScale(tasks, sys, get))
		if eceAt(got) > least+likelihoodECETol+1e-12 {
			t.Errorf("heavy %v: ECE %v at %v, more than %v above the least %v", heavy, eceAt(got), got, likelihoodECETol, least)
		}
		if heavy && !(got > ece && meanLL(got) > meanLL(ece)+0.1) {
			t.Errorf("heavy tails: scale %v (LL %v), want wider than the ECE's %v and its LL %v raised by 0.1", got, meanLL(got), ece, meanLL(ece))
		}
		if !heavy && math.Abs(math.Log(got)) > math.Log(1.2) {
			t.Errorf("Gaussian errors at the band's scale: %v, want within 1.2× of 1", got)
		}
	}
}
