//go:build !linux

package cli

// virtualFileSystem is "" where the kernel's virtual file systems are
// not told apart (see virtualfs_linux.go): the save's own error says
// why a file cannot be created.
func virtualFileSystem(string) string { return "" }
