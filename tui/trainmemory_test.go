package tui

import (
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
	if _, err := newTrainee(cfg); err == nil || !strings.Contains(err.Error(), "more than the 1.0 MB available") {
		t.Errorf("budget 1 MB: error %v, want the memory refusal", err)
	}
	t.Setenv(core.MemoryBudgetEnv, "4000")
	if m, err := newTrainee(cfg); err != nil || m == nil {
		t.Errorf("budget 4 GB: %v", err)
	}
}
