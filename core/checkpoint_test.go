package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"apic/nets"
	"apic/sims"
)

// encodeModel returns m's checkpoint bytes.
func encodeModel(t testing.TB, m *Model, info Info, dtype nets.DType) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := EncodeCheckpoint(&buf, m, info, dtype); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// predictAll runs Predict on fixed tasks with a fixed seed.
func predictAll(t *testing.T, m *Model, tasks []sims.Task) []Prediction {
	t.Helper()
	ctxs, sides := contextsOf(tasks)
	preds, err := m.Predict(ctxs, sides, 4, 17)
	if err != nil {
		t.Fatal(err)
	}
	return preds
}

// predictionFields lists a prediction's slices for comparison.
func predictionFields(p Prediction) map[string][]float64 {
	return map[string][]float64{
		"Mean": p.Mean, "Std": p.Std, "DeltaMean": p.DeltaMean, "DeltaStd": p.DeltaStd,
		"Nominal": p.Nominal, "Theta": p.Theta, "ThetaStd": p.ThetaStd,
	}
}

// comparePredictions fails unless a and b agree within rel·max(1, |a|)
// (rel 0: bit for bit).
func comparePredictions(t *testing.T, a, b []Prediction, rel float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d vs %d predictions", len(a), len(b))
	}
	for i := range a {
		fa, fb := predictionFields(a[i]), predictionFields(b[i])
		for name, xs := range fa {
			ys := fb[name]
			if len(xs) != len(ys) {
				t.Fatalf("prediction %d %s: lengths %d, %d", i, name, len(xs), len(ys))
			}
			for j, x := range xs {
				y := ys[j]
				if rel == 0 && math.Float64bits(x) != math.Float64bits(y) ||
					rel > 0 && math.Abs(x-y) > rel*math.Max(1, math.Abs(x)) {
					t.Fatalf("prediction %d %s[%d]: %v vs %v", i, name, j, x, y)
				}
			}
		}
		if a[i].Clipped != b[i].Clipped {
			t.Fatalf("prediction %d: Clipped %v vs %v", i, a[i].Clipped, b[i].Clipped)
		}
	}
}

// TestCheckpointRoundTrip: F64 checkpoints reproduce predictions bit for
// bit, F32 ones to float32 precision, for every system and backbone, with
// the usual f_ψ and (where the closure allows one) a basis decoder.
func TestCheckpointRoundTrip(t *testing.T) {
	for _, sys := range sims.All() {
		for _, b := range Backbones {
			for _, basis := range []int{0, 4} {
				edit := func(c *Config) { c.Arch.Hidden, c.Arch.DecHidden, c.Arch.Basis = 16, 16, basis }
				if cfg := tinyConfig(t, sys.Name(), b); basis > 0 {
					if edit(&cfg); cfg.Validate() != nil {
						continue // advdiff's reaction rate takes no basis
					}
				}
				t.Run(fmt.Sprintf("%s/%s/basis%d", sys.Name(), b, basis), func(t *testing.T) {
					checkRoundTrip(t, sys, tinyModel(t, sys.Name(), b, edit))
				})
			}
		}
	}
}

// checkRoundTrip encodes m (perturbed) as F64 and F32 and compares the
// decoded models' configs, weights and predictions with m's.
func checkRoundTrip(t *testing.T, sys sims.System, m *Model) {
	perturb(m, 3, 0.05)
	tasks := testTasks(t, sys, 3, 0, 5)
	want := predictAll(t, m, tasks)

	m64, _, err := DecodeCheckpoint(encodeModel(t, m, Info{}, nets.F64))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m64.Config, m.Config) {
		t.Errorf("config %+v, want %+v", m64.Config, m.Config)
	}
	if name := sameWeights(m64, m.Params.Snapshot()); name != "" {
		t.Errorf("F64 weights differ at %s", name)
	}
	comparePredictions(t, want, predictAll(t, m64, tasks), 0)

	m32, _, err := DecodeCheckpoint(encodeModel(t, m, Info{}, nets.F32))
	if err != nil {
		t.Fatal(err)
	}
	comparePredictions(t, want, predictAll(t, m32, tasks), 1e-5)
}

func TestCheckpointInfoRoundTrip(t *testing.T) {
	m := tinyModel(t, "lv", ANP, nil)
	info := Info{Steps1: 12, Steps2: 34, WallSeconds: 5.25, Init: "runs/a.safetensors", InitSHA256: strings.Repeat("0f", 32), Metrics: &Report{
		System: "lv", Backbone: "anp", Tasks: 4, Context: 30, Noise: 0.05, Seed: 9, Samples: 8,
		Metrics:       map[string]Summary{KeyReconMAE: {Mean: 0.125, Std: 0.5}, KeyThetaMAE: {Mean: 1.5, Std: 0.25}},
		ThetaPerParam: map[string]Summary{"alpha": {Mean: 0.1, Std: 0.2}},
	}}
	data := encodeModel(t, m, info, nets.F32)
	_, got, err := DecodeCheckpoint(data)
	if err != nil {
		t.Fatal(err)
	}
	// Not stored: the loader reads it off the bytes.
	if sum := sha256.Sum256(data); got.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("SHA256 %q, want the bytes' %x", got.SHA256, sum)
	}
	got.SHA256 = ""
	if !reflect.DeepEqual(got, info) {
		t.Errorf("info %+v (metrics %+v), want %+v (metrics %+v)", got, got.Metrics, info, info.Metrics)
	}
	_, got, err = DecodeCheckpoint(encodeModel(t, m, Info{Steps1: 1}, nets.F32))
	if err != nil || got.Metrics != nil || got.Steps1 != 1 {
		t.Errorf("info without metrics: %+v, %v", got, err)
	}
	// The metadata says what the file is.
	f, err := nets.DecodeSafetensors(encodeModel(t, m, info, nets.F32))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"format": FormatName, "format_version": "1", "system": "lv", "backbone": "anp", "steps1": "12", "steps2": "34"} {
		if f.Metadata[k] != want {
			t.Errorf("metadata %s = %q, want %q", k, f.Metadata[k], want)
		}
	}
}

// TestCheckpointRefusesBadInfo: the training record of the metadata is
// read strictly (the data checksum does not cover it): a negative or
// non-numeric step count, a wall time that is not a finite number ≥ 0,
// an unfinished flag other than true or false are refused, naming the
// key and the value; absent entries still read as 0.
func TestCheckpointRefusesBadInfo(t *testing.T) {
	m := fuzzModel(t)
	ts, base := checkpointParts(t, m)
	decode := func(meta map[string]string) (Info, error) {
		t.Helper()
		var buf bytes.Buffer
		if err := nets.EncodeSafetensors(&buf, ts, nil, meta, nets.F64); err != nil {
			t.Fatal(err)
		}
		_, info, err := DecodeCheckpoint(buf.Bytes())
		return info, err
	}
	for _, c := range []struct{ key, value string }{
		{"wall_seconds", "NaN"}, {"wall_seconds", "Inf"}, {"wall_seconds", "-Inf"}, {"wall_seconds", "1e400"},
		{"wall_seconds", "-3"}, {"wall_seconds", "abc"}, {"wall_seconds", ""},
		{"steps1", "-5"}, {"steps1", "abc"}, {"steps1", ""}, {"steps1", "1.5"}, {"steps1", "99999999999999999999"},
		{"steps2", "-1"}, {"steps2", " 3"}, {"validation_step", "x"}, {"unfinished", "yes"},
		// Within int, beyond the record's bounds: a fine-tuning run's
		// steps added to them would overflow.
		{"steps1", "9223372036854775807"}, {"steps2", "100000000000001"}, {"validation_step", "9223372036854775807"},
		{"wall_seconds", "1e308"},
	} {
		meta := maps.Clone(base)
		meta[c.key] = c.value
		_, err := decode(meta)
		if err == nil || !strings.Contains(err.Error(), c.key) || !strings.Contains(err.Error(), fmt.Sprintf("%q", c.value)) {
			t.Errorf("%s %q: error %v, want one naming the key and the value", c.key, c.value, err)
		}
	}
	meta := maps.Clone(base)
	meta["steps2"], meta["wall_seconds"], meta["unfinished"], meta["validation_step"] = "7", "12.5", "true", "3"
	if info, err := decode(meta); err != nil || info.Steps2 != 7 || info.WallSeconds != 12.5 || !info.Unfinished || info.ValidationStep != 3 {
		t.Errorf("good entries: %+v, %v", info, err)
	}
	if maxRecordedSteps != 1_000_000*LimitTrainSteps.Max {
		t.Errorf("maxRecordedSteps %d is not a million runs of %d steps", maxRecordedSteps, LimitTrainSteps.Max)
	}
	meta["steps1"], meta["wall_seconds"] = strconv.Itoa(maxRecordedSteps), "3.2e13"
	if info, err := decode(meta); err != nil || info.Steps1 != maxRecordedSteps || info.Steps1+LimitTrainSteps.Max < 0 {
		t.Errorf("entries at the bounds: %+v, %v", info, err)
	}
	for _, k := range []string{"steps1", "steps2", "wall_seconds"} {
		delete(meta, k)
	}
	if info, err := decode(meta); err != nil || info.Steps1 != 0 || info.WallSeconds != 0 {
		t.Errorf("absent entries: %+v, %v", info, err)
	}
	// A fine-tuned file's parent: both entries or neither, a hash of 64
	// lowercase hex digits, a name without control characters.
	good := strings.Repeat("ab", 32)
	for _, c := range []struct{ name, sum, wantKey, wantValue string }{
		{"p.safetensors", "abc", "init_sha256", `"abc"`},
		{"p.safetensors", strings.ToUpper(good), "init_sha256", strings.ToUpper(good)},
		{"p.safetensors", "", "init_sha256", `""`},
		{"", good, "init", `""`},
		{"p\x1b[2J.safetensors", good, "init", `"p\x1b[2J.safetensors"`},
	} {
		meta := maps.Clone(base)
		if c.name != "" {
			meta["init"] = c.name
		}
		if c.sum != "" {
			meta["init_sha256"] = c.sum
		}
		_, err := decode(meta)
		if err == nil || !strings.Contains(err.Error(), "bad "+c.wantKey+" metadata") || !strings.Contains(err.Error(), c.wantValue) {
			t.Errorf("init %q, init_sha256 %q: error %v, want one naming %s and %s", c.name, c.sum, err, c.wantKey, c.wantValue)
		}
	}
	meta["init"], meta["init_sha256"] = "embedded:spring-lnp.safetensors", good
	if info, err := decode(meta); err != nil || info.Init != "embedded:spring-lnp.safetensors" || info.InitSHA256 != good {
		t.Errorf("a parent recorded: %+v, %v", info, err)
	}
}

func TestSaveLoadCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.safetensors")
	m := tinyModel(t, "spring", LNP, nil)
	perturb(m, 4, 0.05)
	info := Info{Steps1: 3, Steps2: 4, WallSeconds: 1.5}
	if err := SaveCheckpoint(path, m, info, nets.F64); err != nil {
		t.Fatal(err)
	}
	// Saving again over the file works and leaves no temporary behind.
	if err := SaveCheckpoint(path, m, info, nets.F64); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "model.safetensors" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only model.safetensors", names)
	}
	got, gotInfo, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if gotInfo.Steps1 != 3 || gotInfo.Steps2 != 4 || gotInfo.WallSeconds != 1.5 {
		t.Errorf("info %+v", gotInfo)
	}
	tasks := testTasks(t, m.Sys, 2, 0, 1)
	comparePredictions(t, predictAll(t, m, tasks), predictAll(t, got, tasks), 0)

	missing := filepath.Join(dir, "nope.safetensors")
	if _, _, err := LoadCheckpoint(missing); err == nil || !strings.Contains(err.Error(), "nope.safetensors") {
		t.Errorf("loading a missing file: %v, want an error naming it", err)
	}
	if err := SaveCheckpoint(filepath.Join(dir, "no", "such", "dir", "m.safetensors"), m, info, nets.F64); err == nil {
		t.Error("saving into a missing directory succeeded")
	}
	if err := SaveCheckpoint(filepath.Join(dir, "bad.safetensors"), m, info, nets.DType("BF16")); err == nil {
		t.Error("saving with an unsupported dtype succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.safetensors")); !os.IsNotExist(err) {
		t.Error("a failed save left a file behind")
	}
	// Only a name ending in .safetensors is written, whoever saves.
	for _, save := range []func(string, *Model, Info, nets.DType) error{SaveCheckpoint, SaveNewCheckpoint} {
		other := filepath.Join(dir, "m.ckpt")
		if err := save(other, m, info, nets.F64); err == nil || !strings.Contains(err.Error(), "ends in .safetensors (try ") {
			t.Errorf("saving to %s: %v, want it refused by its name", other, err)
		}
		if _, err := os.Lstat(other); !os.IsNotExist(err) {
			t.Errorf("a save refused by its name wrote %s", other)
		}
	}
}

// TestSaveRefusesUnloadableWeights: weights that would not load back
// (NaN, or values beyond float32's range, which F32 stores as Inf) are
// refused by the save, which leaves no file; F64 holds the large value.
func TestSaveRefusesUnloadableWeights(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		value float64
		dtype nets.DType
		want  string
	}{{1e39, nets.F32, "beyond the range of the F32 storage type"}, {math.NaN(), nets.F64, "holds NaN"}, {math.Inf(1), nets.F64, "holds +Inf"}} {
		m := tinyModel(t, "spring", LNP, nil)
		m.Params.List()[1].Value.Data[2] = tc.value
		path := filepath.Join(dir, "bad.safetensors")
		err := SaveCheckpoint(path, m, Info{}, tc.dtype)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), m.Params.List()[1].Name) {
			t.Errorf("%v in %s: error %v, want one naming the parameter and %q", tc.value, tc.dtype, err, tc.want)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%v in %s: a refused save left a file", tc.value, tc.dtype)
		}
	}
	m := tinyModel(t, "spring", LNP, nil)
	m.Params.List()[1].Value.Data[2] = 1e39
	path := filepath.Join(dir, "f64.safetensors")
	if err := SaveCheckpoint(path, m, Info{}, nets.F64); err != nil {
		t.Fatal(err)
	}
	if got, _, err := LoadCheckpoint(path); err != nil || got.Params.List()[1].Value.Data[2] != 1e39 {
		t.Errorf("F64 file of a large finite weight: %v", err)
	}
}

// withoutHeaderEntry removes tensor name's entry from a safetensors
// file's header, keeping its data and every other byte.
func withoutHeaderEntry(t *testing.T, file []byte, name string) []byte {
	t.Helper()
	n := binary.LittleEndian.Uint64(file)
	var hdr map[string]json.RawMessage
	if err := json.Unmarshal(file[8:8+n], &hdr); err != nil {
		t.Fatal(err)
	}
	if _, ok := hdr[name]; !ok {
		t.Fatalf("no header entry %q", name)
	}
	delete(hdr, name)
	b, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(b)))
	return append(append(out, b...), file[8+n:]...)
}

// checkpointParts decodes a valid checkpoint into editable tensors and
// metadata.
func checkpointParts(t testing.TB, m *Model) (map[string]*nets.Tensor, map[string]string) {
	t.Helper()
	f, err := nets.DecodeSafetensors(encodeModel(t, m, Info{Steps1: 1}, nets.F64))
	if err != nil {
		t.Fatal(err)
	}
	return f.Tensors, f.Metadata
}

// TestCheckpointRefusals: damaged or mismatched files are refused with an
// error that says why.
func TestCheckpointRefusals(t *testing.T) {
	m := tinyModel(t, "spring", ANP, nil)
	good := encodeModel(t, m, Info{}, nets.F64)
	hdrLen := int(binary.LittleEndian.Uint64(good))

	t.Run("truncated", func(t *testing.T) {
		for _, n := range []int{0, 5, 8, 9, 8 + hdrLen/2, 8 + hdrLen - 1, 8 + hdrLen, 8 + hdrLen + 3, len(good) / 2, len(good) - 8, len(good) - 1} {
			if _, _, err := DecodeCheckpoint(good[:n]); err == nil {
				t.Errorf("a %d-byte prefix of %d was accepted", n, len(good))
			}
		}
		if _, _, err := DecodeCheckpoint(append(append([]byte{}, good...), 0)); err == nil {
			t.Error("a trailing byte was accepted")
		}
	})

	t.Run("bit-flipped header", func(t *testing.T) {
		offsets := regexp.MustCompile(`"data_offsets":\[0,`).FindIndex(good[8 : 8+hdrLen])
		name := bytes.Index(good[8:8+hdrLen], []byte(`"fpsi.`))
		if offsets == nil || name < 0 {
			t.Fatal("test cannot find its landmarks in the header")
		}
		for _, c := range []struct {
			what string
			at   int
			bit  byte
		}{
			{"header length", 0, 0x01},
			{"header length high byte", 3, 0x10},
			{"opening brace", 8, 0x02},
			{"a tensor name", 8 + name + 1, 0x01},
			{"a data offset", 8 + offsets[1], 0x01},
			{"closing brace", 8 + bytes.LastIndexByte(good[8:8+hdrLen], '}'), 0x04},
		} {
			bad := append([]byte{}, good...)
			bad[c.at] ^= c.bit
			if _, _, err := DecodeCheckpoint(bad); err == nil {
				t.Errorf("flipping a bit of %s (byte %d) was accepted", c.what, c.at)
			} else {
				t.Logf("%s: %v", c.what, err)
			}
		}
	})

	cases := []struct {
		name string
		edit func(ts map[string]*nets.Tensor, meta map[string]string)
		want string // a substring the error must contain
	}{
		{"wrong format name", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["format"] = "pytorch" }, "not an apic checkpoint"},
		{"no format", func(_ map[string]*nets.Tensor, meta map[string]string) { delete(meta, "format") }, "not an apic checkpoint"},
		{"newer format version", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["format_version"] = "3" }, "newer"},
		{"bad format version", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["format_version"] = "one" }, "format_version"},
		{"system mismatch", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["system"] = "lv" }, "disagree"},
		{"backbone mismatch", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["backbone"] = "lnp" }, "disagree"},
		{"bad config JSON", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["config"] = `{"arch":` }, "config"},
		{"invalid config", func(_ map[string]*nets.Tensor, meta map[string]string) {
			meta["config"] = strings.Replace(meta["config"], `"batch":16`, `"batch":0`, 1)
		}, "batch"},
		{"config asks for an impossible width", func(_ map[string]*nets.Tensor, meta map[string]string) {
			// Building this model would need terabytes: refused before any
			// allocation, not an out-of-memory crash.
			meta["config"] = strings.Replace(meta["config"], `"hidden":32`, `"hidden":2147483648`, 1)
		}, "hidden must be between 1 and 4096"},
		{"config declares another architecture", func(_ map[string]*nets.Tensor, meta map[string]string) {
			meta["config"] = strings.Replace(meta["config"], `"dec_hidden":32`, `"dec_hidden":24`, 1)
		}, "declared architecture"},
		{"config adds the grid summary", func(_ map[string]*nets.Tensor, meta map[string]string) {
			meta["config"] = strings.Replace(meta["config"], `"grid_summary":false`, `"grid_summary":true`, 1)
		}, "missing [disc.grid."},
		{"config declares another system", func(_ map[string]*nets.Tensor, meta map[string]string) {
			meta["config"] = strings.Replace(meta["config"], `"system":"spring"`, `"system":"lv"`, 1)
			meta["system"] = "lv"
		}, "declared architecture"},
		{"missing tensor", func(ts map[string]*nets.Tensor, _ map[string]string) { delete(ts, "obs.lognoise") }, "architecture: missing [obs.lognoise]"},
		{"extra tensor", func(ts map[string]*nets.Tensor, _ map[string]string) { ts["extra.W"] = nets.NewTensor(2, 2) }, "architecture: unexpected [extra.W]"},
		// A name with an escape sequence is quoted, not printed to act
		// on the terminal.
		{"extra tensor named with an escape", func(ts map[string]*nets.Tensor, _ map[string]string) {
			ts["x\x1b[2J"] = nets.NewTensor(2, 2)
		}, `unexpected ["x\x1b[2J"]`},
		{"tensor of the wrong size", func(ts map[string]*nets.Tensor, _ map[string]string) {
			w := ts["fpsi.0.W"]
			ts["fpsi.0.W"] = nets.NewTensor(w.Rows-1, w.Cols)
		}, "fpsi.0.W"},
		{"tensor of the wrong shape", func(ts map[string]*nets.Tensor, _ map[string]string) {
			w := ts["fpsi.0.W"]
			ts["fpsi.0.W"] = nets.NewTensor(w.Cols, w.Rows) // same count, transposed
		}, "fpsi.0.W"},
		{"NaN weight", func(ts map[string]*nets.Tensor, _ map[string]string) { ts["gphi.0.W"].Data[3] = math.NaN() }, "NaN"},
		{"Inf weight", func(ts map[string]*nets.Tensor, _ map[string]string) { ts["phys.head.b"].Data[0] = math.Inf(1) }, "Inf"},
		{"bad metrics", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["metrics"] = "[1, 2" }, "metrics"},
		// Issue 19's hostile files.
		{"format version 0", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["format_version"] = "0" }, "this program reads versions 1 to 2"},
		{"format version +1", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["format_version"] = "+1" }, "this program reads checkpoint format versions 1 to 2"},
		{"format version far ahead", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["format_version"] = "99" }, "newer than this program's 2"},
		{"config without arch", func(_ map[string]*nets.Tensor, meta map[string]string) {
			var cfg map[string]json.RawMessage
			if err := json.Unmarshal([]byte(meta["config"]), &cfg); err != nil {
				panic(err)
			}
			delete(cfg, "arch")
			b, _ := json.Marshal(cfg)
			meta["config"] = string(b)
		}, "the config metadata declares no architecture"},
		{"huge format name", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["format"] = strings.Repeat("h", 1<<20) }, `"hhhh`},
		{"huge system name", func(_ map[string]*nets.Tensor, meta map[string]string) { meta["system"] = strings.Repeat("s", 1<<20) }, "(1048576 bytes)"},
		{"huge config number", func(_ map[string]*nets.Tensor, meta map[string]string) {
			meta["config"] = strings.Replace(meta["config"], `"batch":16`, `"batch":"`+strings.Repeat("9", 1<<20)+`"`, 1)
		}, "bad config metadata"},
		{"lognoise 1e30", func(ts map[string]*nets.Tensor, _ map[string]string) { ts["obs.lognoise"].Data[0] = 1e30 }, `tensor "obs.lognoise" holds 1e+30`},
		{"lognoise -1e3", func(ts map[string]*nets.Tensor, _ map[string]string) { ts["obs.lognoise"].Data[0] = -1e3 }, "outside e^±100"},
		{"val_tasks 1e9", func(_ map[string]*nets.Tensor, meta map[string]string) {
			meta["config"] = regexp.MustCompile(`"val_tasks":\d+`).ReplaceAllString(meta["config"], `"val_tasks":1000000000`)
		}, "train.val_tasks: val-tasks must be between 0 and 2000"},
		{"config declares a huge model", func(_ map[string]*nets.Tensor, meta map[string]string) {
			// 4096 wide and 32 deep is valid, but 2 GB of weights that the
			// file does not hold: refused before NewModel allocates them.
			meta["config"] = strings.Replace(meta["config"], `"hidden":32`, `"hidden":4096`, 1)
			meta["config"] = regexp.MustCompile(`"layers":\d+`).ReplaceAllString(meta["config"], `"layers":32`)
		}, "the config declares a model of at least"},
		// encoding/json reads 1e-400 as 0 without a word: a weight
		// written tiny would read as switched off.
		{"config number that underflows", func(_ map[string]*nets.Tensor, meta map[string]string) {
			meta["config"] = strings.Replace(meta["config"], `"lambda_delta":1,`, `"lambda_delta":1e-99999,`, 1)
		}, `bad config metadata: the number "1e-99999" is nonzero but below float64's smallest magnitude`},
		{"refine 1e9", func(_ map[string]*nets.Tensor, meta map[string]string) {
			meta["config"] = regexp.MustCompile(`"refine":\d+`).ReplaceAllString(meta["config"], `"refine":1000000000`)
		}, "infer.refine: refine must be between 0 and 1000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts, meta := checkpointParts(t, m)
			c.edit(ts, meta)
			var buf bytes.Buffer
			if err := nets.EncodeSafetensors(&buf, ts, nil, meta, nets.F64); err != nil {
				t.Fatal(err)
			}
			_, _, err := DecodeCheckpoint(buf.Bytes())
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", cutMessage(err), c.want)
			}
			if strings.Contains(err.Error(), "[]") {
				t.Errorf("error %q names an empty list", cutMessage(err))
			}
			if len(err.Error()) > 600 {
				t.Errorf("a %d-byte error message", len(err.Error()))
			}
		})
	}

	t.Run("flipped data bit", func(t *testing.T) {
		bad := append([]byte{}, good...)
		bad[len(bad)-3] ^= 0x10
		if _, _, err := DecodeCheckpoint(bad); err == nil || !strings.Contains(err.Error(), "do not match the checksum") {
			t.Errorf("a flipped bit in the weights: %v", err)
		}
	})

	t.Run("tensor missing from the header", func(t *testing.T) {
		// The entry is removed, its bytes stay: the error names the
		// tensor, not only the bytes no entry covers.
		bad := withoutHeaderEntry(t, good, "obs.lognoise")
		_, _, err := DecodeCheckpoint(bad)
		if err == nil || !strings.Contains(err.Error(), "the header has no entry for tensor(s) [obs.lognoise]") {
			t.Errorf("error %v, want one naming obs.lognoise", err)
		}
	})

	t.Run("tensor of another rank", func(t *testing.T) {
		// The same values as [rows, cols/2, 2]: the count fits, the shape
		// does not.
		ts, meta := checkpointParts(t, m)
		w := ts["fpsi.0.W"]
		if w.Cols%2 != 0 {
			t.Fatalf("fpsi.0.W is %s; the test needs an even column count", w.Shape())
		}
		var buf bytes.Buffer
		if err := nets.EncodeSafetensors(&buf, ts, map[string][]int{"fpsi.0.W": {w.Rows, w.Cols / 2, 2}}, meta, nets.F64); err != nil {
			t.Fatal(err)
		}
		if _, _, err := DecodeCheckpoint(buf.Bytes()); err == nil || !strings.Contains(err.Error(), "fpsi.0.W") {
			t.Errorf("a rank-3 fpsi.0.W: error %v, want one naming the tensor", err)
		}
	})

	// The unedited parts decode, so the refusals above are the edits'.
	ts, meta := checkpointParts(t, m)
	var buf bytes.Buffer
	if err := nets.EncodeSafetensors(&buf, ts, nil, meta, nets.F64); err != nil {
		t.Fatal(err)
	}
	if _, _, err := DecodeCheckpoint(buf.Bytes()); err != nil {
		t.Fatalf("re-encoded good checkpoint refused: %v", err)
	}
	// The metadata the refusal tests edit has the expected form.
	var cfg Config
	if err := json.Unmarshal([]byte(meta["config"]), &cfg); err != nil || cfg.Train.Batch != 16 || cfg.Arch.DecHidden != 32 || cfg.Arch.GridSummary {
		t.Fatalf("config metadata %q: %v", meta["config"], err)
	}
}

// TestMinParamsIsALowerBound: the bound that refuses a config declaring
// a far larger model than the file's tensors is never above the real
// parameter count, for every system, backbone and a few shapes.
func TestMinParamsIsALowerBound(t *testing.T) {
	for _, name := range sims.Names() {
		sys, _ := sims.Lookup(name)
		for _, b := range Backbones {
			for _, edit := range []func(*Config){
				func(*Config) {},
				func(c *Config) { c.Arch.Layers, c.Arch.DecLayers = 1, 1 },
				func(c *Config) { c.Arch.LatentTheta, c.Arch.LatentDelta = 2, 16 },
				func(c *Config) { c.Arch.GridSummary = true },
			} {
				cfg := DefaultConfig(sys, b)
				cfg.Arch.Hidden, cfg.Arch.DecHidden = 16, 12
				edit(&cfg)
				m, err := NewModel(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if least, n := minParams(cfg.Arch), m.Params.Count(); least > n || least == 0 {
					t.Errorf("%s/%s %+v: bound %d, %d parameters", name, b, cfg.Arch, least, n)
				}
			}
		}
	}
}

// TestDecodeCheckpointConfig: the config read from the header alone is
// the one the full decode builds the model from, and a file that is no
// checkpoint is refused as DecodeCheckpoint refuses it.
func TestDecodeCheckpointConfig(t *testing.T) {
	m := tinyModel(t, "spring", LNP, func(c *Config) { c.Train.LambdaTheta, c.Train.LambdaDelta, c.Train.Reg = 0.2, 5, RegGradPen })
	data := encodeModel(t, m, Info{}, nets.F32)
	cfg, err := DecodeCheckpointConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, m.Config) {
		t.Errorf("config %+v, want %+v", cfg, m.Config)
	}
	var other bytes.Buffer
	if err := nets.EncodeSafetensors(&other, map[string]*nets.Tensor{"w": nets.Scalar(1)}, nil, map[string]string{"format": "pt"}, nets.F32); err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeCheckpointConfig(other.Bytes()); err == nil || !strings.Contains(err.Error(), "not an apic checkpoint") {
		t.Errorf("a foreign file: %v", err)
	}
}

// TestDecodeCheckpointInfo: the training record read from the header
// bytes alone is the one written, and a file that is no checkpoint or
// records a malformed step count is refused.
func TestDecodeCheckpointInfo(t *testing.T) {
	m := tinyModel(t, "spring", CNP, nil)
	want := Info{Steps1: 7, Steps2: 3, WallSeconds: 1.5, Unfinished: true}
	data := encodeModel(t, m, want, nets.F32)
	header := data[:8+binary.LittleEndian.Uint64(data[:8])]
	if got, err := DecodeCheckpointInfo(header); err != nil || got != want {
		t.Errorf("info %+v, %v; want %+v", got, err, want)
	}
	for _, c := range []struct {
		meta map[string]string
		why  string
	}{
		{map[string]string{"format": "pt"}, "not an apic checkpoint"},
		{map[string]string{"format": FormatName, "format_version": "1", "steps1": "-5"}, "bad steps1"},
	} {
		var other bytes.Buffer
		if err := nets.EncodeSafetensors(&other, map[string]*nets.Tensor{"w": nets.Scalar(1)}, nil, c.meta, nets.F32); err != nil {
			t.Fatal(err)
		}
		if info, err := DecodeCheckpointInfo(other.Bytes()); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("metadata %v: %+v, %v; want an error with %q", c.meta, info, err, c.why)
		}
	}
}

// A diverging run can leave a finite log noise beyond what the loader
// accepts: CheckStorable refuses it, so no file is written that no
// command can load.
func TestCheckStorableRefusesUnloadableLogNoise(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	if err := CheckStorable(m, nets.F32); err != nil {
		t.Fatal(err)
	}
	m.logNoise.Value.Data[0] = 657
	if err := CheckStorable(m, nets.F64); err == nil || !strings.Contains(err.Error(), "obs.lognoise holds 657") {
		t.Errorf("log noise 657: %v", err)
	}
}

// A stored validation report is shown by inspect and carried into a
// fine-tuned file: one that no run of the file's system could write (a
// negative count of realizations, another system's name) is refused,
// naming what is wrong; a plausible one reads back.
func TestCheckpointRefusesBadRecordedReport(t *testing.T) {
	m := fuzzModel(t)
	ts, base := checkpointParts(t, m)
	decode := func(r Report) (Info, error) {
		t.Helper()
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		meta := maps.Clone(base)
		meta["metrics"] = string(b)
		var buf bytes.Buffer
		if err := nets.EncodeSafetensors(&buf, ts, nil, meta, nets.F64); err != nil {
			t.Fatal(err)
		}
		_, info, err := DecodeCheckpoint(buf.Bytes())
		return info, err
	}
	sys := m.Config.Arch.System
	for _, c := range []struct {
		r    Report
		want string
	}{
		{Report{System: sys, Tasks: -5, Context: 30}, "-5 validation realizations, want 0 to 2000"},
		{Report{System: sys, Tasks: 32, Context: -1}, "validation context -1"},
		{Report{System: "nosuch", Tasks: 32, Context: 30}, `the validation is of system "nosuch"`},
		// inspect and calibrate print these texts: an escape sequence
		// in them would act on the terminal.
		{Report{System: sys, Tasks: 32, Context: 30, Warnings: []string{"w\x1b[2J"}}, `the text "w\x1b[2J" holds a control character`},
		{Report{System: sys, Tasks: 32, Context: 30, Metrics: map[string]Summary{"m\x1b]0;t\a": {}}}, `the text "m\x1b]0;t\a" holds a control character`},
		{Report{System: sys, Tasks: 32, Context: 30, Failures: Failures{Count: 1, Realizations: []Failure{{Index: 2, Reason: "r\x1b[2J"}}}}, `the text "r\x1b[2J" holds a control character`},
	} {
		if _, err := decode(c.r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.r, err, c.want)
		}
	}
	info, err := decode(Report{System: sys, Tasks: 32, Context: 30})
	if err != nil || info.Metrics == nil || info.Metrics.Tasks != 32 {
		t.Errorf("a plausible report: %+v, %v", info.Metrics, err)
	}
}

// A file name may hold a tab or a newline, which the reader refuses in
// a recorded --init name: the writer records it quoted instead, so a
// fine-tune of such a file is not written unreadable.
func TestCheckpointInitNameReadsBack(t *testing.T) {
	m := tinyModel(t, "spring", LNP, nil)
	sum := strings.Repeat("0f", 32)
	long := strings.Repeat("é", maxInitName)
	for _, c := range []struct{ given, want string }{
		{"runs/a.safetensors", "runs/a.safetensors"},
		{"a\tb.safetensors", `"a\tb.safetensors"`},
		{"a\nb\x1b[2J.safetensors", `"a\nb\x1b[2J.safetensors"`},
	} {
		_, got, err := DecodeCheckpoint(encodeModel(t, m, Info{Init: c.given, InitSHA256: sum}, nets.F32))
		if err != nil || got.Init != c.want || got.InitSHA256 != sum {
			t.Errorf("init %q: read back %q %q, %v; want %q", c.given, got.Init, got.InitSHA256, err, c.want)
		}
	}
	_, got, err := DecodeCheckpoint(encodeModel(t, m, Info{Init: long, InitSHA256: sum}, nets.F32))
	if err != nil || len(got.Init) > maxInitName || !utf8.ValidString(got.Init) || !strings.HasPrefix(got.Init, `"éé`) {
		t.Errorf("a %d-byte init name: read back %d bytes, %v", len(long), len(got.Init), err)
	}
}
