package core

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"apic/sims"
)

// recalMemChild names the environment variable under which the test
// binary runs one recalibration in a process of its own and prints its
// peak heap: a fresh process, so that no earlier test's heap hides it.
const recalMemChild = "APIC_TEST_RECALMEM_CHILD"

// recalibrationPart maps the scopes to a recalibration that draws so.
var recalibrationPart = map[RecalScope]func(*Model) func(context.Context, int) error{
	RecalWhole:        func(m *Model) func(context.Context, int) error { return m.Recalibrate },
	RecalPerCondition: func(m *Model) func(context.Context, int) error { return m.RecalibrateConditions },
	RecalOnce:         func(m *Model) func(context.Context, int) error { return m.RecalibrateTheta },
}

// TestRecalMemoryMatchesMeasuredPeak: the estimate of a recalibration
// of a shipped checkpoint is within a factor of two of the peak heap
// measured on the real recalibration (HeapSys: the heap the runtime
// has taken from the system, which it does not hand back during a run
// this short), under apic train's collector goal, at one and two cores.
func TestRecalMemoryMatchesMeasuredPeak(t *testing.T) {
	if spec := os.Getenv(recalMemChild); spec != "" {
		recalMemChildRun(t, spec)
		return
	}
	if testing.Short() {
		t.Skip("recalibrates shipped checkpoints in child processes")
	}
	cases := []struct {
		file  string
		scope RecalScope
		n     int
		procs int
	}{
		{"advdiff-lnp", RecalPerCondition, 8, 1}, // the held realizations dominate
		{"advdiff-lnp", RecalPerCondition, 8, 2},
		{"advdiff-anp", RecalPerCondition, 16, 2}, // and anp's batch at context 1024
		{"advdiff-anp", RecalWhole, 32, 2},
		{"spring-lnp", RecalWhole, 256, 1},
	}
	for _, c := range cases {
		procs := c.procs
		{
			spec := fmt.Sprintf("%s:%d:%d", c.file, c.scope, c.n)
			cmd := exec.Command(os.Args[0], "-test.run=^TestRecalMemoryMatchesMeasuredPeak$", "-test.count=1")
			cmd.Env = append(os.Environ(), recalMemChild+"="+spec, "GOMAXPROCS="+strconv.Itoa(procs))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", spec, err, out)
			}
			_, rest, ok := strings.Cut(string(out), "heap ")
			measured, perr := strconv.ParseInt(strings.Fields(rest + " x")[0], 10, 64)
			if !ok || perr != nil {
				t.Fatalf("%s: no heap figure in %q", spec, out)
			}
			r, e := probedShippedRecal(t, c.file, c.n, c.scope)
			t.Logf("%s at %d cores: estimate %s (held %s, batch %s), measured %s", spec, procs, ByteSize(e.Total()), ByteSize(recalSlack*int64(r.Held)*r.PerRealization), ByteSize(r.PredictBytes()), ByteSize(measured))
			if r := float64(e.Total()) / float64(measured); r < 0.5 || r > 2 {
				t.Errorf("%s at %d cores: estimate %s, measured peak heap %s (ratio %.2f)", spec, procs, ByteSize(e.Total()), ByteSize(measured), r)
			}
		}
	}
}

// recalMemChildRun runs the recalibration spec names ("file:scope:n")
// and prints the peak heap, as the child of
// TestRecalMemoryMatchesMeasuredPeak.
func recalMemChildRun(t *testing.T, spec string) {
	f := strings.Split(spec, ":")
	scope, _ := strconv.Atoi(f[1])
	n, _ := strconv.Atoi(f[2])
	debug.SetGCPercent(25) // apic train's goal through the recalibration (trainGCPercent)
	m, _, err := LoadCheckpoint("../checkpoints/" + f[0] + ".safetensors")
	if err != nil {
		t.Fatal(err)
	}
	if err := recalibrationPart[RecalScope(scope)](m)(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("heap %d\n", ms.HeapSys)
}

// TestRecalMemoryRefusesBeyondBudget: a run whose recalibration would
// take it past the budget is refused before anything is allocated,
// naming --recalibrate and an N that fits, which does fit.
func TestRecalMemoryRefusesBeyondBudget(t *testing.T) {
	cfg := defaultConfig(t, "advdiff", LNP, func(*Config) {})
	e := EstimateTrainMemory(cfg)
	e.Recal = EstimateRecalMemory(cfg, 576, RecalPerCondition)
	err := e.Check(laptopBudget, "the test's budget")
	if err == nil {
		t.Fatalf("estimate %s passes a budget of %s", ByteSize(e.Total()), ByteSize(laptopBudget))
	}
	fits := e.mostTasksWithin(laptopBudget)
	for _, want := range []string{"the recalibration after training would need at least " + ByteSize(e.Total()), "4.0 GB available (the test's budget)", "--recalibrate 576 holds 13824 validation realizations", "576 per condition at 24 conditions", fmt.Sprintf("lower --recalibrate to %d or less", fits), "--recalibrate 0", MemoryBudgetEnv} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	e.Recal = EstimateRecalMemory(cfg, fits, RecalPerCondition)
	if err := e.Check(laptopBudget, "the test's budget"); err != nil || fits < 1 {
		t.Errorf("--recalibrate %d, said to fit: %v", fits, err)
	}
	e.Recal = EstimateRecalMemory(cfg, fits+1, RecalPerCondition)
	if e.Check(laptopBudget, "the test's budget") == nil {
		t.Errorf("--recalibrate %d fits too: the error's N is not the largest", fits+1)
	}
	// A run that trains nothing says so.
	only := RecalOnly(cfg, EstimateRecalMemory(cfg, 576, RecalPerCondition))
	if err := only.Check(laptopBudget, "the test's budget"); err == nil || !strings.HasPrefix(err.Error(), "the recalibration would need") || strings.Contains(err.Error(), "--recalibrate 0") {
		t.Errorf("--recalibrate-only: error %v", err)
	}
}

// TestRecalMemoryHeld: the realizations a recalibration holds at once
// are its N, or the table's cells times the per-condition count.
func TestRecalMemoryHeld(t *testing.T) {
	for _, system := range sims.Names() {
		sys, _ := sims.Lookup(system)
		cells := len(tableConditionsOf(sys))
		for _, c := range []struct {
			scope   RecalScope
			n, want int
		}{
			{RecalWhole, 64, cells * 16}, {RecalWhole, 8, cells * 8}, {RecalWhole, 4096, max(4096, cells*1024)},
			{RecalPerCondition, 192, cells * 192}, {RecalOnce, 256, 256},
		} {
			if got := RecalibrationHeld(cells, c.n, c.scope); got != c.want {
				t.Errorf("%s scope %d N %d: holds %d, want %d", system, c.scope, c.n, got, c.want)
			}
		}
	}
}

// TestRecalMemoryOfShippedSizes: the recalibrations of
// checkpoints/train-all.sh, at their realizations per condition,
// measured on the shipped checkpoints, fit a small laptop's 4 GB,
// except advdiff's table at 192 and 576 per condition, which hold 4608
// and 13824 realizations of 4096 values: those are refused with an N
// that fits (the test logs by how much they exceed it).
func TestRecalMemoryOfShippedSizes(t *testing.T) {
	for _, c := range []struct {
		system string
		n      int
		scope  RecalScope
		fits   bool
	}{
		{"spring", 1024, RecalPerCondition, true}, {"lv", 256, RecalPerCondition, true}, {"lv", 768, RecalPerCondition, true},
		{"lv", 256, RecalOnce, true}, {"advdiff", 256, RecalOnce, true},
		{"advdiff", DefaultRecalibrationTasks, RecalWhole, true},
		{"advdiff", 192, RecalPerCondition, false}, {"advdiff", 576, RecalPerCondition, false},
	} {
		for _, b := range []Backbone{CNP, LNP, ANP} {
			_, e := probedShippedRecal(t, fmt.Sprintf("%s-%s", c.system, b), c.n, c.scope)
			err := e.Check(laptopBudget, "the test's budget")
			switch {
			case c.fits && err != nil:
				t.Errorf("%s/%s --recalibrate %d (scope %d): %v", c.system, b, c.n, c.scope, err)
			case !c.fits && err == nil:
				t.Errorf("%s/%s --recalibrate %d (scope %d): estimate %s fits %s; this test's list is out of date", c.system, b, c.n, c.scope, ByteSize(e.Total()), ByteSize(laptopBudget))
			case !c.fits:
				t.Logf("%s/%s --recalibrate %d: estimate %s, %.1f times %s; at most --recalibrate %d fits", c.system, b, c.n, ByteSize(e.Total()), float64(e.Total())/laptopBudget, ByteSize(laptopBudget), e.mostTasksWithin(laptopBudget))
			}
		}
	}
}

// probedShippedRecal probes the recalibration memory of the shipped
// checkpoint file (spring-lnp) at n realizations drawn as scope says,
// and the estimate of that recalibration alone.
func probedShippedRecal(t *testing.T, file string, n int, scope RecalScope) (RecalMemory, TrainMemory) {
	t.Helper()
	m, _, err := LoadCheckpoint("../checkpoints/" + file + ".safetensors")
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.ProbeRecalMemory(context.Background(), n, scope)
	if err != nil {
		t.Fatal(err)
	}
	return r, RecalOnly(m.Config, r)
}
