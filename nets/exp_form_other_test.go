//go:build !amd64

package nets

import "testing"

// eachExpForm calls run once: there is no vector form here.
func eachExpForm(run func(name string)) { run("scalar") }

// forEachExpForm runs test once as a subtest.
func forEachExpForm(t *testing.T, test func(t *testing.T)) {
	t.Helper()
	eachExpForm(func(name string) { t.Run(name, test) })
}
