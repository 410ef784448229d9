// Command apic is Amortized Physics-Informed Calibration with neural
// processes: simulate the benchmark systems, train and evaluate the model,
// calibrate observations, and explore it all in a terminal UI. Every
// command but the explorer lives in package core/cli; run "apic help" for
// the list. Without arguments on a terminal, or with only the explorer's
// flags ("apic --system lv"), apic opens the explorer.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"apic/core/cli"
	"apic/tui"
)

func main() {
	// The explorer is package tui, which builds on core/cli; the command
	// line learns of it here so that "apic" alone, "apic explore" and
	// "apic help explore" all reach it.
	cli.RegisterExternal(tui.Command())

	ctx, release := interruptible()
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if sig := release(); sig != nil && code != 0 {
		// The command stopped for the signal: end by it, so that the
		// shell that started apic sees a process killed by Ctrl-C
		// (status 130) and stops a loop or script running it, as it
		// would have without apic's handling, instead of going on to
		// the next command as it does after an ordinary failure.
		endBy(sig)
	}
	os.Exit(code)
}

// interruptible returns a context that the first Ctrl-C, SIGTERM or
// SIGHUP (a closed terminal or SSH session) cancels, so that long
// commands (training) stop cleanly and keep their work (train saves a
// .partial file), and a function that releases the signals and returns
// the one that cancelled the context (nil if none did). The first of
// those releases them too: a second Ctrl-C then has its default effect
// and ends apic at once, should the clean stop take too long or hang.
//
// A write to a closed pipe ("apic train … | head") cancels the context
// the same way, instead of killing apic by SIGPIPE with its work lost;
// SIGPIPE stays caught to the end, so that the clean stop's own writes to
// the pipe fail with an error rather than kill.
func interruptible() (context.Context, func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs, pipe := make(chan os.Signal, 1), make(chan os.Signal, 1)
	caught := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	signal.Notify(pipe, syscall.SIGPIPE)
	go func() {
		select {
		case sig := <-sigs:
			// Released before the cancellation, so that whatever sees
			// the context done knows the next signal kills.
			signal.Stop(sigs)
			caught <- sig
			cancel()
		case <-pipe:
			signal.Stop(sigs) // as for the others: a Ctrl-C now kills
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() os.Signal {
		signal.Stop(sigs)
		cancel()
		select {
		case sig := <-caught:
			return sig
		default:
			return nil
		}
	}
}
