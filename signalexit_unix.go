//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// endBy ends the process by sig, with the signal's default effect, as
// if apic had never caught it: shells tell a process killed by Ctrl-C
// from one that failed, and stop a loop or script only for the former.
// Where sig was ignored when apic started (a background job of a
// non-interactive shell, nohup), the signal cannot kill it, and the
// process exits with the status a shell gives a process killed by it,
// 128 + the signal's number.
func endBy(sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return
	}
	signal.Reset(s)
	_ = syscall.Kill(os.Getpid(), s)
	// Delivery to this process is prompt but not synchronous.
	time.Sleep(time.Second)
	os.Exit(128 + int(s))
}
