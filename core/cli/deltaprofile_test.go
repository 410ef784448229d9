package cli

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestTrainRecalibrateDeltaProfileOnly: --recalibrate-only delta-profile
// fits δ's time profile and single scale of the default and the
// one-pass spread, says what it fitted, and changes nothing else.
func TestTrainRecalibrateDeltaProfileOnly(t *testing.T) {
	dir := t.TempDir()
	first, before, _ := trainTiny(t, dir)
	after := recalibrateOnly(t, dir, first, "delta-profile", "48", "fitted δ's time profile and scale only: δ time profile ")
	want := before.Config.Infer
	got := after.Config.Infer
	want.DeltaProfile, want.DeltaStdScale = got.DeltaProfile, got.DeltaStdScale
	if want.OnePass != nil && got.OnePass != nil {
		op := *want.OnePass
		op.DeltaProfile, op.DeltaStdScale = got.OnePass.DeltaProfile, got.OnePass.DeltaStdScale
		want.OnePass = &op
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("inference settings changed beyond δ's profile and scale:\nbefore %+v\nafter  %+v", before.Config.Infer, got)
	}
	if name := sameWeightsCLI(before, after); name != "" {
		t.Errorf("weights changed (first at %s)", name)
	}
	second := filepath.Join(dir, "third.safetensors")
	code, _, stderr := runCLI(t, "train", "--init", first, "--steps1", "0", "--steps2", "3", "--recalibrate-only", "delta-profile", "--out", second)
	if code != 2 || !strings.Contains(stderr, "--recalibrate-only delta-profile needs --init FILE --steps1 0 --steps2 0") {
		t.Errorf("with training steps: exit %d, stderr %q", code, stderr)
	}
}
