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
	release()
	os.Exit(code)
}

// interruptible returns a context that the first Ctrl-C or SIGTERM
// cancels, so that long commands (training) stop cleanly and keep their
// work (train saves a .partial file), and a function that releases the
// signals. The first signal releases them too: a second Ctrl-C then has
// its default effect and ends apic at once, should the clean stop take
// too long or hang.
func interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sigs:
			// Released before the cancellation, so that whatever sees
			// the context done knows the next signal kills.
			signal.Stop(sigs)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel()
	}
}
