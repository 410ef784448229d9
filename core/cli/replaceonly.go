package cli

import (
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"

	"apic/nets"
)

// An output flag may replace an existing file only when the file is of
// the kind the command writes (or empty): rerunning a command redraws
// its figure or retrains its checkpoint, but a mistyped name must not
// turn a data file, a script or a program (or the file a link leads to)
// into a picture or weights. --force does not lift this: it says that a
// checkpoint may be replaced, not that anything may.

// pngSignature is the eight bytes every PNG file starts with.
const pngSignature = "\x89PNG\r\n\x1a\n"

// isPNG reports whether head, a file's first bytes, starts a PNG image.
func isPNG(head []byte, _ int64) bool {
	return len(head) >= len(pngSignature) && string(head[:len(pngSignature)]) == pngSignature
}

// isSafetensors reports whether head, the first bytes of a file of size
// bytes, starts a safetensors file: an eight-byte little-endian header
// length that fits the file, then the header's opening brace.
func isSafetensors(head []byte, size int64) bool {
	if len(head) < 9 {
		return false
	}
	n := binary.LittleEndian.Uint64(head)
	return n > 0 && n <= uint64(size-8) && head[8] == '{'
}

// replaceOnlyHead is how many of a file's first bytes checkReplacesOnly
// shows the kind's test: a safetensors header length and its brace (9),
// a PNG signature (8), a CSV's first line (isApicCSV; a sweep's
// results.csv header, a column per axis, in isSweepResultsCSV), as
// long as calibrate reads a line.
const replaceOnlyHead = 4096

// checkReplacesOnly fails when path (given as --flag) exists, is not
// empty and is not what it should be (the kind, "a PNG image").
func checkReplacesOnly(flag, path, kind string, is func(head []byte, size int64) bool) error {
	target, err := nets.AtomicTarget(path)
	if err != nil {
		return UsageError("--%s: %v", flag, err)
	}
	f, err := os.Open(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return UsageError("--%s %s: %v", flag, path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return UsageError("--%s %s: %v", flag, path, err)
	}
	head := make([]byte, replaceOnlyHead)
	n, _ := io.ReadFull(f, head)
	if n == 0 || is(head[:n], info.Size()) {
		return nil
	}
	what := path
	if target != path {
		what = path + " (a link to " + target + ")"
	}
	return UsageError("--%s %s exists and is not %s: refusing to replace it; remove it or choose another name", flag, what, kind)
}

// checkReplacesOnlyPNG fails when the --png file exists and is not a PNG.
func checkReplacesOnlyPNG(path string) error {
	return checkReplacesOnly("png", path, "a PNG image", isPNG)
}

// checkReplacesOnlyCheckpoint fails when the --out file exists and is
// not a safetensors file.
func checkReplacesOnlyCheckpoint(path string) error {
	return checkReplacesOnly("out", path, "a safetensors checkpoint", isSafetensors)
}
