package tui

import (
	"strconv"
	"strings"
	"testing"

	"apic/core"
	"apic/sims"
)

// TestNewTraineeRefusesBeyondMemory: the explorer's training is refused,
// as apic train's is, when its memory estimate exceeds the budget, and
// built when it fits.
func TestNewTraineeRefusesBeyondMemory(t *testing.T) {
	sys, err := sims.Lookup("spring")
	if err != nil {
		t.Fatal(err)
	}
	cfg := core.DefaultConfig(sys, core.LNP)
	t.Setenv(core.MemoryBudgetEnv, "1")
	if _, err := newTrainee(cfg, core.DefaultRecalibrationTasks); err == nil || !strings.Contains(err.Error(), "more than the 1.0 MB available") {
		t.Errorf("budget 1 MB: error %v, want the memory refusal", err)
	}
	t.Setenv(core.MemoryBudgetEnv, "4000")
	if m, err := newTrainee(cfg, core.DefaultRecalibrationTasks); err != nil || m == nil {
		t.Errorf("budget 4 GB: %v", err)
	}
}

// TestNewTraineeRefusesRecalibrationBeyondMemory: a run whose training
// fits the budget but whose recalibration after it does not is refused
// before it starts, naming the recalibration.
func TestNewTraineeRefusesRecalibrationBeyondMemory(t *testing.T) {
	sys, err := sims.Lookup("advdiff")
	if err != nil {
		t.Fatal(err)
	}
	cfg := core.DefaultConfig(sys, core.LNP)
	cfg.Train.Batch = 1 // a small step, below the recalibration's memory
	m, err := core.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	train, err := m.ProbeTrainMemory()
	if err != nil {
		t.Fatal(err)
	}
	both := train
	both.Recal = core.EstimateRecalMemory(cfg, core.DefaultRecalibrationTasks, core.RecalWhole)
	if both.Total() <= train.Total()+1e6 {
		t.Fatalf("advdiff's recalibration (%s) does not exceed its training (%s): pick another case", core.ByteSize(both.Total()), core.ByteSize(train.Total()))
	}
	budget := (train.Total()+both.Total())/2/1e6 + 1
	t.Setenv(core.MemoryBudgetEnv, strconv.FormatInt(budget, 10))
	if _, err := newTrainee(cfg, core.DefaultRecalibrationTasks); err == nil || !strings.Contains(err.Error(), "the recalibration after training would need") {
		t.Errorf("budget %d MB, training %s, with the recalibration %s: error %v", budget, core.ByteSize(train.Total()), core.ByteSize(both.Total()), err)
	}
	if _, err := newTrainee(cfg, 0); err != nil {
		t.Errorf("budget %d MB without recalibration: %v", budget, err)
	}
}
