package nets

import (
	"errors"
	"fmt"
)

// FormatError is data that do not decode as a safetensors file. Reason
// says what is wrong in words that stand alone ("tensor \"w\":
// unsupported dtype \"F16\""), so that a caller can put them in a
// sentence of its own ("README.md is not a checkpoint file: …")
// without cutting them out of Error's.
type FormatError struct {
	Reason string
	// NotSafetensors marks data that cannot begin any safetensors file
	// (a README's first bytes read as an absurd header length), as
	// against a damaged or truncated one.
	NotSafetensors bool
	// Err is the error Reason ends with, if any (a JSON syntax error).
	Err error
}

func (e *FormatError) Error() string {
	if e.NotSafetensors {
		return "not a safetensors file (" + e.Reason + ")"
	}
	return "safetensors: " + e.Reason
}

func (e *FormatError) Unwrap() error { return e.Err }

// formatErrorf is the FormatError whose Reason fmt.Errorf(format,
// args...) words, wrapping what its %w verb wraps.
func formatErrorf(format string, args ...any) *FormatError {
	err := fmt.Errorf(format, args...)
	return &FormatError{Reason: err.Error(), Err: errors.Unwrap(err)}
}

// notSafetensorsf is formatErrorf for data that cannot begin any
// safetensors file.
func notSafetensorsf(format string, args ...any) *FormatError {
	e := formatErrorf(format, args...)
	e.NotSafetensors = true
	return e
}

// LimitError is a file, or its header, larger than the reader allows.
type LimitError struct {
	What  string // "header length 123456", "2000000 bytes"; "" for the file
	Limit int64  // bytes
}

func (e *LimitError) Error() string {
	if e.What == "" {
		return fmt.Sprintf("exceeds the %d-byte limit", e.Limit)
	}
	return fmt.Sprintf("%s exceeds the %d-byte limit", e.What, e.Limit)
}
