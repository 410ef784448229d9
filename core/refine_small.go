package core

// Hand-written triangular solves for refinement's small systems. An LM
// step solves with the Cholesky factor of a Gram matrix of n ≤ 36
// coordinates (spring 17, lv 36) for one right-hand side, and the
// leverages solve with it for every data row; at these sizes gonum's
// Dpotrs (two Dtrsm calls on an n×1 matrix) costs three to five times
// the loops below, which work on the same row-major storage with the
// factor U (JᵀJ = UᵀU) in the upper triangle, as lapack64.Potrf leaves
// it. The factorization itself stays gonum's: its assembly dot products
// beat a loop in Go at these sizes.

// smallDense is the largest order the hand-written solves take; larger
// systems go to gonum.
const smallDense = 64

// potrsUpper solves UᵀU x = b in place for the upper factor u (row
// stride ld) of an n×n matrix.
func potrsUpper(u []float64, ld, n int, b []float64) {
	b = b[:n]
	// Uᵀ y = b, by columns of Uᵀ (rows of U).
	for i := range n {
		row := u[i*ld+i : i*ld+n]
		yi := b[i] / row[0]
		b[i] = yi
		if yi == 0 {
			continue
		}
		rest := b[i+1:]
		rest = rest[:len(row)-1]
		for c, v := range row[1:] {
			rest[c] -= v * yi
		}
	}
	// U x = y, back substitution by rows.
	for i := n - 1; i >= 0; i-- {
		row := u[i*ld+i : i*ld+n]
		rest := b[i+1:]
		rest = rest[:len(row)-1]
		s := b[i]
		for c, v := range row[1:] {
			s -= v * rest[c]
		}
		b[i] = s / row[0]
	}
}

// trsmRightUpper solves x U = b in place for the rows b of x [rows·n]
// (row stride n) and the upper factor u (row stride ld), with inv the
// reciprocals of U's diagonal.
func trsmRightUpper(u []float64, ld, n int, inv, x []float64, rows int) {
	inv = inv[:n]
	for i := range rows {
		xi := x[i*n : i*n+n]
		for c := range n {
			xc := xi[c] * inv[c]
			xi[c] = xc
			if xc == 0 {
				continue
			}
			row := u[c*ld+c+1 : c*ld+n]
			rest := xi[c+1:]
			rest = rest[:len(row)]
			for q, v := range row {
				rest[q] -= xc * v
			}
		}
	}
}
