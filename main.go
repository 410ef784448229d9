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

	// Ctrl-C or SIGTERM cancels the context so long commands (training)
	// can stop cleanly and keep their work (train saves a .partial file).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
