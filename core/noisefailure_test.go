package core

import (
	"math"
	"testing"
)

// TestFailureAtNoise: a failed fit at a noise beyond the model's
// training range says so, with the range, in place of "the model
// diverged"; inside the range, at an unknown noise, or for a model
// trained on noise-free contexts, the words fit the case.
func TestFailureAtNoise(t *testing.T) {
	m := tinyModel(t, "spring", LNP, func(c *Config) { c.Train.Noise, c.Train.NoiseMax = 0, 0.1 })
	diverged := ErrDiverged.Error()
	runaway := divergedPrefix + "its prediction reaches 3e+08"
	for _, tc := range []struct {
		reason string
		noise  float64
		want   string
	}{
		{diverged, 1000, "the fit failed at noise σ = 1000, 10000 times the top of the model's training range (σ ≤ 0.1): every latent sample gave a non-finite prediction"},
		{runaway, 0.15, "the fit failed at noise σ = 0.15, 1.5 times the top of the model's training range (σ ≤ 0.1): its prediction reaches 3e+08"},
		{diverged, 0.1, diverged},
		{diverged, math.NaN(), diverged},
	} {
		if got := m.failureAtNoise(tc.reason, tc.noise); got != tc.want {
			t.Errorf("failureAtNoise(%q, %g) = %q, want %q", tc.reason, tc.noise, got, tc.want)
		}
	}
	clean := tinyModel(t, "spring", LNP, func(c *Config) { c.Train.Noise, c.Train.NoiseMax = 0, 0 })
	want := "the fit failed at noise σ = 1, where the model was trained on noise-free contexts only: every latent sample gave a non-finite prediction"
	if got := clean.failureAtNoise(diverged, 1); got != want {
		t.Errorf("noise-free model: %q, want %q", got, want)
	}
	a := &APIC{Model: m, Noise: 1000}
	if got := a.wordFailure(diverged); got != m.failureAtNoise(diverged, 1000) {
		t.Errorf("APIC.wordFailure = %q", got)
	}
}
