package nets

import (
	"encoding/binary"
	"encoding/json"
)

// DecodeSafetensorsMetadata reads only the "__metadata__" entries of a
// file held in memory, without converting any tensor: a caller that
// needs what a file records (a checkpoint's config) and not its weights
// pays for the header alone. The header is checked as DecodeSafetensors
// checks it; the tensors and the data checksum are not.
func DecodeSafetensorsMetadata(data []byte) (map[string]string, error) {
	if len(data) < 8 {
		return nil, formatErrorf("file is %d bytes, shorter than the 8-byte header length", len(data))
	}
	n := binary.LittleEndian.Uint64(data[:8])
	if err := checkHeaderLength(n, int64(len(data)-8)); err != nil {
		return nil, err
	}
	entries, err := checkHeader(data[8 : 8+n])
	if err != nil {
		return nil, err
	}
	meta := map[string]string{}
	if raw, ok := entries[metadataKey]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, formatErrorf("__metadata__ must map strings to strings: %w", err)
		}
		if meta == nil { // "__metadata__": null
			meta = map[string]string{}
		}
	}
	// As in File.Metadata: the checksum describes bytes not read here.
	delete(meta, DataChecksumKey)
	return meta, nil
}
