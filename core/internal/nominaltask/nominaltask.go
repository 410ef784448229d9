// Package nominaltask builds the test tasks that the per-realization
// baselines' recovery tests share: a system's nominal model at a known θ
// observed without noise or discrepancy, so that a fit must return that θ
// and a discrepancy near zero.
package nominaltask

import (
	"math"
	"math/rand/v2"
	"testing"

	"apic/sims"
)

// New returns the system named and a task whose context (n points, drawn
// with a fixed seed) comes from its nominal model at theta and side.
func New(t testing.TB, name string, theta, side []float64, n int) (sims.System, sims.Task) {
	t.Helper()
	sys, err := sims.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	nom := sys.Nominal(theta, side)
	r := sims.Realization{Theta: theta, Side: side, Nominal: nom, True: nom}
	task, err := sims.NewSplit(sys, rand.New(rand.NewPCG(7, 3))).Task(sys, r, nom, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	return sys, task
}

// Amplitude is the largest |v| of vs, the scale a recovered
// discrepancy is compared with.
func Amplitude(vs []float64) float64 {
	m := 0.0
	for _, v := range vs {
		m = max(m, math.Abs(v))
	}
	return m
}
