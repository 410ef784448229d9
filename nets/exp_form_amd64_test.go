package nets

import "testing"

// forEachExpForm runs test with each vector form of the exponential
// this CPU has: AVX-512 and AVX2, or only one.
func forEachExpForm(t *testing.T, test func(t *testing.T)) {
	t.Helper()
	defer func(old bool) { useExpAVX512 = old }(useExpAVX512)
	forms := []bool{false}
	if hasAVX512 {
		forms = append(forms, true)
	}
	for _, wide := range forms {
		useExpAVX512 = wide
		t.Run(map[bool]string{false: "avx2", true: "avx512"}[wide], test)
	}
}
