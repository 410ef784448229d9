package sims

import "golang.org/x/sys/cpu"

//go:noescape
func lvTangentAVX(tx, ty, da, db, de, dg, e0, e1, e2 *float64, n int, c *lvStageCoefs)

func init() {
	if cpu.X86.HasAVX {
		lvTangentFast = lvTangentAVX4
	}
}

// lvTangentAVX4 checks the bounds lvTangentAVX relies on and advances the
// leading multiple of four directions.
func lvTangentAVX4(tx, ty []float64, l *lvDirections, s0 int, c *lvStageCoefs) int {
	n := l.n &^ 3
	if n == 0 {
		return 0
	}
	m := l.n
	e0, e1, e2 := l.dd[s0*m:s0*m+n], l.dd[(s0+1)*m:(s0+1)*m+n], l.dd[(s0+2)*m:(s0+2)*m+n]
	_, _ = tx[n-1], ty[n-1]
	_, _, _, _ = l.da[n-1], l.db[n-1], l.de[n-1], l.dg[n-1]
	lvTangentAVX(&tx[0], &ty[0], &l.da[0], &l.db[0], &l.de[0], &l.dg[0], &e0[0], &e1[0], &e2[0], n, c)
	return n
}
