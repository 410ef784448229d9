package nets_test

import (
	"bytes"
	"testing"

	"apic/nets"
)

// TestDecodeSafetensorsMetadata reads the metadata DecodeSafetensors
// reads, and refuses what it refuses in the header.
func TestDecodeSafetensorsMetadata(t *testing.T) {
	tensors, shapes, meta := sampleTensors()
	data := encode(t, tensors, shapes, meta, nets.F64)
	got, err := nets.DecodeSafetensorsMetadata(data)
	if err != nil {
		t.Fatal(err)
	}
	f, err := nets.DecodeSafetensors(data)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range f.Metadata {
		if got[k] != v {
			t.Errorf("metadata %q: %q, DecodeSafetensors reads %q", k, got[k], v)
		}
	}
	for _, bad := range [][]byte{nil, craft(`{"a":`, nil), bytes.Repeat([]byte{0xff}, 16)} {
		if _, err := nets.DecodeSafetensorsMetadata(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
