package nets

import "testing"

// eachExpForm calls run with the name of each vector form of the
// exponential this CPU has (AVX-512 and AVX2, or one), that form in
// use, and restores the default after.
func eachExpForm(run func(name string)) {
	defer func(old bool) { useExpAVX512 = old }(useExpAVX512)
	useExpAVX512 = false
	run("avx2")
	if hasAVX512 {
		useExpAVX512 = true
		run("avx512")
	}
}

// forEachExpForm runs test as a subtest with each vector form.
func forEachExpForm(t *testing.T, test func(t *testing.T)) {
	t.Helper()
	eachExpForm(func(name string) { t.Run(name, test) })
}
