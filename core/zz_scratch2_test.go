package core

import (
	"math/rand/v2"
	"testing"
	"time"

	"apic/sims"
)

func TestScratchDraw(t *testing.T) {
	for _, s := range sims.All() {
		rng := rand.New(rand.NewPCG(1, 2))
		st := time.Now()
		for i := 0; i < 32; i++ {
			sims.Draw(s, rng)
		}
		t.Logf("%s: %v per draw", s.Name(), time.Since(st)/32)
	}
}
