package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"apic/checkpoints"
	"apic/core"
	"apic/nets"
)

// CheckpointError is a checkpoint that could not be opened: a file that
// could not be read, one that is not safetensors, one that holds no
// model this program reads, or an embedded:NAME not shipped. Error is
// the command line's message. Cause is what is wrong in words that
// follow the path, for a caller that names the path itself (the
// explorer's "cannot open PATH: cause"); the message, for inspect's
// argument, is "PATH: cause", and checkpointFlagError names the flag.
type CheckpointError struct {
	Path  string // as given: a file, or embedded:NAME
	Cause string // "no such file or directory", "not a checkpoint (safetensors) file: …"
	Err   error  // the loader's error: an *fs.PathError, a *nets.FormatError, …

	message string // what Error returns
	usage   bool   // the input is at fault (Run exits 2), not the program
}

func (e *CheckpointError) Error() string { return e.message }

func (e *CheckpointError) Unwrap() error { return e.Err }

// unreadableCheckpoint is the usage error for a checkpoint file that
// could not be read as safetensors (err, which names path). A file that
// could not be opened or read keeps the system's words; any other file
// is first said not to be a checkpoint, with the reason after: "the
// header length of 723499994654515235" alone leaves the user of
// "apic inspect README.md" guessing what is wrong, and the command line
// says of a text file what it is instead (textCheckpointReason).
func unreadableCheckpoint(path string, err error) error {
	var fe *nets.FormatError
	var le *nets.LimitError
	switch {
	case errors.As(err, new(*fs.PathError)):
		hint := ""
		if errors.Is(err, fs.ErrNotExist) {
			hint = missingCheckpointHint(path)
		}
		cause := pathCause(err).Error() + hint
		return &CheckpointError{Path: path, Cause: cause, Err: err, message: path + ": " + cause, usage: true}
	case errors.As(err, &fe):
		e := notCheckpoint(path, fe.Reason, err)
		if what, ok := textCheckpointReason(path); ok && fe.NotSafetensors {
			e.Cause = notCheckpointWords + what
			e.message = path + " is " + e.Cause
		}
		return e
	case errors.As(err, &le):
		return notCheckpoint(path, le.Error(), err)
	}
	// The reader puts the path before any error but os.Open's.
	cause := err
	if under := errors.Unwrap(err); under != nil {
		cause = under
	}
	return &CheckpointError{Path: path, Cause: cause.Error(), Err: err, message: path + ": " + cause.Error(), usage: true}
}

// missingCheckpointHint is "; did you mean NAME?" for a checkpoint path
// that does not exist: the shipped file of that name, or the path with
// core.CheckpointExt, which a save of a bare name writes (train --out m
// writes m.safetensors); for "-", that standard input is not read; ""
// when none is likely.
func missingCheckpointHint(path string) string {
	if path == "-" { // as --data - reads observations
		return "; a checkpoint is read from a file by its name, never from standard input (-)"
	}
	if shipped, ok := shippedNamed(path); ok {
		return "; did you mean " + shipped + "?"
	}
	// EMBEDDED:NAME in another case is read as embedded only for a
	// shipped NAME (canonicalCheckpoint); for any other, the slip is
	// likelier in NAME than in meaning a file.
	if _, ok := cutEmbeddedPrefix(path); ok {
		return embeddedHint(path)
	}
	if named := core.CheckpointFileName(path); named != path {
		if st, err := os.Stat(named); err == nil && st.Mode().IsRegular() {
			return "; did you mean " + named + "?"
		}
	}
	return ""
}

// notCheckpointWords begins the cause of every file refused as not a
// safetensors file.
const notCheckpointWords = "not a checkpoint (safetensors) file: "

// notCheckpoint is the usage error for a file that is not a safetensors
// file, or not a whole one, for reason.
func notCheckpoint(path, reason string, err error) *CheckpointError {
	cause := notCheckpointWords + reason
	return &CheckpointError{Path: path, Cause: cause, Err: err, message: path + " is " + cause, usage: true}
}

// unloadableCheckpoint is the usage error for a safetensors file that
// holds no model this program reads (err, from core.FromSafetensors).
func unloadableCheckpoint(path string, err error) error {
	return &CheckpointError{Path: path, Cause: err.Error(), Err: err,
		message: path + ": " + err.Error(), usage: true}
}

// unknownEmbedded is the usage error for an embedded:NAME not shipped
// (err, from checkpoints.FromPath, lists those that are).
func unknownEmbedded(path string, err error) error {
	cause := err.Error() + embeddedHint(path)
	return &CheckpointError{Path: path, Cause: cause, Err: err, message: cause, usage: true}
}

// embeddedHint is "; did you mean embedded:NAME?" for an embedded name
// not shipped: the shipped one it names without its extension
// (embedded:spring-cnp), or the one within a slip of it
// (embedded:sprng-cnp.safetensors, or the atlas's
// embedded:atlas/sprng-reg-l1.safetensors); "" when none is.
func embeddedHint(path string) string {
	name, _ := cutEmbeddedPrefix(path)
	if filepath.Ext(name) == "" {
		if shipped, ok := shippedNamed(name + core.CheckpointExt); ok {
			return "; did you mean " + shipped + "?"
		}
	}
	names := checkpoints.List()
	for _, c := range checkpoints.Atlas() {
		names = append(names, c.Name())
	}
	return didYouMean(name, embeddedPrefix, names)
}

// brokenEmbedded is the error for a shipped checkpoint that fails to
// load: the program's fault, not a usage error.
func brokenEmbedded(path string, err error) error {
	return &CheckpointError{Path: path, Cause: err.Error(), Err: err, message: path + ": " + err.Error()}
}

// checkpointFlagError is err with, when it is a CheckpointError the
// input is at fault for, a message that names the flag that gave the
// path, as --data's does ("--checkpoint m.safetensors: no such file or
// directory"): a command reads several files, and "load checkpoint:
// open m.safetensors" left the user to work out which flag was wrong.
// The cause keeps its did-you-mean hint; any other error is returned
// as it is.
func checkpointFlagError(flag string, err error) error {
	var ce *CheckpointError
	if !errors.As(err, &ce) || !ce.usage {
		return err
	}
	named := *ce
	named.message = "--" + flag + " " + ce.Path + ": " + ce.Cause
	return &named
}
