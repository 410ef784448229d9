package cli

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"apic/core"
	"apic/sims"
)

// syntheticCalibration is a calibration of sys with a made-up prediction
// (no model needed): mean sin(i), std 0.1·|cos(i)|, nominal 0.8·mean, and
// an observation at every third grid point.
func syntheticCalibration(sys sims.System, constant bool) calibration {
	g := sys.Grid()
	n := g.Size()
	p := core.Prediction{
		Mean: make([]float64, n), Std: make([]float64, n), Nominal: make([]float64, n),
		DeltaMean: make([]float64, n), DeltaStd: make([]float64, n),
		Theta: make([]float64, len(sys.Params())), ThetaStd: make([]float64, len(sys.Params())),
	}
	for i := range n {
		if !constant {
			p.Mean[i] = math.Sin(float64(i) / 7)
			p.Std[i] = 0.1 * math.Abs(math.Cos(float64(i)))
			p.Nominal[i] = 0.8 * p.Mean[i]
		}
		p.DeltaMean[i] = p.Mean[i] - p.Nominal[i]
		p.DeltaStd[i] = p.Std[i]
	}
	nc := len(g.Channels)
	var obs sims.Context
	for pt := 0; pt < g.Points(); pt += 3 {
		obs.States = append(obs.States, g.States[pt])
		obs.Values = append(obs.Values, append([]float64(nil), p.Mean[pt*nc:(pt+1)*nc]...))
		mask := make([]bool, nc)
		for c := range mask {
			mask[c] = c == 0 || pt%2 == 0 // some second channels missing
		}
		obs.Mask = append(obs.Mask, mask)
		obs.GridIndex = append(obs.GridIndex, pt)
	}
	return calibration{sys: sys, checkpoint: "test", data: "test.csv", obs: obs, pred: p, samples: 1}
}

func TestCalibrationFigure(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"spring", "lv", "advdiff", "testsys", "testfield", "testplain"} {
		for _, constant := range []bool{false, true} {
			sys := lookup(t, name)
			path := filepath.Join(dir, name+".png")
			if err := writeCalibrationFigure(context.Background(), path, syntheticCalibration(sys, constant)); err != nil {
				t.Fatalf("%s (constant %v): %v", name, constant, err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// Three panels side by side; one row per channel for line
			// grids, two per channel (heatmaps and slices) for (t, x).
			rows := len(sys.Grid().Channels)
			if len(sys.Grid().Shape) == 2 {
				rows *= 2
			}
			if cfg.Width != 3*4*figDPI || cfg.Height < rows*3*figDPI {
				t.Errorf("%s: figure %d × %d px for %d rows of panels", name, cfg.Width, cfg.Height, rows)
			}
		}
	}
}

func TestCalibrationFigureFailures(t *testing.T) {
	dir := t.TempDir()
	sys := lookup(t, "spring")
	// A non-finite prediction is an error, not a panic, and writes nothing.
	c := syntheticCalibration(sys, false)
	c.pred.Mean[5] = math.NaN()
	path := filepath.Join(dir, "nan.png")
	if err := writeCalibrationFigure(context.Background(), path, c); err == nil {
		t.Error("NaN prediction: no error")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("NaN prediction left a file: %v", err)
	}
	// An unwritable destination fails cleanly.
	if err := writeCalibrationFigure(context.Background(), filepath.Join(dir, "missing", "f.png"), syntheticCalibration(sys, false)); err == nil || !strings.Contains(err.Error(), "--png") {
		t.Errorf("missing directory: error %v", err)
	}
	// An existing file is replaced whole, and no temporary stays behind.
	path = filepath.Join(dir, "old.png")
	if err := os.WriteFile(path, []byte("old contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeCalibrationFigure(context.Background(), path, syntheticCalibration(sys, false)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Error("existing file not replaced by the figure")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(entries))
	}
}

// TestRecoveryBarsStayInPrior: the θ-recovery panel cuts each error bar
// to the prior box, as calibrate cuts its intervals; a bar inside the box
// keeps its full length.
func TestRecoveryBarsStayInPrior(t *testing.T) {
	th := core.ThetaDiagnostic{Name: "omega", PriorLo: 3, PriorHi: 8,
		Truth: core.JSONFloats{5, 7.5, 3.2}, Estimate: core.JSONFloats{5, 7.6, 3.1}, Std: core.JSONFloats{0.1, 1.44, 1.44}}
	bars := recoveryPoints(th)
	if _, err := recoveryPanel(th); err != nil {
		t.Fatal(err)
	}
	z := core.CentralZ(0.95)
	want := []struct{ lo, hi float64 }{{z * 0.1, z * 0.1}, {z * 1.44, 8 - 7.6}, {3.1 - 3, z * 1.44}}
	for i, w := range want {
		got := bars.YErrors[i]
		if math.Abs(got.Low-w.lo) > 1e-12 || math.Abs(got.High-w.hi) > 1e-12 {
			t.Errorf("bar %d: −%g +%g, want −%g +%g", i, got.Low, got.High, w.lo, w.hi)
		}
	}
}

// TestHeatPanelScale checks the colour bar under a heatmap: it spans the
// scale it is given (the nominal and the prediction share one), rounded
// out to labelled ticks (roundRange), and a diverging field's is
// symmetric about zero.
func TestHeatPanelScale(t *testing.T) {
	field := gridField{values: []float64{0.2, 0.4, 0.6, 0.8}, rows: []float64{0, 1}, cols: []float64{0, 1}}
	other := []float64{0.1, 0.5, 0.9, 1.3}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	_, bar := heatPanel("f", "t", "x", "u", field, []Series{{Values: field.values}, {Values: other}}, false)
	if !near(bar.X.Min, 0) || !near(bar.X.Max, 1.5) {
		t.Errorf("shared scale: colour bar spans [%g, %g], want [0, 1.5]", bar.X.Min, bar.X.Max)
	}
	_, bar = heatPanel("δ", "t", "x", "δ u", field, []Series{{Values: []float64{-0.2, 0.5}}}, true)
	if !near(bar.X.Min, -0.5) || !near(bar.X.Max, 0.5) {
		t.Errorf("diverging scale: colour bar spans [%g, %g], want [-0.5, 0.5]", bar.X.Min, bar.X.Max)
	}
}

// cancelAfterCtx is a context whose Err is nil for its first n calls
// and context.Canceled after: cancelled while the figure is encoded.
type cancelAfterCtx struct {
	context.Context
	n *int
}

func (c cancelAfterCtx) Err() error {
	if *c.n <= 0 {
		return context.Canceled
	}
	*c.n--
	return nil
}

// A Ctrl-C or SIGTERM while a figure is drawn or encoded stops the
// write, leaving the file that was there and no temporary: the encoding
// used to ignore it, and the command ended with status 0 after the
// signal, so that a shell loop went on (savePNG).
func TestFigureWriteInterrupted(t *testing.T) {
	sys := lookup(t, "spring")
	for _, after := range []int{0, 1, 2, 5} {
		dir := t.TempDir()
		path := filepath.Join(dir, "old.png")
		old := []byte("\x89PNG\r\n\x1a\nold figure")
		if err := os.WriteFile(path, old, 0o644); err != nil {
			t.Fatal(err)
		}
		n := after
		err := writeCalibrationFigure(cancelAfterCtx{context.Background(), &n}, path, syntheticCalibration(sys, false))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled after %d checks: error %v, want context.Canceled", after, err)
		}
		if data, _ := os.ReadFile(path); !bytes.Equal(data, old) {
			t.Errorf("cancelled after %d checks: %s was replaced", after, path)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("cancelled after %d checks: %d files left in %s, want the old one alone", after, len(entries), dir)
		}
	}
}

// TestDiagnosticsPanelsRoundTicks: the diagnostics figure labels its
// axes at round steps, as the calibration figure does; gonum's default
// ticker labelled advdiff's recovery axes over U(0.3, 2) at 0.4, 1.2 and
// 2.0 and over U(0.002, 0.08) at 0.01, 0.04 and 0.07.
func TestDiagnosticsPanelsRoundTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{0.3, 2, []string{"0.5", "1.0", "1.5", "2.0"}},
		{0.002, 0.08, []string{"0.02", "0.04", "0.06", "0.08"}},
	} {
		mid := (tc.lo + tc.hi) / 2
		th := core.ThetaDiagnostic{Name: "v", PriorLo: tc.lo, PriorHi: tc.hi,
			Truth: core.JSONFloats{mid}, Estimate: core.JSONFloats{mid}, Std: core.JSONFloats{0}}
		p, err := recoveryPanel(th)
		if err != nil {
			t.Fatal(err)
		}
		for axis, ax := range map[string]plot.Axis{"x": p.X, "y": p.Y} {
			var labels []string
			for _, tk := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
			}
			if !slices.Equal(labels, tc.want) {
				t.Errorf("prior U(%g, %g): %s labels %q, want %q", tc.lo, tc.hi, axis, labels, tc.want)
			}
		}
	}
}
