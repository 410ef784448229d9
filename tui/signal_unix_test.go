//go:build unix

package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
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
