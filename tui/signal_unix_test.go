//go:build unix

package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"apic/core"
)

// TestTermQuitsAsInterrupted: a SIGTERM while the explorer runs quits it
// as an interruption, through the command line's handler (here one that
// cancels the context, as main's does), every time: Bubble Tea's own
// handler, which raced that one, turned it into a plain quit (exit 0)
// or, when it lost the race, a program that never returned.
func TestTermQuitsAsInterrupted(t *testing.T) {
	for i := range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM)
		go func() {
			<-sigs
			cancel()
		}()
		m, err := New(Options{System: "spring", Embedded: noEmbedded, SaveDir: t.TempDir(), RefineDelay: -1, Atlas: noAtlas, Averages: -1, Context: ctx})
		if err != nil {
			t.Fatal(err)
		}
		in, inW := io.Pipe() // no keys; open until the end
		done := make(chan error, 1)
		go func() { done <- runProgram(m, in, io.Discard) }()
		time.Sleep(100 * time.Millisecond)
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("run %d: SIGTERM returned %v, want an interruption", i, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("run %d: the explorer did not quit on SIGTERM", i)
		}
		signal.Stop(sigs)
		inW.Close()
		cancel()
	}
}

// TestTermKeepsUnsavedWeights: weights trained in the session and not
// saved are saved to a new file in the save directory when a SIGTERM
// (or a closed SSH session's SIGHUP) ends it, and the error says where.
func TestTermKeepsUnsavedWeights(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		<-sigs
		cancel()
	}()
	dir := t.TempDir()
	m, err := New(Options{System: "spring", Embedded: noEmbedded, SaveDir: dir, RefineDelay: -1, Atlas: noAtlas, Averages: -1, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	putTrainedWeights(m)
	in, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- runProgram(m, in, io.Discard) }()
	time.Sleep(100 * time.Millisecond)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var runErr error
	select {
	case runErr = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the explorer did not quit on SIGTERM")
	}
	path := filepath.Join(dir, "apic-spring-lnp-1.safetensors")
	if want := "the weights trained here and not saved are in " + path + " (spring/lnp, trained)"; !errors.Is(runErr, context.Canceled) || !strings.Contains(runErr.Error(), want) {
		t.Errorf("SIGTERM returned %v, want an interruption naming %q", runErr, want)
	}
	if _, info, err := core.LoadCheckpoint(path); err != nil || info.Steps1 != 3 || info.Steps2 != 4 {
		t.Errorf("the kept file: %v, steps %d+%d, want 3+4", err, info.Steps1, info.Steps2)
	}
}
