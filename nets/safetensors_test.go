package nets_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"apic/nets"
)

// craft assembles a safetensors file from a literal header and data section.
func craft(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, data...)
}

// f64s is the little-endian F64 encoding of vals.
func f64s(vals ...float64) []byte {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// sampleTensors covers [1,1], a plain matrix, a 3-D shape, rank 0 and 1, an
// empty tensor, and values that are awkward for encoders.
func sampleTensors() (map[string]*nets.Tensor, map[string][]int, map[string]string) {
	tensors := map[string]*nets.Tensor{
		"one":    nets.Scalar(-0.0),
		"matrix": nets.FromSlice(2, 3, []float64{1, -2.5, math.Pi, math.Inf(1), math.Inf(-1), math.NaN()}),
		"cube":   nets.FromSlice(6, 2, []float64{1e-310, 5e-324, math.MaxFloat64, -1e300, 0.1, 1.0 / 3, 7, 8, 9, 10, 11, 12}),
		"vector": nets.FromSlice(1, 4, []float64{1, 2, 3, 4}),
		"scalar": nets.Scalar(42),
		"empty":  nets.NewTensor(0, 3),
	}
	shapes := map[string][]int{"cube": {2, 3, 2}, "vector": {4}, "scalar": {}}
	meta := map[string]string{"format": "pt", "quote\"d": "ünïcödé <&>", "empty": ""}
	return tensors, shapes, meta
}

func encode(t testing.TB, tensors map[string]*nets.Tensor, shapes map[string][]int, meta map[string]string, dtype nets.DType) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := nets.EncodeSafetensors(&buf, tensors, shapes, meta, dtype); err != nil {
		t.Fatalf("encode: %v", err)
	}
	return buf.Bytes()
}

func TestSafetensorsRoundTrip(t *testing.T) {
	for _, dtype := range []nets.DType{nets.F64, nets.F32} {
		t.Run(string(dtype), func(t *testing.T) {
			tensors, shapes, meta := sampleTensors()
			data := encode(t, tensors, shapes, meta, dtype)
			if n := binary.LittleEndian.Uint64(data); n%8 != 0 {
				t.Errorf("header length %d not padded to 8 bytes", n)
			}
			f, err := nets.DecodeSafetensors(data)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if len(f.Tensors) != len(tensors) {
				t.Fatalf("decoded %d tensors, want %d", len(f.Tensors), len(tensors))
			}
			wantDims := map[string][2]int{"one": {1, 1}, "matrix": {2, 3}, "cube": {6, 2}, "vector": {1, 4}, "scalar": {1, 1}, "empty": {0, 3}}
			for name, want := range tensors {
				got := f.Tensors[name]
				if got == nil {
					t.Fatalf("tensor %q missing", name)
				}
				if d := wantDims[name]; got.Rows != d[0] || got.Cols != d[1] {
					t.Errorf("%q: dims %s, want %v", name, got.Shape(), d)
				}
				wantShape, ok := shapes[name]
				if !ok {
					wantShape = []int{want.Rows, want.Cols}
				}
				if !slices.Equal(f.Shapes[name], wantShape) {
					t.Errorf("%q: shape %v, want %v", name, f.Shapes[name], wantShape)
				}
				if f.DTypes[name] != dtype {
					t.Errorf("%q: dtype %s, want %s", name, f.DTypes[name], dtype)
				}
				for i, v := range want.Data {
					w := v
					if dtype == nets.F32 {
						w = float64(float32(v)) // round to nearest float32
						if r := math.Abs(w - v); r > 0x1p-24*math.Abs(v) && r > 0x1p-149 && !math.IsInf(w, 0) && !math.IsNaN(v) {
							t.Errorf("%q[%d]: float32 rounding error %g too large", name, i, r)
						}
					}
					if math.Float64bits(got.Data[i]) != math.Float64bits(w) && !(math.IsNaN(w) && math.IsNaN(got.Data[i])) {
						t.Errorf("%q[%d] = %v, want %v", name, i, got.Data[i], w)
					}
				}
			}
			if len(f.Metadata) != len(meta) {
				t.Errorf("metadata %v, want %v", f.Metadata, meta)
			}
			for k, v := range meta {
				if f.Metadata[k] != v {
					t.Errorf("metadata[%q] = %q, want %q", k, f.Metadata[k], v)
				}
			}
		})
	}
}

// TestSafetensorsLayout checks the header against the format: sorted,
// contiguous offsets from 0 and space padding.
func TestSafetensorsLayout(t *testing.T) {
	tensors := map[string]*nets.Tensor{"b": nets.NewTensor(2, 2), "a": nets.NewTensor(1, 3)}
	data := encode(t, tensors, nil, nil, nets.F32)
	n := binary.LittleEndian.Uint64(data)
	header := string(data[8 : 8+n])
	zeros := sha256.Sum256(make([]byte, 28))
	want := `{"__metadata__":{"data_sha256":"` + hex.EncodeToString(zeros[:]) + `"},` +
		`"a":{"dtype":"F32","shape":[1,3],"data_offsets":[0,12]},"b":{"dtype":"F32","shape":[2,2],"data_offsets":[12,28]}}`
	if strings.TrimRight(header, " ") != want {
		t.Errorf("header %q, want %q", header, want)
	}
	if len(data) != 8+int(n)+28 {
		t.Errorf("file is %d bytes, want %d", len(data), 8+int(n)+28)
	}
}

func TestEncodeSafetensorsRejects(t *testing.T) {
	ok := nets.NewTensor(2, 3)
	for _, tc := range []struct {
		name    string
		tensors map[string]*nets.Tensor
		shapes  map[string][]int
		meta    map[string]string
		dtype   nets.DType
		want    string
	}{
		{"dtype", map[string]*nets.Tensor{"x": ok}, nil, nil, "F16", "unsupported dtype"},
		{"shape count", map[string]*nets.Tensor{"x": ok}, map[string][]int{"x": {5}}, nil, nets.F64, `"x"`},
		{"negative shape", map[string]*nets.Tensor{"x": ok}, map[string][]int{"x": {-2, -3}}, nil, nets.F64, `"x"`},
		{"unknown shape", map[string]*nets.Tensor{"x": ok}, map[string][]int{"y": {6}}, nil, nets.F64, `"y"`},
		{"nil tensor", map[string]*nets.Tensor{"x": nil}, nil, nil, nets.F64, `"x"`},
		{"malformed", map[string]*nets.Tensor{"x": {Rows: 2, Cols: 2, Data: []float64{1}}}, nil, nil, nets.F64, `"x"`},
		{"reserved name", map[string]*nets.Tensor{"__metadata__": ok}, nil, nil, nets.F64, "__metadata__"},
		{"bad utf8 name", map[string]*nets.Tensor{"\xff": ok}, nil, nil, nets.F64, "invalid tensor name"},
		{"bad utf8 meta", map[string]*nets.Tensor{"x": ok}, nil, map[string]string{"k": "\xfe"}, nets.F64, "UTF-8"},
	} {
		err := nets.EncodeSafetensors(&bytes.Buffer{}, tc.tensors, tc.shapes, tc.meta, tc.dtype)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestDecodeSafetensorsAcceptsPaddingAndEmpty(t *testing.T) {
	f, err := nets.DecodeSafetensors(craft(`{"x":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}      `, f64s(2)))
	if err != nil || f.Tensors["x"].Data[0] != 2 {
		t.Errorf("padded header: %v", err)
	}
	f, err = nets.DecodeSafetensors(craft(`{}`, nil))
	if err != nil || len(f.Tensors) != 0 || f.Metadata == nil {
		t.Errorf("empty file: %+v, %v", f, err)
	}
}

func TestDecodeSafetensorsRejects(t *testing.T) {
	entry := func(name, dtype, shape, offsets string) string {
		return fmt.Sprintf(`%q:{"dtype":%q,"shape":%s,"data_offsets":%s}`, name, dtype, shape, offsets)
	}
	one := func(e string) string { return "{" + e + "}" }
	hugeLen := binary.LittleEndian.AppendUint64(nil, 1<<62)
	for _, tc := range []struct {
		name string
		data []byte
		want string // substrings, separated by "|"
	}{
		{"empty", nil, "shorter than"},
		{"short", []byte{1, 2, 3, 4, 5, 6, 7}, "shorter than"},
		{"header beyond data", craft(`{}`, nil)[:9], "exceeds the 1 bytes"},
		{"absurd header", append(hugeLen, '{', '}'), "not a safetensors file|limit"},
		{"not json", craft(`{"x":`, nil), "invalid header JSON"},
		{"truncated json", craft(`{"x":{}`, nil), "invalid header JSON"},
		{"not object", craft(`[1,2]`, nil), "not a JSON object"},
		{"string", craft(`"x"`, nil), "not a JSON object"},
		{"trailing json", craft(`{} {}`, nil), "trailing data"},
		{"bad utf8", craft("{\"\xff\":1}", nil), "UTF-8"},
		{"entry not object", craft(`{"w":5}`, nil), `"w"`},
		{"missing field", craft(`{"w":{"dtype":"F64","shape":[1]}}`, f64s(1)), `"w"|missing`},
		{"dtype F16", craft(one(entry("w", "F16", "[1]", "[0,2]")), []byte{0, 0}), `"w"|unsupported dtype`},
		{"dtype I64", craft(one(entry("w", "I64", "[1]", "[0,8]")), f64s(1)), `"w"|unsupported dtype`},
		{"dtype lowercase", craft(one(entry("w", "f64", "[1]", "[0,8]")), f64s(1)), `"w"|unsupported dtype`},
		{"negative dim", craft(one(entry("w", "F64", "[-1,-1]", "[0,8]")), f64s(1)), `"w"|negative`},
		{"fractional dim", craft(one(entry("w", "F64", "[1.5]", "[0,8]")), f64s(1)), `"w"`},
		{"count mismatch", craft(one(entry("w", "F64", "[2]", "[0,8]")), f64s(1)), `"w"|needs 2 elements`},
		{"partial element", craft(one(entry("w", "F32", "[1]", "[0,6]")), make([]byte, 6)), `"w"|needs`},
		{"count overflow", craft(one(entry("w", "F64", "[4294967296,4294967296]", "[0,8]")), f64s(1)), `"w"|overflows`},
		// 2^61+1 elements × 8 bytes wraps to 8 in 64-bit arithmetic.
		{"bytes overflow", craft(one(entry("w", "F64", "[2305843009213693953]", "[0,8]")), f64s(1)), `"w"|needs`},
		{"begin > end", craft(one(entry("w", "F64", "[0]", "[8,0]")), f64s(1)), `"w"|begin 8 > end 0`},
		{"negative offset", craft(one(entry("w", "F64", "[1]", "[-8,0]")), f64s(1)), `"w"|negative`},
		{"three offsets", craft(one(entry("w", "F64", "[1]", "[0,8,8]")), f64s(1)), `"w"|2`},
		{"out of range", craft(one(entry("w", "F64", "[2]", "[0,16]")), f64s(1)), `"w"|outside`},
		{"huge offsets", craft(one(entry("w", "F64", "[1099511627776]", "[0,8796093022208]")), f64s(1)), `"w"|outside`},
		{"overlap", craft("{"+entry("a", "F64", "[2]", "[0,16]")+","+entry("b", "F64", "[1]", "[8,16]")+"}", f64s(1, 2)), `"b"|overlaps`},
		{"gap", craft(one(entry("w", "F64", "[1]", "[8,16]")), f64s(1, 2)), "bytes [0, 8) of the 16-byte data section belong to no tensor"},
		{"trailing bytes", craft(one(entry("w", "F64", "[1]", "[0,8]")), f64s(1, 2)), "belong to no tensor in the header"},
		{"duplicate key", craft("{"+entry("w", "F64", "[1]", "[0,8]")+","+entry("w", "F64", "[1]", "[0,8]")+"}", f64s(1)), `"w"|duplicate`},
		{"metadata number", craft(`{"__metadata__":{"k":1}}`, nil), "__metadata__"},
		{"metadata string", craft(`{"__metadata__":"k"}`, nil), "__metadata__"},
	} {
		f, err := nets.DecodeSafetensors(tc.data)
		if err == nil {
			t.Errorf("%s: decoded %+v, want error", tc.name, f)
			continue
		}
		for _, want := range strings.Split(tc.want, "|") {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not contain %q", tc.name, err, want)
			}
		}
		checkFormatError(t, tc.name, err)
	}
}

// checkFormatError: a decoding failure is a FormatError whose Reason
// is its message without the words that frame it, so that a caller
// can say it in a sentence of its own.
func checkFormatError(t *testing.T, name string, err error) {
	t.Helper()
	var fe *nets.FormatError
	if !errors.As(err, &fe) {
		t.Errorf("%s: %v (%T) is not a FormatError", name, err, err)
		return
	}
	if err.Error() != "safetensors: "+fe.Reason && err.Error() != "not a safetensors file ("+fe.Reason+")" {
		t.Errorf("%s: message %q is not framed reason %q", name, err, fe.Reason)
	}
}

// TestReadSafetensorsFileErrorTypes: a file that does not decode is a
// FormatError, beyond the size limit a LimitError, unreadable the
// system's *fs.PathError; each names the file, and an unindexed byte
// range is still an UnindexedError for whoever names the missing
// tensors.
func TestReadSafetensorsFileErrorTypes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	readme := write("README.md", []byte("# not a safetensors file\n"))
	gap := write("gap.safetensors", craft(`{"w":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}}`, f64s(1, 2)))
	var fe *nets.FormatError
	var ue *nets.UnindexedError
	var le *nets.LimitError
	var pe *fs.PathError
	_, err := nets.ReadSafetensorsFile(readme, 0)
	if !errors.As(err, &fe) || !fe.NotSafetensors || err.Error() != readme+": not a safetensors file ("+fe.Reason+")" {
		t.Errorf("README: %v", err)
	}
	_, err = nets.ReadSafetensorsFile(gap, 0)
	if !errors.As(err, &fe) || !errors.As(err, &ue) || ue.Begin != 0 || ue.End != 8 || err.Error() != gap+": "+ue.Error() {
		t.Errorf("unindexed bytes: %v", err)
	}
	_, err = nets.ReadSafetensorsFile(gap, 10)
	if !errors.As(err, &le) || le.Limit != 10 || err.Error() != gap+": "+le.Error() || errors.As(err, &fe) {
		t.Errorf("beyond the limit: %v", err)
	}
	_, err = nets.ReadSafetensorsFile(filepath.Join(dir, "none"), 0)
	if !errors.As(err, &pe) || errors.As(err, &fe) {
		t.Errorf("missing file: %v", err)
	}
}

func TestDecodeSafetensorsTruncated(t *testing.T) {
	tensors := map[string]*nets.Tensor{"a": nets.FromSlice(1, 2, []float64{1, 2}), "b": nets.Scalar(3)}
	data := encode(t, tensors, nil, map[string]string{"k": "v"}, nets.F64)
	if _, err := nets.DecodeSafetensors(data); err != nil {
		t.Fatalf("full file: %v", err)
	}
	for n := range len(data) {
		if _, err := nets.DecodeSafetensors(data[:n]); err == nil {
			t.Errorf("prefix of %d/%d bytes decoded without error", n, len(data))
		}
	}
}

// TestDecodeSafetensorsNoUntrustedAllocation checks that declared sizes far
// beyond the actual data are refused before anything is allocated for them.
func TestDecodeSafetensorsNoUntrustedAllocation(t *testing.T) {
	inputs := [][]byte{
		binary.LittleEndian.AppendUint64(nil, math.MaxUint64),
		append(binary.LittleEndian.AppendUint64(nil, 99_999_999), "{}"...),
		craft(`{"w":{"dtype":"F64","shape":[1099511627776],"data_offsets":[0,8796093022208]}}`, f64s(1)),
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, in := range inputs {
		if _, err := nets.DecodeSafetensors(in); err == nil {
			t.Fatalf("input %q decoded", in)
		}
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Errorf("rejecting oversized declarations allocated %d bytes", d)
	}
}

func TestReadSafetensorsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.safetensors")
	tensors, shapes, meta := sampleTensors()
	data := encode(t, tensors, shapes, meta, nets.F64)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{0, -1, int64(len(data)), math.MaxInt64} {
		f, err := nets.ReadSafetensorsFile(path, limit)
		if err != nil || len(f.Tensors) != len(tensors) {
			t.Errorf("limit %d: %v", limit, err)
		}
	}
	if _, err := nets.ReadSafetensorsFile(path, int64(len(data)-1)); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("oversized file: error %v, want one naming %s", err, path)
	}
	if _, err := nets.ReadSafetensorsFile(filepath.Join(dir, "missing"), 0); err == nil {
		t.Error("missing file read without error")
	}
	bad := filepath.Join(dir, "bad.safetensors")
	if err := os.WriteFile(bad, data[:len(data)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := nets.ReadSafetensorsFile(bad, 0); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("corrupt file: error %v, want one naming %s", err, bad)
	}
}

func FuzzDecodeSafetensors(f *testing.F) {
	tensors, shapes, meta := sampleTensors()
	valid64 := encode(f, tensors, shapes, meta, nets.F64)
	valid32 := encode(f, tensors, shapes, nil, nets.F32)
	f.Add(valid64)
	f.Add(valid32)
	f.Add(craft(`{}`, nil))
	f.Add(craft(`{"__metadata__":null}`, nil))
	f.Add(valid64[:len(valid64)/2])
	f.Add(craft(`{"w":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}}`, []byte{0, 0}))
	f.Add(craft(`{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},"b":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}}`, f64s(1, 2)))
	f.Add(craft(`{"w":{"dtype":"F32","shape":[3,0,5],"data_offsets":[0,0]}}`, nil))
	// Issue 19's malformed headers: a tensor's entry removed (its bytes
	// stay), a flipped data bit, a wrong or bogus checksum, huge names
	// and shapes, a future format version.
	f.Add(craft(`{"b":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}}`, f64s(1, 2)))
	flipped := slices.Clone(valid64)
	flipped[len(flipped)-1] ^= 1
	f.Add(flipped)
	f.Add(craft(`{"__metadata__":{"data_sha256":"00"},"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}`, f64s(1)))
	f.Add(craft(`{"__metadata__":{"data_sha256":7},"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}`, f64s(1)))
	f.Add(craft(`{"`+strings.Repeat("n", 300)+`":{"dtype":"`+strings.Repeat("F", 300)+`","shape":[1],"data_offsets":[0,8]}}`, f64s(1)))
	f.Add(craft(`{"w":{"dtype":"F64","shape":[`+strings.Repeat("1,", 500)+`1],"data_offsets":[0,8]}}`, f64s(1)))
	f.Add(craft(`{"w":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, f64s(1)))
	f.Add(craft(`{"__metadata__":{"format":"apic-checkpoint","format_version":"2"},"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}`, f64s(1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := nets.DecodeSafetensors(data)
		if err != nil {
			// Errors quote at most QuoteMax characters of the input.
			if n := len(err.Error()); n > 1000 {
				t.Fatalf("a %d-byte error message: %.200s…", n, err)
			}
			return
		}
		// F64 holds every decoded value exactly, whatever the stored dtype;
		// F32 does too when everything was stored as F32.
		dtypes := []nets.DType{nets.F64}
		if !slices.ContainsFunc(slices.Collect(maps.Values(file.DTypes)), func(d nets.DType) bool { return d != nets.F32 }) {
			dtypes = append(dtypes, nets.F32)
		}
		for _, dtype := range dtypes {
			var buf bytes.Buffer
			if err := nets.EncodeSafetensors(&buf, file.Tensors, file.Shapes, file.Metadata, dtype); err != nil {
				t.Fatalf("re-encode %s: %v", dtype, err)
			}
			again, err := nets.DecodeSafetensors(buf.Bytes())
			if err != nil {
				t.Fatalf("decode re-encoded %s: %v", dtype, err)
			}
			if !again.Checksummed {
				t.Fatalf("%s: the re-encoded file carries no data checksum", dtype)
			}
			if len(again.Tensors) != len(file.Tensors) || len(again.Metadata) != len(file.Metadata) {
				t.Fatalf("%s: %d tensors, %d metadata after round trip, want %d, %d",
					dtype, len(again.Tensors), len(again.Metadata), len(file.Tensors), len(file.Metadata))
			}
			for k, v := range file.Metadata {
				if again.Metadata[k] != v {
					t.Fatalf("%s: metadata[%q] = %q, want %q", dtype, k, again.Metadata[k], v)
				}
			}
			for name, want := range file.Tensors {
				got := again.Tensors[name]
				if got == nil || !got.SameShape(want) || !slices.Equal(again.Shapes[name], file.Shapes[name]) {
					t.Fatalf("%s: tensor %q changed shape", dtype, name)
				}
				for i := range want.Data {
					if math.Float64bits(got.Data[i]) != math.Float64bits(want.Data[i]) {
						t.Fatalf("%s: %q[%d] = %v, want %v", dtype, name, i, got.Data[i], want.Data[i])
					}
				}
			}
		}
	})
}

func ExampleEncodeSafetensors() {
	weights := map[string]*nets.Tensor{
		"layer.weight": nets.FromSlice(2, 3, []float64{1, 2, 3, 4, 5, 6}),
		"layer.bias":   nets.FromSlice(1, 3, []float64{0.5, -0.5, 0}),
	}
	shapes := map[string][]int{"layer.bias": {3}} // store the bias as a vector
	meta := map[string]string{"model": "example"}

	var buf bytes.Buffer
	if err := nets.EncodeSafetensors(&buf, weights, shapes, meta, nets.F32); err != nil {
		fmt.Println(err)
		return
	}
	f, err := nets.DecodeSafetensors(buf.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"layer.bias", "layer.weight"} {
		t := f.Tensors[name]
		fmt.Println(name, f.DTypes[name], f.Shapes[name], t.Shape(), t.Data)
	}
	fmt.Println(f.Metadata["model"])
	// Output:
	// layer.bias F32 [3] [1, 3] [0.5 -0.5 0]
	// layer.weight F32 [2 3] [2, 3] [1 2 3 4 5 6]
	// example
}

// TestSafetensorsDataChecksum: the header carries the data section's
// SHA-256, so a flipped bit anywhere in the data is refused with a clear
// message (issue 19: bit flips loaded silently); a file without the
// checksum (written before it existed) still decodes, and says so.
func TestSafetensorsDataChecksum(t *testing.T) {
	tensors, shapes, meta := sampleTensors()
	good := encode(t, tensors, shapes, meta, nets.F64)
	f, err := nets.DecodeSafetensors(good)
	if err != nil || !f.Checksummed {
		t.Fatalf("good file: checksummed %v, %v", f != nil && f.Checksummed, err)
	}
	if _, ok := f.Metadata[nets.DataChecksumKey]; ok {
		t.Error("the checksum entry is left in the decoded metadata")
	}
	n := int(binary.LittleEndian.Uint64(good))
	for _, at := range []int{8 + n, 8 + n + 17, len(good) - 1} {
		for _, bit := range []byte{0x01, 0x80} {
			bad := slices.Clone(good)
			bad[at] ^= bit
			_, err := nets.DecodeSafetensors(bad)
			if err == nil || !strings.Contains(err.Error(), "do not match the checksum") {
				t.Errorf("bit %#x of byte %d flipped: error %v", bit, at, err)
			}
		}
	}
	// The same tensors in a file of the old form: no checksum entry.
	var legacy bytes.Buffer
	legacy.WriteString(`{"w":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}}`)
	old := craft(legacy.String(), f64s(1, 2))
	if f, err := nets.DecodeSafetensors(old); err != nil || f.Checksummed || f.Tensors["w"].Data[1] != 2 {
		t.Errorf("a file without a checksum: %v", err)
	}
	// A checksum that is not one is refused, quoted short.
	bogus := craft(`{"__metadata__":{"data_sha256":"`+strings.Repeat("z", 1000)+`"},"w":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}}`, f64s(1, 2))
	if _, err := nets.DecodeSafetensors(bogus); err == nil || len(err.Error()) > 300 {
		t.Errorf("a bogus checksum: %v", err)
	}
}
