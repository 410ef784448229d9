package cli

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"apic/core"
	"apic/sims"
)

// wrapTitle breaks at " · " before ", " before spaces, keeps a list's
// comma at the end of its line, and leaves a title that fits whole.
func TestWrapTitle(t *testing.T) {
	fitsIn := func(n int) func(string) bool {
		return func(s string) bool { return len([]rune(s)) <= n }
	}
	for _, tc := range []struct {
		title string
		width int
		want  []string
	}{
		{"A · b, c · d", 40, []string{"A · b, c · d"}},
		{"Aaaa · bbbb · cccc", 11, []string{"Aaaa · bbbb", "cccc"}},
		{"Sys · a = 1, b = 2, c = 3 · n", 13, []string{"Sys", "a = 1, b = 2,", "c = 3 · n"}},
		{"x verylongword y", 6, []string{"x", "verylongword", "y"}},
	} {
		if got := wrapTitle(tc.title, fitsIn(tc.width), titleBreaks); !slices.Equal(got, tc.want) {
			t.Errorf("%q in %d: %q, want %q", tc.title, tc.width, got, tc.want)
		}
	}
}

// longestObservations are calibrate's most: the observation limit.
var longestObservations = core.LimitObservations.Max

// longestCalibration is c with the longest title calibrate can give it:
// every θ̂ and σ in the widest form %.4g and %.2g print (-0.0001235,
// 1.2e-05), the most observations a file may hold, and one pass.
func longestCalibration(c calibration) calibration {
	for i := range c.pred.Theta {
		c.pred.Theta[i], c.pred.ThetaStd[i] = -0.0001235, 1.2e-05
	}
	for i := 0; c.obs.Len() < longestObservations; i++ {
		c.obs.States = append(c.obs.States, c.obs.States[i])
		c.obs.Values = append(c.obs.Values, c.obs.Values[i])
		c.obs.Mask = append(c.obs.Mask, c.obs.Mask[i])
		c.obs.GridIndex = append(c.obs.GridIndex, c.obs.GridIndex[i])
	}
	c.refine = 0
	return c
}

// longCheckpoint is a long checkpoint path, whose file name diagnose's
// figure title carries.
const longCheckpoint = "runs/2026-11-29/advdiff-anp-lambda-delta-100-context-1-60.partial-2.safetensors"

// longestDiagnostics are diagnose's results with its longest title: the
// most realizations, samples and refinement steps allowed, a context of
// the largest grid, a noise of many digits and the largest seed.
func longestDiagnostics(sys sims.System) core.Diagnostics {
	d := core.Diagnostics{Backbone: "anp", Tasks: core.LimitTasks.Max, Context: 4160, Noise: 0.0123456789,
		Seed: math.MaxUint64, Samples: core.LimitSamples.Max, Refine: core.LimitRefine.Max, Levels: []float64{0.5, 0.9}}
	for _, p := range sys.Params() {
		d.Theta = append(d.Theta, core.ThetaDiagnostic{Name: p.Name, PriorLo: p.Lo, PriorHi: p.Hi})
	}
	return d
}

// longestSweepTitle is sweep.png's longest title: cells of every system
// (a checkpoint axis), four axes of the longest names, seeds and
// realizations that differ between cells up to their limits, and the
// largest grid's context at a noise of many digits.
func longestSweepTitle() (string, sweepSummary) {
	at := func(v float64) sweepInterval { return sweepInterval{Mean: &v, N: 1} }
	sum := sweepSummary{Axes: []string{"z-theta-prior", "context-range", "lambda-theta", "lambda-delta"}}
	var rows []sweepRow
	for i, name := range []string{"spring", "lv", "advdiff"} {
		seeds, tasks := 1, 1
		if i > 0 {
			seeds, tasks = core.LimitSweepSeeds.Max, core.LimitTasks.Max
		}
		rows = append(rows, sweepRow{system: name, backbone: "lnp", tasks: tasks, context: 4160, noise: 0.0123456789})
		sum.Cells = append(sum.Cells, sweepGroup{Seeds: seeds, order: []string{strings.Repeat("1", i+1), "1:30", "0.1", "1"},
			Metrics: map[string]sweepInterval{core.KeyReconMAE: at(0.01)}})
	}
	return sweepFigureTitle(sum.Axes, rows, sum), sum
}

// Every figure's title, at its longest, fits within the figure's width
// with figTitleMargin to spare at either edge, for every system: laid
// out (each line measured) and as drawn (the PNG's edges beside the
// title are blank).
func TestFigureTitlesFit(t *testing.T) {
	dir := t.TempDir()
	width := 3 * figPanelW
	for _, name := range sims.Names() {
		sys := lookup(t, name)
		c := longestCalibration(syntheticCalibration(sys, false))
		checkHeadingFits(t, "calibrate "+name, newFigureHeading(figureTitle(c), width, 0.4*vg.Inch), width)
		path := filepath.Join(dir, "calibrate-"+name+".png")
		if err := writeCalibrationFigure(context.Background(), path, c); err != nil {
			t.Fatalf("calibrate %s: %v", name, err)
		}
		checkTitleEdgesBlank(t, "calibrate "+name, path, newFigureHeading(figureTitle(c), width, 0.4*vg.Inch))

		d := longestDiagnostics(sys)
		heading := newFigureHeading(diagnosticsFigureTitle(d, sys.Title(), longCheckpoint), width, 0.5*vg.Inch)
		checkHeadingFits(t, "diagnose "+name, heading, width)
		path = filepath.Join(dir, "diagnose-"+name+".png")
		if err := writeDiagnosticsFigure(context.Background(), path, d, sys.Title(), longCheckpoint); err != nil {
			t.Fatalf("diagnose %s: %v", name, err)
		}
		checkTitleEdgesBlank(t, "diagnose "+name, path, heading)
	}
	title, sum := longestSweepTitle()
	heading := newFigureHeading(title, width, sweepTitleHeight)
	checkHeadingFits(t, "sweep", heading, width)
	path := filepath.Join(dir, "sweep.png")
	if err := writeSweepFigure(context.Background(), path, sum, title); err != nil {
		t.Fatal(err)
	}
	checkTitleEdgesBlank(t, "sweep", path, heading)
}

// checkHeadingFits checks that each of h's lines fits within width less
// figTitleMargin at either edge.
func checkHeadingFits(t *testing.T, what string, h figureHeading, width vg.Length) {
	t.Helper()
	sty := figTitleStyle()
	for _, line := range h.lines {
		if w := sty.Width(line); w > width-2*figTitleMargin {
			t.Errorf("%s: title line %q is %.0f pt wide, more than the figure's %.0f pt less %.0f pt each side",
				what, line, float64(w), float64(width), float64(figTitleMargin))
		}
	}
}

// checkTitleEdgesBlank checks that the figure at path has nothing drawn
// in the strip of h, its title, within half figTitleMargin of its left
// and right edges: a title too wide would run into them.
func checkTitleEdgesBlank(t *testing.T, what, path string, h figureHeading) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	px := func(l vg.Length) int { return int(math.Ceil(float64(l) / vg.Inch.Points() * figDPI)) }
	b, edge, rows := img.Bounds(), px(figTitleMargin/2), px(h.height())
	for y := b.Min.Y; y < b.Min.Y+rows; y++ {
		for _, x0 := range []int{b.Min.X, b.Max.X - edge} {
			for x := x0; x < x0+edge; x++ {
				if !blank(img, x, y) {
					t.Errorf("%s: the title reaches the image's edge (pixel %d, %d)", what, x, y)
					return
				}
			}
		}
	}
}

// blank says whether img's pixel at x, y is the white background.
func blank(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return r == 0xffff && g == 0xffff && b == 0xffff
}
