package nets

import (
	"fmt"
	"golang.org/x/sys/unix"
	"gonum.org/v1/gonum/blas/blas64"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func threadNow() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

func bestOf(reps int, f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := time.Duration(1 << 62)
	for range reps {
		now := threadNow
		if os.Getenv("WALL") != "" {
			now = func() time.Duration { return time.Duration(time.Now().UnixNano()) }
		}
		t0 := now()
		f()
		if d := now() - t0; d < best {
			best = d
		}
	}
	return best
}

func TestTune(t *testing.T) {
	if os.Getenv("GEMMTUNE") == "" {
		t.Skip()
	}
	cases := []struct {
		name           string
		m, n, k        int
		transA, transB bool
	}{
		{"NN_19200x256x256", 19200, 256, 256, false, false},
		{"NT_19200x256x256", 19200, 256, 256, false, true},
		{"TN_256x256x19200", 256, 256, 19200, true, false},
		{"NN_64x512x4096", 64, 512, 4096, false, false},
		{"NN_6400x64x64", 6400, 64, 64, false, false},
		{"NN_1024x128x128", 1024, 128, 128, false, false},
		{"NN_19200x256x3", 19200, 256, 3, false, false},
		{"NT_300x300x32", 300, 300, 32, false, true},
		{"NN_64x64x64", 64, 64, 64, false, false},
		{"NN_32x32x32", 32, 32, 32, false, false},
		{"NN_16x16x16", 16, 16, 16, false, false},
		{"NN_8x8x8", 8, 8, 8, false, false},
		{"NN_4x4x4", 4, 4, 4, false, false},
		{"NN_48x64x64", 48, 64, 64, false, false},
		{"NN_128x128x64", 128, 128, 64, false, false},
		{"NN_96x96x96", 96, 96, 96, false, false},
		{"NN_300x32x32", 300, 32, 32, false, false},
		{"NT_300x300x16", 300, 300, 16, false, true},
		{"NN_12x16x8", 12, 16, 8, false, false},
		{"NN_3x5x7", 3, 5, 7, false, false},
		{"NT_10x10x10", 10, 10, 10, false, true},
	}
	procs := runtime.GOMAXPROCS(0)
	for _, cs := range cases {
		if f := os.Getenv("CASES"); f != "" && !strings.Contains(f, cs.name) {
			continue
		}
		a, bb, c := gemmOperands(newRNG(902), cs.transA, cs.transB, cs.m, cs.n, cs.k, 1)
		flops := 2 * float64(cs.m) * float64(cs.n) * float64(cs.k)
		inner := int(max(1, 2e6/flops))
		reps := int(max(15, min(200, 1e9/flops)))
		line := fmt.Sprintf("%-18s P=%d", cs.name, procs)
		for _, kern := range gemmKernels {
			if f := os.Getenv("KERN"); f != "" && !strings.Contains(kern.name, f) {
				continue
			}
			d := bestOf(reps, func() {
				for range inner {
					gemmTensors(kern, cs.transA, cs.transB, 1, a, bb, 0, c)
				}
			}) / time.Duration(inner)
			line += fmt.Sprintf("  %s %6.1f", kern.name, flops/d.Seconds()/1e9)
		}
		d := bestOf(reps, func() {
			for range inner {
				gemmGonum(cs.transA, cs.transB, 1, a, bb, 0, c)
			}
		}) / time.Duration(inner)
		line += fmt.Sprintf("  gonum %6.1f", flops/d.Seconds()/1e9)
		fmt.Println(line)
	}
}

func gemmGonum(transA, transB bool, alpha float64, a, b *Tensor, beta float64, c *Tensor) {
	blas64Gemm(transA, transB, alpha, a, b, beta, c)
}

func blas64Gemm(transA, transB bool, alpha float64, a, b *Tensor, beta float64, c *Tensor) {
	blas64.Gemm(blasTrans(transA), blasTrans(transB), alpha, blasGeneral(a), blasGeneral(b), beta, blasGeneral(c))
}
