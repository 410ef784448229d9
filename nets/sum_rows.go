package nets

// sumRowsFast is the vector form of sumRows where the CPU has one: it
// does a leading multiple of 16 columns and returns how many (nil: none).
var sumRowsFast func(dst, src []float64, rows, ld int, relu bool) int

// sumRows adds the rows of src [rows, ld-strided] to dst column by
// column, in row order,
//
//	dst_c += Σ_{r < rows} g(src_{r,c}),   g(v) = v, or reluBits(v) with relu,
//
// over the len(dst) leading columns of each row: the sums
// accumulate or accumulateReLU would give row after row, with the
// running sums kept in registers instead of memory.
func sumRows(dst, src []float64, rows, ld int, relu bool) {
	done := 0
	if sumRowsFast != nil {
		done = sumRowsFast(dst, src, rows, ld, relu)
	}
	if done == len(dst) {
		return
	}
	for r := range rows {
		row := src[r*ld+done : r*ld+len(dst)]
		if relu {
			accumulateReLU(dst[done:], row)
		} else {
			accumulate(dst[done:], row)
		}
	}
}

// accumulateReLU sets dst += max(src, 0), element by element (reluBits:
// the values activateInPlace would have written).
func accumulateReLU(dst, src []float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] += reluBits(v)
	}
}
