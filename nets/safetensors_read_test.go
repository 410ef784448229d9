package nets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// zeroStream is an endless stream of zero bytes, as /dev/zero, that
// counts what was read from it and refuses to give more than limit.
type zeroStream struct{ read, limit int }

func (z *zeroStream) Read(p []byte) (int, error) {
	if z.read >= z.limit {
		return 0, errors.New("read past the limit")
	}
	n := min(len(p), z.limit-z.read)
	clear(p[:n])
	z.read += n
	return n, nil
}

// TestReadSafetensorsStopsAtBadHeaderLength: a stream that is not a
// safetensors file is refused on its header length, after its first 8
// bytes, not after reading up to the file limit (/dev/zero once read
// 1 GiB before being rejected).
func TestReadSafetensorsStopsAtBadHeaderLength(t *testing.T) {
	z := &zeroStream{limit: 1 << 20}
	_, err := readSafetensors(z, -1, defaultMaxFileBytes)
	if err == nil || !strings.Contains(err.Error(), "header length of 0") {
		t.Errorf("error %v, want a header length of 0 refused", err)
	}
	if z.read != 8 {
		t.Errorf("read %d bytes, want the 8 of the header length", z.read)
	}
}

// TestReadSafetensorsChecksHeaderBeforeData: a plausible header length
// followed by something that is not a JSON header is refused once the
// header is read, before the data section.
func TestReadSafetensorsChecksHeaderBeforeData(t *testing.T) {
	head := binary.LittleEndian.AppendUint64(nil, 16)
	r := &prefixed{head: bytes.NewReader(head), rest: &zeroStream{limit: 1 << 20}}
	_, err := readSafetensors(r, -1, defaultMaxFileBytes)
	if err == nil || !strings.Contains(err.Error(), "header") {
		t.Errorf("error %v, want the header refused", err)
	}
	if read := r.rest.read; read != 16 {
		t.Errorf("read %d bytes after the header length, want the 16 of the header", read)
	}
}

// prefixed reads head, then rest.
type prefixed struct {
	head *bytes.Reader
	rest *zeroStream
}

func (p *prefixed) Read(b []byte) (int, error) {
	if p.head.Len() > 0 {
		return p.head.Read(b)
	}
	return p.rest.Read(b)
}

// TestReadSafetensorsHeaderBeyondSize: where the file size is known, a
// header length beyond it is refused before anything else is read.
func TestReadSafetensorsHeaderBeyondSize(t *testing.T) {
	data := append(binary.LittleEndian.AppendUint64(nil, 1000), "{}"...)
	_, err := readSafetensors(bytes.NewReader(data), int64(len(data)), defaultMaxFileBytes)
	if err == nil || !strings.Contains(err.Error(), "exceeds the 2 bytes after it") {
		t.Errorf("error %v, want the header length checked against the file size", err)
	}
	_, err = readSafetensors(bytes.NewReader(data), -1, 100)
	if err == nil || !strings.Contains(err.Error(), "100-byte limit") {
		t.Errorf("error %v, want the header length checked against the limit", err)
	}
}

// TestDecodeSafetensorsBoundsEntries: a header may list at most
// maxHeaderEntries entries; one more is refused as it is parsed, with
// the limit named, rather than after holding every one in memory.
func TestDecodeSafetensorsBoundsEntries(t *testing.T) {
	header := func(n int) []byte {
		var b bytes.Buffer
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"t%d":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}`, i)
		}
		b.WriteByte('}')
		return append(binary.LittleEndian.AppendUint64(nil, uint64(b.Len())), b.Bytes()...)
	}
	f, err := DecodeSafetensors(header(maxHeaderEntries))
	if err != nil || len(f.Tensors) != maxHeaderEntries {
		t.Fatalf("%d entries: error %v", maxHeaderEntries, err)
	}
	_, err = DecodeSafetensors(header(maxHeaderEntries + 1))
	if err == nil || !strings.Contains(err.Error(), "header lists more than 65536 entries, the limit") {
		t.Errorf("%d entries: error %v, want the entry limit named", maxHeaderEntries+1, err)
	}
}
