// Command apic is Amortized Physics-Informed Calibration with neural
// processes: simulate the benchmark systems, train and evaluate the model,
// calibrate observations. Every command lives in package core/cli; run
// "apic help" for the list.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"apic/core/cli"
)

func main() {
	// Ctrl-C or SIGTERM cancels the context so long commands (training)
	// can stop cleanly and save their state.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
