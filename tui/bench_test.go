package tui

import (
	"fmt"
	"testing"
)

// BenchmarkReinfer is the re-inference after a slider move: the context
// stepper moves by one rung and the explorer predicts (Monte-Carlo
// samples as on screen) and scores the realization again.
func BenchmarkReinfer(b *testing.B) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		b.Run(sys, func(b *testing.B) {
			m := newTest(b, sys, 160, 48)
			m = focusOn(b, m, ctlContext)
			r1 := m.request()
			m, _ = press(b, m, "right")
			r2 := m.request()
			i := 0
			for b.Loop() {
				r := r1
				if i%2 == 1 {
					r = r2
				}
				if res := r.run(); res.err != nil {
					b.Fatal(res.err)
				}
				i++
			}
		})
	}
}

// BenchmarkRefine is the refined prediction that follows once the
// controls rest (the model's Levenberg–Marquardt steps).
func BenchmarkRefine(b *testing.B) {
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		b.Run(sys, func(b *testing.B) {
			m := newTest(b, sys, 160, 48)
			r := m.request()
			r.refine = -1
			for b.Loop() {
				if res := r.run(); res.err != nil {
					b.Fatal(res.err)
				}
			}
		})
	}
}

// BenchmarkRender is one full frame (all panels, sidebar, header, help).
func BenchmarkRender(b *testing.B) {
	cases := []struct {
		sys  string
		w, h int
		heat bool
	}{
		{"spring", 80, 24, false}, {"spring", 160, 48, false},
		{"lv", 80, 24, false}, {"lv", 160, 48, false},
		{"advdiff", 80, 24, false}, {"advdiff", 160, 48, false}, {"advdiff", 160, 48, true},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s_%dx%d", c.sys, c.w, c.h)
		if c.heat {
			name += "_heatmap"
		}
		b.Run(name, func(b *testing.B) {
			m := newTest(b, c.sys, c.w, c.h)
			if c.heat {
				m, _ = press(b, m, "v")
			}
			for b.Loop() {
				_ = m.render()
			}
		})
	}
}
