package nets

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Safetensors layout (https://github.com/huggingface/safetensors):
//
//	[8 bytes: N, little-endian uint64]
//	[N bytes: JSON header, optionally padded with trailing spaces]
//	[data section: raw little-endian tensor data]
//
// The header maps each tensor name to
//
//	{"dtype": "F32"|"F64", "shape": [d0, d1, ...], "data_offsets": [begin, end]}
//
// with offsets relative to the start of the data section, plus an optional
// "__metadata__" object of string→string. Tensors must tile the data section
// exactly: no overlaps, no gaps, no trailing bytes.

// DType is a safetensors element type.
type DType string

// Supported element types.
const (
	F32 DType = "F32"
	F64 DType = "F64"
)

// size is the number of bytes per element, or 0 for an unsupported dtype.
func (d DType) size() int {
	switch d {
	case F32:
		return 4
	case F64:
		return 8
	}
	return 0
}

const (
	metadataKey = "__metadata__"
	// maxHeaderBytes bounds the JSON header as the reference implementation does.
	maxHeaderBytes = 100_000_000
	// defaultMaxFileBytes is ReadSafetensorsFile's limit when none is given.
	defaultMaxFileBytes = 1 << 30
)

// File is a decoded safetensors file.
type File struct {
	Tensors  map[string]*Tensor // values converted to float64, as 2-D tensors
	Shapes   map[string][]int   // the shapes as stored in the file
	DTypes   map[string]DType   // the element types as stored in the file
	Metadata map[string]string  // the "__metadata__" entries (never nil)
}

// EncodeSafetensors writes tensors in the given dtype, sorted by name and
// contiguous. Each tensor is stored with shape [Rows, Cols] unless
// shapes[name] gives another shape with the same element count. F32 storage
// rounds each value to the nearest float32.
func EncodeSafetensors(w io.Writer, tensors map[string]*Tensor, shapes map[string][]int, meta map[string]string, dtype DType) error {
	size := dtype.size()
	if size == 0 {
		return fmt.Errorf("safetensors: unsupported dtype %q", dtype)
	}
	for name := range shapes {
		if _, ok := tensors[name]; !ok {
			return fmt.Errorf("safetensors: shape given for unknown tensor %q", name)
		}
	}
	names := make([]string, 0, len(tensors))
	for name := range tensors {
		names = append(names, name)
	}
	slices.Sort(names)

	var hdr bytes.Buffer
	hdr.WriteByte('{')
	if len(meta) > 0 {
		for k, v := range meta {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return fmt.Errorf("safetensors: metadata entry %q is not valid UTF-8", k)
			}
		}
		b, err := json.Marshal(meta) // sorts keys
		if err != nil {
			return fmt.Errorf("safetensors: metadata: %w", err)
		}
		hdr.WriteString(`"` + metadataKey + `":`)
		hdr.Write(b)
	}
	offset := 0
	for _, name := range names {
		t := tensors[name]
		if name == metadataKey || !utf8.ValidString(name) {
			return fmt.Errorf("safetensors: invalid tensor name %q", name)
		}
		if t == nil || t.Rows < 0 || t.Cols < 0 || len(t.Data) != t.Rows*t.Cols {
			return fmt.Errorf("safetensors: tensor %q is nil or malformed", name)
		}
		shape, ok := shapes[name]
		if !ok {
			shape = []int{t.Rows, t.Cols}
		}
		if n, err := elementCount(shape); err != nil || n != len(t.Data) {
			return fmt.Errorf("safetensors: tensor %q: shape %v does not fit %d values", name, shape, len(t.Data))
		}
		if hdr.Len() > 1 {
			hdr.WriteByte(',')
		}
		quoted, _ := json.Marshal(name) // cannot fail for a string
		hdr.Write(quoted)
		hdr.WriteString(`:{"dtype":"` + string(dtype) + `","shape":[`)
		for i, d := range shape {
			if i > 0 {
				hdr.WriteByte(',')
			}
			hdr.WriteString(strconv.Itoa(d))
		}
		end := offset + size*len(t.Data)
		fmt.Fprintf(&hdr, `],"data_offsets":[%d,%d]}`, offset, end)
		offset = end
	}
	hdr.WriteByte('}')
	// Pad so the data section starts 8-byte aligned, as the reference does.
	for hdr.Len()%8 != 0 {
		hdr.WriteByte(' ')
	}

	var prefix [8]byte
	binary.LittleEndian.PutUint64(prefix[:], uint64(hdr.Len()))
	if _, err := w.Write(prefix[:]); err != nil {
		return fmt.Errorf("safetensors: writing header length: %w", err)
	}
	if _, err := w.Write(hdr.Bytes()); err != nil {
		return fmt.Errorf("safetensors: writing header: %w", err)
	}
	// Stream the data through a bounded buffer rather than one per tensor.
	buf := make([]byte, 0, 64<<10)
	for _, name := range names {
		for _, v := range tensors[name].Data {
			if dtype == F32 {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(v)))
			} else {
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
			}
			if len(buf) == cap(buf) {
				if _, err := w.Write(buf); err != nil {
					return fmt.Errorf("safetensors: writing tensor %q: %w", name, err)
				}
				buf = buf[:0]
			}
		}
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("safetensors: writing data: %w", err)
	}
	return nil
}

// elementCount is the product of shape, failing on negative dimensions or
// when the product of the non-zero dimensions overflows int (so that any
// partial product, such as the row count, fits as well).
func elementCount(shape []int) (int, error) {
	n, zero := 1, false
	for _, d := range shape {
		switch {
		case d < 0:
			return 0, fmt.Errorf("negative dimension %d in shape %v", d, shape)
		case d == 0:
			zero = true
		case n > math.MaxInt/d:
			return 0, fmt.Errorf("shape %v overflows", shape)
		default:
			n *= d
		}
	}
	if zero {
		return 0, nil
	}
	return n, nil
}

// tensorEntry is one header entry; pointers detect missing fields.
type tensorEntry struct {
	DType   *string `json:"dtype"`
	Shape   *[]int  `json:"shape"`
	Offsets *[]int  `json:"data_offsets"`
}

// span is a validated tensor's byte range within the data section.
type span struct {
	name       string
	begin, end int
}

// DecodeSafetensors parses a whole file held in memory. Rank-0 and rank-1
// shapes become [1, n] tensors; rank r ≥ 2 shapes become
// [d0·d1·…·d(r-2), d(r-1)]. Every size is checked against len(data) before
// anything is allocated from it.
func DecodeSafetensors(data []byte) (*File, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("safetensors: file is %d bytes, shorter than the 8-byte header length", len(data))
	}
	n := binary.LittleEndian.Uint64(data[:8])
	if err := checkHeaderLength(n, int64(len(data)-8)); err != nil {
		return nil, err
	}
	header, section := data[8:8+n], data[8+n:]
	entries, err := checkHeader(header)
	if err != nil {
		return nil, err
	}

	f := &File{
		Tensors:  make(map[string]*Tensor),
		Shapes:   make(map[string][]int),
		DTypes:   make(map[string]DType),
		Metadata: make(map[string]string),
	}
	if raw, ok := entries[metadataKey]; ok {
		if err := json.Unmarshal(raw, &f.Metadata); err != nil {
			return nil, fmt.Errorf("safetensors: __metadata__ must map strings to strings: %w", err)
		}
		if f.Metadata == nil { // "__metadata__": null
			f.Metadata = make(map[string]string)
		}
		delete(entries, metadataKey)
	}

	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	slices.Sort(names) // deterministic error messages
	spans := make([]span, 0, len(names))
	for _, name := range names {
		var e tensorEntry
		if err := json.Unmarshal(entries[name], &e); err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		if e.DType == nil || e.Shape == nil || e.Offsets == nil {
			return nil, fmt.Errorf("safetensors: tensor %q: missing dtype, shape or data_offsets", name)
		}
		dtype := DType(*e.DType)
		size := dtype.size()
		if size == 0 {
			return nil, fmt.Errorf("safetensors: tensor %q: unsupported dtype %q", name, *e.DType)
		}
		shape := *e.Shape
		count, err := elementCount(shape)
		if err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		if len(*e.Offsets) != 2 {
			return nil, fmt.Errorf("safetensors: tensor %q: data_offsets has %d entries, want 2", name, len(*e.Offsets))
		}
		begin, end := (*e.Offsets)[0], (*e.Offsets)[1]
		switch {
		case begin < 0 || end < 0:
			return nil, fmt.Errorf("safetensors: tensor %q: negative data_offsets [%d, %d]", name, begin, end)
		case begin > end:
			return nil, fmt.Errorf("safetensors: tensor %q: data_offsets begin %d > end %d", name, begin, end)
		case end > len(section):
			return nil, fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] outside the %d-byte data section", name, begin, end, len(section))
		case (end-begin)%size != 0 || (end-begin)/size != count:
			// Division, not count*size, so a huge count cannot overflow.
			return nil, fmt.Errorf("safetensors: tensor %q: shape %v of %s needs %d elements but data_offsets span %d bytes", name, shape, dtype, count, end-begin)
		}
		spans = append(spans, span{name, begin, end})

		// Sizes are now bounded by len(data), so allocating is safe.
		rows, cols := 1, count
		if len(shape) >= 2 {
			cols = shape[len(shape)-1]
			rows, _ = elementCount(shape[:len(shape)-1])
		}
		t := &Tensor{Rows: rows, Cols: cols, Data: make([]float64, count)}
		raw := section[begin:end]
		for i := range t.Data {
			if dtype == F32 {
				t.Data[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
			} else {
				t.Data[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
			}
		}
		f.Tensors[name], f.Shapes[name], f.DTypes[name] = t, slices.Clone(shape), dtype
	}

	// The tensors must tile the data section exactly.
	slices.SortFunc(spans, func(a, b span) int {
		if a.begin != b.begin {
			return a.begin - b.begin
		}
		return a.end - b.end
	})
	pos, prev := 0, ""
	for _, s := range spans {
		if s.begin < pos {
			return nil, fmt.Errorf("safetensors: tensor %q overlaps tensor %q", s.name, prev)
		}
		if s.begin > pos {
			return nil, fmt.Errorf("safetensors: bytes [%d, %d) before tensor %q belong to no tensor; safetensors requires the buffer to be fully indexed", pos, s.begin, s.name)
		}
		pos, prev = s.end, s.name
	}
	if pos != len(section) {
		return nil, fmt.Errorf("safetensors: %d trailing bytes of the data section belong to no tensor; safetensors requires the buffer to be fully indexed", len(section)-pos)
	}
	return f, nil
}

// headerEntries splits the header's top-level JSON object into raw values,
// rejecting duplicate keys, which json.Unmarshal would silently merge.
func headerEntries(header []byte) (entries map[string]json.RawMessage, err error) {
	defer func() {
		if err == io.EOF { // the decoder's report of a truncated object
			err = io.ErrUnexpectedEOF
		}
	}()
	dec := json.NewDecoder(bytes.NewReader(header))
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	entries = make(map[string]json.RawMessage)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v is not a string", tok)
		}
		if _, dup := entries[key]; dup {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("key %q: %w", key, err)
		}
		entries[key] = raw
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON object")
	}
	return entries, nil
}

// checkHeader parses the JSON header into its entries.
func checkHeader(header []byte) (map[string]json.RawMessage, error) {
	if !utf8.Valid(header) {
		return nil, errors.New("safetensors: header is not valid UTF-8")
	}
	entries, err := headerEntries(header)
	if err != nil {
		return nil, fmt.Errorf("safetensors: invalid header JSON: %w", err)
	}
	return entries, nil
}

// minHeaderBytes is the shortest header, "{}".
const minHeaderBytes = 2

// checkHeaderLength refuses a header length n that no safetensors file
// has, or that exceeds the after bytes following it (after < 0: unknown).
func checkHeaderLength(n uint64, after int64) error {
	switch {
	case n > maxHeaderBytes:
		return fmt.Errorf("not a safetensors file (its first 8 bytes give a header length of %d, above the %d-byte limit)", n, maxHeaderBytes)
	case n < minHeaderBytes:
		return fmt.Errorf("not a safetensors file (its first 8 bytes give a header length of %d, below the %d bytes of the smallest header {})", n, minHeaderBytes)
	case after >= 0 && n > uint64(after):
		return fmt.Errorf("safetensors: header length %d exceeds the %d bytes after it", n, after)
	}
	return nil
}

// ReadSafetensorsFile reads and decodes the file at path, refusing files
// larger than maxBytes (≤ 0 means 1 GiB).
func ReadSafetensorsFile(path string, maxBytes int64) (*File, error) {
	if maxBytes <= 0 {
		maxBytes = defaultMaxFileBytes
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err // already names the file
	}
	defer fh.Close()
	size := int64(-1) // unknown: a device or a pipe reports no useful size
	if st, err := fh.Stat(); err == nil {
		if st.Size() > maxBytes {
			return nil, fmt.Errorf("%s: %d bytes exceeds the %d-byte limit", path, st.Size(), maxBytes)
		}
		if st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	f, err := readSafetensors(fh, size, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// readSafetensors reads and decodes a safetensors stream of at most
// maxBytes, size bytes long when known (else -1). The header length and
// the header itself are checked before the data section is read, so
// that something other than a safetensors file (/dev/zero, a random
// device, a pipe) is refused after its first bytes rather than after
// maxBytes of them.
func readSafetensors(r io.Reader, size, maxBytes int64) (*File, error) {
	var prefix [8]byte
	if k, err := io.ReadFull(r, prefix[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("safetensors: file is %d bytes, shorter than the 8-byte header length", k)
		}
		return nil, err
	}
	n := binary.LittleEndian.Uint64(prefix[:])
	after := int64(-1)
	if size >= 0 {
		after = max(size-8, 0)
	}
	if err := checkHeaderLength(n, after); err != nil {
		return nil, err
	}
	if int64(n) > maxBytes-8 {
		return nil, fmt.Errorf("header length %d exceeds the %d-byte limit", n, maxBytes)
	}
	var buf bytes.Buffer
	if size >= 0 {
		// ReadFrom wants MinRead bytes free to see the end: without them
		// a full buffer would be copied into one twice its size.
		buf.Grow(int(size) + bytes.MinRead)
	}
	buf.Write(prefix[:])
	if _, err := io.CopyN(&buf, r, int64(n)); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("safetensors: header length %d exceeds the %d bytes after it", n, buf.Len()-8)
		}
		return nil, err
	}
	if _, err := checkHeader(buf.Bytes()[8:]); err != nil {
		return nil, err
	}
	// Limit the read too: the size can under-report (growing files).
	rest := maxBytes - int64(buf.Len())
	if rest < math.MaxInt64 {
		rest++ // one byte past the limit reveals an oversized file
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, rest)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > maxBytes {
		return nil, fmt.Errorf("exceeds the %d-byte limit", maxBytes)
	}
	return DecodeSafetensors(buf.Bytes())
}
