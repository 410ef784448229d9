package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"apic/core"
	"apic/nets"
)

// blindThetaCheckpoint saves the embedded spring CNP with its θ map g_φ
// blinded: its last layer's weights and bias zeroed, so that the
// network answers the prior's geometric centre whatever the context,
// while the encoders and the decoder, which refinement fits the context
// with, stay trained.
func blindThetaCheckpoint(t *testing.T) string {
	t.Helper()
	data, ok := lookupEmbedded("spring", "cnp")
	if !ok {
		t.Skip("no embedded spring-cnp")
	}
	m, info, err := core.DecodeCheckpoint(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gphi.2.W", "gphi.2.b"} {
		p := m.Params.Get(name)
		if p == nil {
			t.Fatalf("no tensor %s in spring-cnp", name)
		}
		p.Value.Zero()
	}
	info.Metrics = nil // the file's record is of the trained θ map
	path := filepath.Join(t.TempDir(), "blind.safetensors")
	if err := core.SaveCheckpoint(path, m, info, nets.F64); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvalWarnsWhenRefinementCarriesTheta: a network whose own θ̂ is no
// better than the prior's centre, hidden by refinement's fit to the
// context, is warned about in eval's refined run (text and --json's
// warnings), and not in its one pass, where θ's MAE shows it already.
func TestEvalWarnsWhenRefinementCarriesTheta(t *testing.T) {
	ckpt := blindThetaCheckpoint(t)
	const want = "omega: refinement starts from the network's θ̂, whose mean absolute error"
	code, out, errOut := runCLI(t, "eval", "--checkpoint", ckpt, "--tasks", "20", "--refine", "30", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep core.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), want) {
		t.Errorf("refined θ MAE %.3g; warnings lack %q: %q", rep.ThetaPerParam["omega"].Mean, want, rep.Warnings)
	}
	code, out, errOut = runCLI(t, "eval", "--checkpoint", ckpt, "--tasks", "20", "--refine", "30")
	if code != 0 || !strings.Contains(out, "warning: "+want) {
		t.Errorf("text (exit %d, stderr %q) lacks the warning:\n%s", code, errOut, out)
	}
	code, out, errOut = runCLI(t, "eval", "--checkpoint", ckpt, "--tasks", "20", "--refine", "0")
	if code != 0 || strings.Contains(out, "refinement starts from") || !strings.Contains(out, "answering the prior's centre") {
		t.Errorf("one pass (exit %d, stderr %q): want the prior-centre warning alone:\n%s", code, errOut, out)
	}
}

// TestEvalTrainedThetaMapNoRefinementWarning: the embedded spring CNP,
// whose θ map is trained, gets no such warning.
func TestEvalTrainedThetaMapNoRefinementWarning(t *testing.T) {
	if _, ok := lookupEmbedded("spring", "cnp"); !ok {
		t.Skip("no embedded spring-cnp")
	}
	code, out, errOut := runCLI(t, "eval", "--system", "spring", "--backbone", "cnp", "--tasks", "20")
	if code != 0 || strings.Contains(out, "refinement starts from") {
		t.Errorf("exit %d, stderr %q; output:\n%s", code, errOut, out)
	}
}

// TestDiagnoseWarnsWhenRefinementCarriesTheta: diagnose, which scores θ
// apart from eval, gives the same warning for the blinded θ map in its
// refined run (--json's warnings), and the trained one gets none.
func TestDiagnoseWarnsWhenRefinementCarriesTheta(t *testing.T) {
	ckpt := blindThetaCheckpoint(t)
	const want = "omega: refinement starts from the network's θ̂, whose mean absolute error"
	warnings := func(args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, append([]string{"diagnose", "--tasks", "20", "--refine", "30", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("diagnose %v: exit %d: %s", args, code, errOut)
		}
		var d core.Diagnostics
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		return strings.Join(d.Warnings, "\n")
	}
	if ws := warnings("--checkpoint", ckpt); !strings.Contains(ws, want) {
		t.Errorf("blinded θ map: warnings lack %q: %q", want, ws)
	}
	if ws := warnings("--system", "spring", "--backbone", "cnp"); strings.Contains(ws, "refinement starts from") {
		t.Errorf("trained θ map: %q", ws)
	}
}
