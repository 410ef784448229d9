package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"apic/checkpoints"
	"apic/core"
	"apic/nets"
	"apic/sims"
)

// loadModel opens the model a command works on: the checkpoint path
// names when set (a file, or embedded:NAME) (system and backbone, when given, must match it), otherwise
// the embedded checkpoint for system and backbone (empty: lnp). It
// returns a description of where the weights came from.
func loadModel(ctx context.Context, path, system, backbone string) (*core.Model, core.Info, string, error) {
	if path != "" {
		m, info, err := OpenFlagCheckpoint(ctx, "checkpoint", path)
		if err != nil {
			return nil, core.Info{}, "", err
		}
		if err := CheckpointAgrees(path, m.Config.Arch, system, backbone); err != nil {
			return nil, core.Info{}, "", err
		}
		return m, info, path, nil
	}
	if backbone == "" {
		backbone = string(core.LNP)
	}
	if system == "" {
		return nil, core.Info{}, "", UsageError("give --checkpoint FILE, or --system (%s) to use an embedded checkpoint", strings.Join(sims.Names(), ", "))
	}
	if _, err := sims.Lookup(system); err != nil {
		return nil, core.Info{}, "", UsageError("%v", err)
	}
	if _, err := core.ParseBackbone(backbone); err != nil {
		return nil, core.Info{}, "", UsageError("%v", err)
	}
	if _, ok := checkpoints.Lookup(system, backbone); !ok {
		return nil, core.Info{}, "", UsageError("no embedded checkpoint for %s/%s; train one with 'apic train' and pass --checkpoint", system, backbone)
	}
	source := embeddedPrefix + checkpoints.Name(system, backbone)
	m, info, err := OpenCheckpointContext(ctx, source)
	if err != nil {
		return nil, core.Info{}, "", err
	}
	return m, info, source, nil
}

// CheckpointAgrees refuses, as a usage error, a --system or --backbone
// given beside --checkpoint path that is not the checkpoint's (arch):
// a command would otherwise work on the checkpoint's and drop the flag
// without a word. An empty system or backbone was not given and passes.
func CheckpointAgrees(path string, arch core.Arch, system, backbone string) error {
	if system != "" && system != arch.System {
		return UsageError("--system %s disagrees with checkpoint %s (system %s)", system, path, arch.System)
	}
	if backbone != "" && backbone != string(arch.Backbone) {
		return UsageError("--backbone %s disagrees with checkpoint %s (backbone %s)", backbone, path, arch.Backbone)
	}
	return nil
}

// unfinishedWarning is the warning every command that uses a model
// gives for an unfinished run's file (train's .partial): nil for others.
func unfinishedWarning(info core.Info, source string) []string {
	if !info.Unfinished {
		return nil
	}
	return []string{fmt.Sprintf("%s is unfinished: %s", source, unfinishedWords(source))}
}

// checkpointID names the checkpoint a result came from: where (a path
// or embedded:NAME) and, exactly, which bytes (core.Info.SHA256).
type checkpointID struct{ source, sha256 string }

// embeddedPrefix marks a checkpoint embedded in the program
// (checkpoints.Prefix).
const embeddedPrefix = checkpoints.Prefix

// embeddedCheckpoint is checkpoints.FromPath, NAME in any ASCII case,
// with an unknown name as a usage error (a *CheckpointError).
func embeddedCheckpoint(path string) (data []byte, ok bool, err error) {
	// A flag's value is folded already (canonicalValue); inspect's FILE
	// and the explorer's are not.
	data, ok, err = checkpoints.FromPath(canonicalCheckpoint(path))
	if err != nil {
		return nil, true, unknownEmbedded(path, err)
	}
	return data, ok, nil
}

// OpenCheckpoint loads a checkpoint: a file, or embedded:NAME (inspect's
// FILE, the explorer's o; a flag's goes through OpenFlagCheckpoint).
// Problems with a file are usage errors; every error but an
// interruption is a *CheckpointError.
func OpenCheckpoint(path string) (*core.Model, core.Info, error) {
	return OpenCheckpointContext(context.Background(), path)
}

// OpenCheckpointContext is OpenCheckpoint, ended with an interruption as
// soon as ctx is cancelled (Ctrl-C), even while the open or a read
// blocks (a FIFO no one writes).
func OpenCheckpointContext(ctx context.Context, path string) (*core.Model, core.Info, error) {
	_, m, info, err := readCheckpoint(ctx, path)
	return m, info, err
}

// OpenFlagCheckpoint is OpenCheckpointContext for the path a flag
// (--checkpoint, --init) gives: its usage errors name the flag
// (checkpointFlagError).
func OpenFlagCheckpoint(ctx context.Context, flag, path string) (*core.Model, core.Info, error) {
	m, info, err := OpenCheckpointContext(ctx, path)
	return m, info, checkpointFlagError(flag, err)
}

// CheckCheckpointFile refuses, as OpenCheckpoint does, a checkpoint
// path that names anything but a regular file or an unnamed pipe
// (core.CheckReadableFile), with a usage *CheckpointError; embedded:NAME
// and a regular or missing file pass, whose open says what is wrong
// with them. It opens nothing, so that it never waits: the explorer
// checks a path with it before its open, in the background, begins.
func CheckCheckpointFile(path string) error {
	if strings.HasPrefix(path, embeddedPrefix) {
		return nil
	}
	err := core.CheckReadableFile(path)
	var nr *core.NotRegularFileError
	if !errors.As(err, &nr) {
		return nil
	}
	return &CheckpointError{Path: path, Cause: nr.What(), Err: err,
		message: err.Error(), usage: true}
}

// readCheckpoint reads the checkpoint OpenCheckpoint names, both as
// safetensors (for inspect's tensor list) and as a model.
func readCheckpoint(ctx context.Context, path string) (*nets.File, *core.Model, core.Info, error) {
	data, embedded, err := embeddedCheckpoint(path)
	if err != nil {
		return nil, nil, core.Info{}, err
	}
	var f *nets.File
	if embedded {
		f, err = nets.DecodeSafetensors(data)
	} else {
		if err := CheckCheckpointFile(path); err != nil {
			return nil, nil, core.Info{}, err
		}
		// The read runs on, abandoned, after an interruption: the
		// command returns and the process ends. (A regular file made
		// a named pipe since the check would wait here for a writer.)
		f, err = interruptible(ctx, "reading checkpoint "+path, func() (*nets.File, error) { return nets.ReadSafetensorsFile(path, 0) }, nil)
		var ie *interruptedError
		if errors.As(err, &ie) {
			return nil, nil, core.Info{}, err
		}
	}
	var m *core.Model
	var info core.Info
	if err == nil {
		m, info, err = core.FromSafetensors(f)
	}
	switch {
	case err == nil:
		return f, m, info, nil
	case embedded:
		// A shipped file that fails to load is the program's fault.
		return nil, nil, core.Info{}, brokenEmbedded(path, err)
	case f == nil:
		return nil, nil, core.Info{}, unreadableCheckpoint(path, err)
	default:
		return nil, nil, core.Info{}, unloadableCheckpoint(path, err)
	}
}

// shippedNamed returns embedded:path when path, as typed, is the name
// of a checkpoint shipped in the program ("spring-cnp.safetensors" for
// embedded:spring-cnp.safetensors): the file a user who left out the
// prefix most likely meant. So is one whose prefix is in another case
// (EMBEDDED:spring-cnp.safetensors): the name after it is read in any
// case, the prefix only as written. The name returned is as shipped.
func shippedNamed(path string) (string, bool) {
	name, _ := cutEmbeddedPrefix(filepath.ToSlash(path))
	shipped := canonicalCheckpoint(embeddedPrefix + name)
	if _, ok, err := checkpoints.FromPath(shipped); !ok || err != nil {
		return "", false
	}
	return shipped, true
}
