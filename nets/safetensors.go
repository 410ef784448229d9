package nets

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
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
//
// EncodeSafetensors adds the SHA-256 of the data section to the metadata
// (DataChecksumKey, lower-case hex) and DecodeSafetensors checks it when
// present, so that a flipped bit in the weights is refused rather than
// loaded; files without it (written before it existed) still decode.

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

// DataChecksumKey is the metadata entry holding the SHA-256 of the data
// section as lower-case hex. EncodeSafetensors sets it, replacing any
// value the caller's metadata has (a decoded file's, say).
const DataChecksumKey = "data_sha256"

const (
	metadataKey = "__metadata__"
	// maxHeaderBytes bounds the JSON header as the reference implementation does.
	maxHeaderBytes = 100_000_000
	// maxHeaderEntries bounds the tensors a header may list (with its
	// metadata entry). A model holds tens of tensors, a large one
	// thousands; a header within maxHeaderBytes can list over a million
	// empty ones, which took a gigabyte and seconds to parse before the
	// file was refused for what it lacked.
	maxHeaderEntries = 1 << 16
	// defaultMaxFileBytes is ReadSafetensorsFile's limit when none is given.
	defaultMaxFileBytes = 1 << 30
)

// File is a decoded safetensors file.
type File struct {
	Tensors  map[string]*Tensor // values converted to float64, as 2-D tensors
	Shapes   map[string][]int   // the shapes as stored in the file
	DTypes   map[string]DType   // the element types as stored in the file
	Metadata map[string]string  // the "__metadata__" entries (never nil)
	// Checksummed reports that the metadata held DataChecksumKey and
	// the data section matched it; false for files without one. The
	// entry itself is not in Metadata: it describes these bytes, and
	// EncodeSafetensors computes it afresh.
	Checksummed bool
	// SHA256 is the SHA-256 of the bytes decoded, header and data: the
	// file's identity, which changes with any byte of it (the data
	// checksum covers the weights alone, not the metadata).
	SHA256 [sha256.Size]byte
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

	// The tensors' entries first: they check every tensor before the
	// data are hashed.
	var ents bytes.Buffer
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
		ents.WriteByte(',')
		quoted, _ := json.Marshal(name) // cannot fail for a string
		ents.Write(quoted)
		ents.WriteString(`:{"dtype":"` + string(dtype) + `","shape":[`)
		for i, d := range shape {
			if i > 0 {
				ents.WriteByte(',')
			}
			ents.WriteString(strconv.Itoa(d))
		}
		end := offset + size*len(t.Data)
		fmt.Fprintf(&ents, `],"data_offsets":[%d,%d]}`, offset, end)
		offset = end
	}

	// The checksum goes in the header, before the data: a first pass
	// encodes the data into the hash alone.
	sum := sha256.New()
	_ = writeData(sum, names, tensors, dtype) // a hash's Write never fails
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]string{}
	}
	meta[DataChecksumKey] = hex.EncodeToString(sum.Sum(nil))
	for k, v := range meta {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return fmt.Errorf("safetensors: metadata entry %q is not valid UTF-8", k)
		}
	}
	b, err := json.Marshal(meta) // sorts keys
	if err != nil {
		return fmt.Errorf("safetensors: metadata: %w", err)
	}
	var hdr bytes.Buffer
	hdr.WriteString(`{"` + metadataKey + `":`)
	hdr.Write(b)
	hdr.Write(ents.Bytes()) // each entry starts with its comma
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
	return writeData(w, names, tensors, dtype)
}

// writeData writes the named tensors' values in order as dtype, through
// a bounded buffer rather than one per tensor.
func writeData(w io.Writer, names []string, tensors map[string]*Tensor, dtype DType) error {
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

// checkDataChecksum compares the data section with the checksum in the
// metadata, if any, reporting whether there was one.
func checkDataChecksum(meta map[string]string, section []byte) (bool, error) {
	want, ok := meta[DataChecksumKey]
	if !ok {
		return false, nil
	}
	delete(meta, DataChecksumKey)
	got := sha256.Sum256(section)
	if want != hex.EncodeToString(got[:]) {
		return false, formatErrorf("the tensor data do not match the checksum in the header (%s %s): the file is damaged or was edited", DataChecksumKey, QuoteInput(want))
	}
	return true, nil
}

// QuoteMax is the most characters of offending input an error message
// quotes: enough to recognise it, never a whole 100 MB header.
const QuoteMax = 80

// QuoteInput quotes s for an error message, cut to its first QuoteMax
// characters with the full length said when longer.
func QuoteInput(s string) string {
	n := 0
	for i := range s { // by rune, without converting a huge s
		if n == QuoteMax {
			return fmt.Sprintf("%q… (%d bytes)", s[:i], len(s))
		}
		n++
	}
	return fmt.Sprintf("%q", s)
}

// shapeString prints a shape for an error message, its first dimensions
// only when there are many.
func shapeString(shape []int) string {
	const most = 8
	if len(shape) > most {
		return strings.TrimSuffix(fmt.Sprint(shape[:most]), "]") + fmt.Sprintf(" … (%d dimensions)]", len(shape))
	}
	return fmt.Sprint(shape)
}

// elementCount is the product of shape, failing on negative dimensions or
// when the product of the non-zero dimensions overflows int (so that any
// partial product, such as the row count, fits as well).
func elementCount(shape []int) (int, error) {
	n, zero := 1, false
	for _, d := range shape {
		switch {
		case d < 0:
			return 0, fmt.Errorf("negative dimension %d in shape %s", d, shapeString(shape))
		case d == 0:
			zero = true
		case n > math.MaxInt/d:
			return 0, fmt.Errorf("shape %s overflows", shapeString(shape))
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
		return nil, formatErrorf("file is %d bytes, shorter than the 8-byte header length", len(data))
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
			return nil, formatErrorf("__metadata__ must map strings to strings: %w", err)
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
		t, shape, dtype, sp, err := decodeTensor(name, entries[name], section)
		if err != nil {
			return nil, err
		}
		spans = append(spans, sp)
		f.Tensors[name], f.Shapes[name], f.DTypes[name] = t, shape, dtype
	}
	if err := checkTiling(spans, section, f); err != nil {
		return nil, err
	}
	// Last, once the layout is known good, so that a truncated or
	// misindexed file is named as such, not only as damaged.
	if f.Checksummed, err = checkDataChecksum(f.Metadata, section); err != nil {
		return nil, err
	}
	f.SHA256 = sha256.Sum256(data)
	return f, nil
}

// decodeTensor reads the tensor name from its header entry raw and the
// data section: its values (as a [rows, cols] tensor, cols the last
// dimension), shape, storage type and the span of bytes it covers,
// every field checked against the section before anything is
// allocated.
func decodeTensor(name string, raw json.RawMessage, section []byte) (*Tensor, []int, DType, span, error) {
	fail := func(format string, args ...any) (*Tensor, []int, DType, span, error) {
		return nil, nil, "", span{}, formatErrorf("tensor %s: "+format, append([]any{QuoteInput(name)}, args...)...)
	}
	var e tensorEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return fail("%w", err)
	}
	if e.DType == nil || e.Shape == nil || e.Offsets == nil {
		return fail("missing dtype, shape or data_offsets")
	}
	dtype := DType(*e.DType)
	size := dtype.size()
	if size == 0 {
		return fail("unsupported dtype %s", QuoteInput(*e.DType))
	}
	shape := *e.Shape
	count, err := elementCount(shape)
	if err != nil {
		return fail("%w", err)
	}
	if len(*e.Offsets) != 2 {
		return fail("data_offsets has %d entries, want 2", len(*e.Offsets))
	}
	begin, end := (*e.Offsets)[0], (*e.Offsets)[1]
	switch {
	case begin < 0 || end < 0:
		return fail("negative data_offsets [%d, %d]", begin, end)
	case begin > end:
		return fail("data_offsets begin %d > end %d", begin, end)
	case end > len(section):
		return fail("data_offsets [%d, %d] outside the %d-byte data section", begin, end, len(section))
	case (end-begin)%size != 0 || (end-begin)/size != count:
		// Division, not count*size, so a huge count cannot overflow.
		return fail("shape %s of %s needs %d elements but data_offsets span %d bytes", shapeString(shape), dtype, count, end-begin)
	}
	// Sizes are now bounded by len(data), so allocating is safe.
	rows, cols := 1, count
	if len(shape) >= 2 {
		cols = shape[len(shape)-1]
		rows, _ = elementCount(shape[:len(shape)-1])
	}
	t := &Tensor{Rows: rows, Cols: cols, Data: make([]float64, count)}
	data := section[begin:end]
	for i := range t.Data {
		if dtype == F32 {
			t.Data[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
		} else {
			t.Data[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		}
	}
	return t, slices.Clone(shape), dtype, span{name, begin, end}, nil
}

// checkTiling checks that the tensors' spans tile the data section
// exactly: no overlap, no gap, nothing after the last (f, the tensors
// read, goes with an UnindexedError).
func checkTiling(spans []span, section []byte, f *File) error {
	slices.SortFunc(spans, func(a, b span) int {
		if a.begin != b.begin {
			return a.begin - b.begin
		}
		return a.end - b.end
	})
	pos, prev := 0, ""
	for _, s := range spans {
		if s.begin < pos {
			return formatErrorf("tensor %s overlaps tensor %s", QuoteInput(s.name), QuoteInput(prev))
		}
		if s.begin > pos {
			return unindexed(&UnindexedError{Begin: pos, End: s.begin, Section: len(section), File: f})
		}
		pos, prev = s.end, s.name
	}
	if pos != len(section) {
		return unindexed(&UnindexedError{Begin: pos, End: len(section), Section: len(section), File: f})
	}
	return nil
}

// UnindexedError reports bytes of the data section that no header entry
// covers, which safetensors forbids: most often a tensor whose entry was
// removed from the header. File is everything else the file decoded to,
// so that a caller who knows which tensors to expect can name the
// missing one.
type UnindexedError struct {
	Begin, End int // the bytes, relative to the data section
	Section    int // the data section's length
	File       *File
}

func (e *UnindexedError) Error() string { return "safetensors: " + e.reason() }

func (e *UnindexedError) reason() string {
	return fmt.Sprintf("bytes [%d, %d) of the %d-byte data section belong to no tensor in the header (a tensor's entry is missing?); safetensors requires every byte to belong to one",
		e.Begin, e.End, e.Section)
}

// unindexed is e as the FormatError DecodeSafetensors returns, which
// errors.As still finds e in.
func unindexed(e *UnindexedError) *FormatError {
	return &FormatError{Reason: e.reason(), Err: e}
}

// errTooManyEntries is a header of more than maxHeaderEntries entries.
var errTooManyEntries = fmt.Errorf("header lists more than %d entries, the limit (a model's tensors number tens to thousands)", maxHeaderEntries)

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
			return nil, fmt.Errorf("duplicate key %s", QuoteInput(key))
		}
		if len(entries) == maxHeaderEntries {
			return nil, errTooManyEntries
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("key %s: %w", QuoteInput(key), err)
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
		return nil, formatErrorf("header is not valid UTF-8")
	}
	entries, err := headerEntries(header)
	if errors.Is(err, errTooManyEntries) { // valid JSON, perhaps
		return nil, formatErrorf("%w", err)
	}
	if err != nil {
		return nil, formatErrorf("invalid header JSON: %w", err)
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
		return notSafetensorsf("its first 8 bytes give a header length of %d, above the %d-byte limit", n, maxHeaderBytes)
	case n < minHeaderBytes:
		return notSafetensorsf("its first 8 bytes give a header length of %d, below the %d bytes of the smallest header {}", n, minHeaderBytes)
	case after >= 0 && n > uint64(after):
		return formatErrorf("header length %d exceeds the %d bytes after it (the file is truncated, or not a safetensors file)", n, after)
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
			return nil, fmt.Errorf("%s: %w", path, &LimitError{What: fmt.Sprintf("%d bytes", st.Size()), Limit: maxBytes})
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
			return nil, formatErrorf("file is %d bytes, shorter than the 8-byte header length", k)
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
		return nil, &LimitError{What: fmt.Sprintf("header length %d", n), Limit: maxBytes}
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
			return nil, formatErrorf("header length %d exceeds the %d bytes after it (the data are truncated, or not safetensors)", n, buf.Len()-8)
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
		return nil, &LimitError{Limit: maxBytes}
	}
	return DecodeSafetensors(buf.Bytes())
}
