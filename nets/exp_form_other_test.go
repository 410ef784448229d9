//go:build !amd64

package nets

import "testing"

// forEachExpForm runs test once: there is no vector form here.
func forEachExpForm(t *testing.T, test func(t *testing.T)) {
	t.Helper()
	t.Run("scalar", test)
}
