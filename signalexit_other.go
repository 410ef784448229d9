//go:build !unix

package main

import "os"

// endBy has nothing to do where signals cannot be raised again: the
// process exits with the command's status.
func endBy(os.Signal) {}
