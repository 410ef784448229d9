package kohgp

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestRBFAndCorrelationAgree(t *testing.T) {
	xs := [][]float64{{0, 0.1}, {0.5, 0.9}, {1, 0.3}, {0.2, 0.2}}
	k := RBF{Std: 1.7, Scales: []float64{0.4, 1.3}}
	n := len(xs)
	r := make([]float64, n*n)
	corrUpper(r, n, sqDists(xs), k.Scales)
	for i := range n {
		for j := i; j < n; j++ {
			dt, dx := (xs[i][0]-xs[j][0])/0.4, (xs[i][1]-xs[j][1])/1.3
			want := 1.7 * 1.7 * math.Exp(-0.5*(dt*dt+dx*dx))
			if got := k.At(xs[i], xs[j]); math.Abs(got-want) > 1e-14 {
				t.Errorf("At(%d, %d) = %v, want %v", i, j, got, want)
			}
			if got := 1.7 * 1.7 * r[i*n+j]; math.Abs(got-want) > 1e-14 {
				t.Errorf("corrUpper[%d, %d]·σ_f² = %v, want %v", i, j, got, want)
			}
		}
	}
}

func TestLatinHypercubeStratifies(t *testing.T) {
	const n, d = 8, 3
	pts := latinHypercube(rand.New(rand.NewPCG(1, 2)), n, d)
	for j := range d {
		seen := make([]bool, n)
		for _, p := range pts {
			if p[j] < 0 || p[j] >= 1 {
				t.Fatalf("coordinate %v outside [0, 1)", p[j])
			}
			s := int(p[j] * n)
			if seen[s] {
				t.Errorf("dimension %d: stratum %d holds two points", j, s)
			}
			seen[s] = true
		}
	}
}
