package core

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"apic/sims"
)

// earlyContext is lv's true process from u0 at θ = 1 on every other
// grid point up to t = 2, from the second, noise-free.
func earlyContext(t *testing.T, u0 []float64) (sims.System, sims.Context) {
	t.Helper()
	return earlyContextFrom(t, u0, 1)
}

// earlyContextFrom is earlyContext from grid point first (0: t = 0).
func earlyContextFrom(t *testing.T, u0 []float64, first int) (sims.System, sims.Context) {
	t.Helper()
	sys, err := sims.Lookup("lv")
	if err != nil {
		t.Fatal(err)
	}
	g := sys.Grid()
	values := sys.True([]float64{1, 1, 1, 1}, u0)
	var ctx sims.Context
	for gi := first; g.States[gi][0] <= 2; gi += 2 {
		ctx.States = append(ctx.States, g.States[gi])
		ctx.Values = append(ctx.Values, []float64{values[2*gi], values[2*gi+1]})
		ctx.Mask = append(ctx.Mask, []bool{true, true})
		ctx.GridIndex = append(ctx.GridIndex, gi)
	}
	return sys, ctx
}

// TestSwappedSideWarnings: an lv u0 given predator first is flagged,
// naming both orders and which value is prey and which predator; the
// right order, equal values and data with nothing early are not.
func TestSwappedSideWarnings(t *testing.T) {
	sys, ctx := earlyContext(t, []float64{0.8, 1.6})
	got := swappedSideWarnings(sys, ctx, []float64{1.6, 0.8})
	if len(got) != 1 {
		t.Fatalf("swapped u0: warnings %q, want one", got)
	}
	for _, want := range []string{"u0 = 1.6,0.8 looks swapped", "order given (prey x0 = 1.6, predator y0 = 0.8)", "swapped order (prey x0 = 0.8, predator y0 = 1.6)", "check that u0 gives prey first (x0,y0)"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("warning %q lacks %q", got[0], want)
		}
	}
	if got := DataWarnings(sys, ctx, []float64{1.6, 0.8}); !strings.Contains(strings.Join(got, "\n"), "looks swapped") {
		t.Errorf("DataWarnings %q: no swap warning", got)
	}
	if got := swappedSideWarnings(sys, ctx, []float64{0.8, 1.6}); len(got) != 0 {
		t.Errorf("u0 in order: warnings %q", got)
	}
	sys, ctx = earlyContext(t, []float64{1.2, 1.2})
	if got := swappedSideWarnings(sys, ctx, []float64{1.2, 1.2}); len(got) != 0 {
		t.Errorf("equal u0: warnings %q", got)
	}
	sys, ctx = earlyContext(t, []float64{0.8, 1.6})
	late := sims.Context{States: ctx.States[8:], Values: ctx.Values[8:], Mask: ctx.Mask[8:], GridIndex: ctx.GridIndex[8:]}
	if got := swappedSideWarnings(sys, late, []float64{1.6, 0.8}); len(got) != 0 {
		t.Errorf("nothing before t = %g: warnings %q", late.States[0][0], got)
	}
	spring, _ := sims.Lookup("spring")
	if got := swappedSideWarnings(spring, ctx, nil); len(got) != 0 {
		t.Errorf("spring: warnings %q", got)
	}
}

// TestSwappedSideWarningsOnDraws: on lv's prior draws, with noise up to
// the training's largest, no u0 given in the right order is called
// swapped, and most swapped ones whose prey and predator differ by a
// third of their range are.
func TestSwappedSideWarningsOnDraws(t *testing.T) {
	sys, err := sims.Lookup("lv")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	apart, caught := 0, 0
	for i := range 40 {
		r := sims.Draw(sys, rng)
		task, err := sims.NewTask(sys, r, 20+rng.IntN(81), []float64{0.05, 0.1}[i%2], rng)
		if err != nil {
			t.Fatal(err)
		}
		if got := swappedSideWarnings(sys, task.Context, r.Side); len(got) != 0 {
			t.Errorf("draw %d, u0 in order: %q", i, got)
		}
		if math.Abs(r.Side[0]-r.Side[1]) < (sys.Side().Hi-sys.Side().Lo)/3 {
			continue
		}
		apart++
		if len(swappedSideWarnings(sys, task.Context, []float64{r.Side[1], r.Side[0]})) == 1 {
			caught++
		}
	}
	if apart == 0 || 2*caught < apart {
		t.Errorf("caught %d of %d swapped u0 whose entries lie far apart, want most", caught, apart)
	}
}

// TestSwappedSideWarningsLoneValue: one early prey value, noise-free,
// that the nominal trajectories from the right u0 miss by just over
// the training's largest σ (the truth's forcing pushes it away) and
// one from the swapped u0 passes by chance is no evidence of a swap:
// the floor grows for few values, and no warning is given.
func TestSwappedSideWarningsLoneValue(t *testing.T) {
	sys, err := sims.Lookup("lv")
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.5084230666987918, 1.498535059128114, 1.4655277939854963, 0.5472100356067807}
	u0 := []float64{1.1954266540776326, 0.8275276347818318}
	truth, g := sys.True(theta, u0), sys.Grid()
	const gi = 5 // t ≈ 0.505
	ctx := sims.Context{
		States:    [][]float64{g.States[gi]},
		Values:    [][]float64{{truth[2*gi], 0}},
		Mask:      [][]bool{{true, false}},
		GridIndex: []int{gi},
	}
	early := earliestObservations(g, ctx)
	given, other := nearestTrajectory(g, ctx, early, nominalFamily(sys, u0)), nearestTrajectory(g, ctx, early, nominalFamily(sys, []float64{u0[1], u0[0]}))
	if !(given > swapFloor && other*swapRatio < given) {
		t.Fatalf("distances given %g, swapped %g: the case no longer passes the bare σ floor", given, other)
	}
	if got := swappedSideWarnings(sys, ctx, u0); len(got) != 0 {
		t.Errorf("u0 in order, one early value: %q", got)
	}
}

// TestSwappedSideWarningOneObservation: a swap shown by one early row
// (both channels at t = 0) is told of in the singular.
func TestSwappedSideWarningOneObservation(t *testing.T) {
	sys, _ := earlyContext(t, []float64{0.8, 1.6})
	g := sys.Grid()
	one := sims.Context{States: [][]float64{g.States[0]}, Values: [][]float64{{0.8, 1.6}}, Mask: [][]bool{{true, true}}, GridIndex: []int{0}}
	got := swappedSideWarnings(sys, one, []float64{1.6, 0.8})
	if len(got) != 1 || !strings.Contains(got[0], "looks swapped: the earliest observation (t = 0) lies ") {
		t.Errorf("one early row, u0 swapped: warnings %q, want one about the earliest observation", got)
	}
}

// TestSideOrderWarningsMergeFirstTime: a swapped lv u0 whose data hold
// the state at t = 0 gets one warning, the swap's, saying the t = 0
// observations match the swapped order, not one more per channel; a u0
// that the t = 0 observations contradict in either order keeps its
// warnings per channel.
func TestSideOrderWarningsMergeFirstTime(t *testing.T) {
	u0 := []float64{0.75, 1.75}
	sys, ctx := earlyContextFrom(t, u0, 0)
	swapped := []float64{u0[1], u0[0]}
	if n := len(initialWarnings(sys, ctx, swapped)); n != 2 {
		t.Fatalf("the t = 0 row gives %d warnings on the swapped u0, want one per channel", n)
	}
	got := DataWarnings(sys, ctx, swapped)
	if len(got) != 1 || !strings.Contains(got[0], "looks swapped") || !strings.Contains(got[0], "the observations at t = 0 match the swapped order too") {
		t.Errorf("swapped u0 with a t = 0 row: warnings %q, want the swap's alone, saying t = 0 matches", got)
	}
	wrong := []float64{2.5, 0.2}
	if got := sideOrderWarnings(sys, ctx, wrong); len(got) < 2 || strings.Contains(strings.Join(got, "\n"), "match the swapped order") {
		t.Errorf("u0 %v, wrong in both orders: warnings %q, want the t = 0 warnings per channel", wrong, got)
	}
}
