package core

import (
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"apic/sims"
)

var swapSeeds = flag.Int("swapseeds", 200, "TestSwapRatesOnSimulateSeeds: how many simulate seeds, from 0, to measure on")

// simulate's PCG streams (cli's simulateStream and csvSplitStream,
// which core cannot import): with them, seed s, σ and n give the data
// of `apic simulate --system lv --seed s --csv FILE --noise σ --context
// n`, which calibrate reads back exactly.
const (
	simulateStreamForSwap = 0x73696d756c617465 // "simulate"
	csvStreamForSwap      = 0x73696d2d637376   // "sim-csv"
)

// swapCase is one data set's early evidence: its count of early values
// and their RMS distances from the nearest trajectory from the right
// u0 and from the swapped one; apart marks a u0 whose prey and
// predator differ by a third of their range or more.
type swapCase struct {
	values         int
	right, swapped float64
	apart          bool
}

// simulateSwapCases are the swapCases of simulate's lv data for seeds
// 0..seeds-1 at the noise σ of lv's training, 0 to its largest, and 10
// to 100 observations, as calibrate reads them; data sets with nothing
// early are left out (no order can be judged there).
func simulateSwapCases(t *testing.T, seeds int) []swapCase {
	t.Helper()
	sys, err := sims.Lookup("lv")
	if err != nil {
		t.Fatal(err)
	}
	g, si := sys.Grid(), sys.Side()
	var cases []swapCase
	for seed := range uint64(seeds) {
		r := sims.Draw(sys, rand.New(rand.NewPCG(seed, simulateStreamForSwap)))
		right, swapped := nominalFamily(sys, r.Side), nominalFamily(sys, []float64{r.Side[1], r.Side[0]})
		apart := math.Abs(r.Side[0]-r.Side[1]) >= (si.Hi-si.Lo)/3
		for _, noise := range []float64{0, 0.01, 0.05, swapFloor} {
			for _, n := range []int{10, 20, 30, 60, 100} {
				split := sims.NewSplit(sys, rand.New(rand.NewPCG(seed, csvStreamForSwap)))
				slices.Sort(split.Perm[:n])
				task, err := split.Task(sys, r, r.True, n, noise)
				if err != nil {
					t.Fatal(err)
				}
				early := earliestObservations(g, task.Context)
				if len(early) == 0 {
					continue
				}
				cases = append(cases, swapCase{
					values:  observedValues(task.Context, early),
					right:   nearestTrajectory(g, task.Context, early, right),
					swapped: nearestTrajectory(g, task.Context, early, swapped),
					apart:   apart,
				})
			}
		}
	}
	return cases
}

// swapRates are the false alarms (u0 in order, called swapped) and
// misses (u0 swapped, not called so) of looksSwapped at ratio over
// cases, and the misses among those whose entries lie apart.
func swapRates(cases []swapCase, ratio float64) (falseAlarms, misses, missesApart, apart int) {
	for _, c := range cases {
		if looksSwapped(c.right, c.swapped, c.values, ratio) {
			falseAlarms++
		}
		missed := !looksSwapped(c.swapped, c.right, c.values, ratio)
		if missed {
			misses++
		}
		if c.apart {
			apart++
			if missed {
				missesApart++
			}
		}
	}
	return falseAlarms, misses, missesApart, apart
}

// TestSwapRatesOnSimulateSeeds measures the swap rule on the data that
// simulate --csv writes for lv (seeds 0..199; -swapseeds N for more),
// u0 given in order and swapped, and checks the rates swapRatio's
// comment claims: at most 0.05% false alarms, and at most 20% of the
// swaps missed whose prey and predator differ by a third of their
// range. With -v it prints the rates at other ratios and the largest
// ratios on u0 in order, the distribution swapRatio is read from.
func TestSwapRatesOnSimulateSeeds(t *testing.T) {
	cases := simulateSwapCases(t, *swapSeeds)
	for _, ratio := range []float64{2, 2.5, swapRatio, 4} {
		fa, miss, missApart, apart := swapRates(cases, ratio)
		t.Logf("ratio %g: false alarms %d of %d (%.3f%%), misses %d (%.1f%%), misses with entries apart %d of %d (%.1f%%)",
			ratio, fa, len(cases), 100*float64(fa)/float64(len(cases)), miss, 100*float64(miss)/float64(len(cases)), missApart, apart, 100*float64(missApart)/float64(apart))
	}
	var inOrder []float64
	for _, c := range cases {
		if c.right > swapFloorFor(c.values) {
			inOrder = append(inOrder, c.right/c.swapped)
		}
	}
	slices.Sort(inOrder)
	slices.Reverse(inOrder)
	t.Logf("largest ratios on u0 in order past the floor (%d data sets): %.3g", len(inOrder), inOrder[:min(12, len(inOrder))])

	fa, _, missApart, apart := swapRates(cases, swapRatio)
	if fa*2000 > len(cases) {
		t.Errorf("%d false alarms in %d data sets with u0 in order: more than 0.05%%", fa, len(cases))
	}
	if apart == 0 || missApart*5 > apart {
		t.Errorf("%d of %d swaps with entries a third of their range apart missed: more than 20%%", missApart, apart)
	}
}
