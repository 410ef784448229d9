package core

import (
	"bytes"
	"encoding/binary"
	"maps"
	"regexp"
	"strings"
	"testing"

	"apic/nets"
)

// fuzzModel is the small model whose checkpoint seeds the fuzz targets.
func fuzzModel(t testing.TB) *Model {
	return tinyModel(t, "spring", CNP, func(c *Config) {
		c.Arch.Hidden, c.Arch.DecHidden, c.Arch.LatentTheta, c.Arch.LatentDelta = 8, 8, 2, 2
	})
}

// checkDecodeError fails on an error message that quotes too much of
// the input: every quote is cut to QuoteMax characters.
func checkDecodeError(t *testing.T, err error) {
	if err != nil && len(err.Error()) > 1500 {
		t.Fatalf("a %d-byte error message: %.300s…", len(err.Error()), err)
	}
}

// FuzzDecodeCheckpoint feeds arbitrary bytes to the checkpoint decoder:
// it must return a model or an error of bounded length, never panic or
// allocate what the file does not back. The seeds are a valid file and
// issue 19's malformed ones.
func FuzzDecodeCheckpoint(f *testing.F) {
	m := fuzzModel(f)
	var good bytes.Buffer
	if err := EncodeCheckpoint(&good, m, Info{Steps1: 1}, nets.F32); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:good.Len()/2])
	flipped := bytes.Clone(good.Bytes())
	flipped[len(flipped)-5] ^= 0x40
	f.Add(flipped)
	// The header's entries removed one at a time would each be a seed;
	// two are enough to start from.
	n := binary.LittleEndian.Uint64(good.Bytes())
	header := string(good.Bytes()[8 : 8+n])
	for _, edit := range []func(string) string{
		func(h string) string { return strings.Replace(h, `"format_version":"1"`, `"format_version":"2"`, 1) },
		func(h string) string { return strings.Replace(h, `"format_version":"1"`, `"format_version":"3"`, 1) },
		func(h string) string { return strings.Replace(h, `\"arch\":`, `\"arcx\":`, 1) },
		func(h string) string {
			return regexp.MustCompile(`\\"val_tasks\\":\d+`).ReplaceAllString(h, `\"val_tasks\":1000000000`)
		},
		func(h string) string {
			return regexp.MustCompile(`\\"refine\\":\d+`).ReplaceAllString(h, `\"refine\":1001`)
		},
		func(h string) string { return strings.Replace(h, `\"hidden\":8`, `\"hidden\":4096`, 1) },
		func(h string) string { return regexp.MustCompile(`"obs\.lognoise":\{[^}]*\},`).ReplaceAllString(h, "") },
	} {
		h := edit(header)
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
		f.Add(append(append(b, h...), good.Bytes()[8+n:]...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, err := DecodeCheckpoint(data)
		checkDecodeError(t, err)
	})
}

// FuzzCheckpointConfig puts arbitrary text in the config entry of an
// otherwise valid checkpoint (its checksum made to match): the config
// parser and Validate must refuse or accept it, within the limits, never
// panic, hang or allocate beyond the file.
func FuzzCheckpointConfig(f *testing.F) {
	m := fuzzModel(f)
	ts, base := checkpointParts(f, m)
	good := base["config"]
	f.Add(good)
	f.Add(`{}`)
	f.Add(`{"arch":null}`)
	f.Add(`{"train":{"val_tasks":1000000000}}`)
	f.Add(strings.Replace(good, `"refine":5`, `"refine":1000000000`, 1))
	f.Add(regexp.MustCompile(`"val_tasks":\d+`).ReplaceAllString(good, `"val_tasks":1000000000`))
	f.Add(regexp.MustCompile(`"trajectories":\d+`).ReplaceAllString(good, `"trajectories":1000000000`))
	f.Add(strings.Replace(good, `"hidden":8`, `"hidden":4096`, 1))
	f.Add(strings.Replace(good, `"system":"spring"`, `"system":"`+strings.Repeat("s", 5000)+`"`, 1))
	f.Add(strings.Replace(good, `"lr":`, `"lr":1e999,"x":`, 1))
	f.Fuzz(func(t *testing.T, config string) {
		meta := maps.Clone(base)
		meta["config"] = config
		var buf bytes.Buffer
		if err := nets.EncodeSafetensors(&buf, ts, nil, meta, nets.F64); err != nil {
			return // not valid UTF-8: the encoder refuses it
		}
		_, _, err := DecodeCheckpoint(buf.Bytes())
		checkDecodeError(t, err)
	})
}
