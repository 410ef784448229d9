package sims

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"apic/nets"
)

func TestAdvDiffRegistered(t *testing.T) {
	sys, err := Lookup("advdiff")
	if err != nil {
		t.Fatal(err)
	}
	ps := sys.Params()
	if len(ps) != 2 || ps[0] != (Param{"v", 0.3, 2.0, "v"}) || ps[1] != (Param{"kappa", 0.002, 0.08, "κ"}) {
		t.Errorf("params %v", ps)
	}
	g := sys.Grid()
	if g.Points() != 4096 || g.Size() != 4096 || len(g.Shape) != 2 || g.Shape[0] != 64 || g.Shape[1] != 64 {
		t.Fatalf("grid %d points, shape %v", g.Points(), g.Shape)
	}
	if g.StateNames[0] != "t" || g.StateNames[1] != "x" || len(g.Channels) != 1 || g.Channels[0] != "u" {
		t.Errorf("names %v %v", g.StateNames, g.Channels)
	}
	for n := range 64 {
		for i := range 64 {
			st := g.States[n*64+i]
			if st[0] != float64(n)/63 || st[1] != float64(i)/64 {
				t.Fatalf("state %d = %v", n*64+i, st)
			}
		}
	}
	if si := sys.Side(); si.Name != "u0" || si.Len != 64 || si.Lo != 0 || si.Hi != 1 {
		t.Errorf("side %+v", si)
	}
	if lo, hi := sys.TrainContext(); lo != 100 || hi != 500 || sys.TestContext() != 256 {
		t.Errorf("contexts %d..%d, %d", lo, hi, sys.TestContext())
	}
	if sys.FeatureLen() != 28 || sys.QueryFeatureLen() != 3 {
		t.Errorf("feature lengths %d, %d", sys.FeatureLen(), sys.QueryFeatureLen())
	}
	q := make([]float64, 3)
	sys.QueryFeatures(q, []float64{0.5, 0.25})
	if math.Abs(q[0]) > 1e-15 || math.Abs(q[1]-1) > 1e-15 || math.Abs(q[2]) > 1e-15 {
		t.Errorf("query features of (0.5, 0.25): %v", q)
	}
	if st := sys.Closure().Queries(); len(st) != 1 || len(st[0]) != 0 {
		t.Errorf("reaction closure queries %v, want one empty state", st)
	}
}

type adReference struct {
	NX, NT int
	Cases  []struct {
		V, Kappa, C   float64
		Bumps         [][3]float64
		U0            []float64
		Nominal, True []float64
	}
}

// TestAdvDiffReference compares the initial field, the reaction rate and
// both processes with the independent pure-Python solution
// (testdata/reference/ref_advdiff.py, a naive DFT with direct exponentials).
func TestAdvDiffReference(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "reference", "advdiff.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref adReference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if ref.NX != 64 || ref.NT != 64 || len(ref.Cases) != 3 {
		t.Fatalf("reference has nx %d, nt %d, %d cases", ref.NX, ref.NT, len(ref.Cases))
	}
	sys := newAdvDiff()
	const tol = 1e-9
	for ci, c := range ref.Cases {
		bumps := make([]advdiffBump, len(c.Bumps))
		for i, b := range c.Bumps {
			bumps[i] = advdiffBump{amp: b[0], centre: b[1], width: b[2]}
		}
		u0 := advdiffInitial(bumps)
		if d := adMaxDiff(u0, c.U0); d > tol {
			t.Errorf("case %d: u0 differs by %g", ci, d)
		}
		if d := math.Abs(ReactionRate(c.V, c.Kappa) - c.C); d > tol {
			t.Errorf("case %d: c = %g, want %g", ci, ReactionRate(c.V, c.Kappa), c.C)
		}
		theta := []float64{c.V, c.Kappa}
		if d := adMaxDiff(sys.Nominal(theta, c.U0), c.Nominal); d > tol {
			t.Errorf("case %d: nominal differs by %g", ci, d)
		}
		if d := adMaxDiff(sys.True(theta, c.U0), c.True); d > tol {
			t.Errorf("case %d: true differs by %g", ci, d)
		}
	}
}

func adMaxDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestAdvDiffSingleMode checks single Fourier modes against the analytic
// solution e^{−(κk²+c)t} cos(k(x − vt)) (and sin), the Nyquist mode
// cos(64πx) = (−1)^i included.
func TestAdvDiffSingleMode(t *testing.T) {
	const v, kappa, c = 1.3, 0.002, 0.4
	for _, m := range []int{0, 1, 5, 17, 31, 32} {
		for _, useSin := range []bool{false, true} {
			if useSin && (m == 0 || m == 32) {
				continue // sin vanishes on the grid
			}
			wave := math.Cos
			if useSin {
				wave = math.Sin
			}
			k := 2 * math.Pi * float64(m)
			u0 := make([]float64, 64)
			for i := range u0 {
				u0[i] = wave(k * float64(i) / 64)
			}
			got := advdiffSolve([]float64{v, kappa}, u0, c)
			for n := range 64 {
				tn := float64(n) / 63
				for i := range 64 {
					x := float64(i) / 64
					want := math.Exp(-(kappa*k*k+c)*tn) * wave(k*(x-v*tn))
					if d := math.Abs(got[n*64+i] - want); d > 1e-12 {
						t.Fatalf("mode %d sin=%v at (t%d, x%d): %g, want %g", m, useSin, n, i, got[n*64+i], want)
					}
				}
			}
		}
	}
}

// adSmoothInitial is a smooth periodic field: Gaussian bumps summed over
// periodic images. With widths ≥ 0.06 its Fourier coefficients beyond
// |k| = 2π·32 are below e^{−70}, so the 64-point spectral representation
// is exact to rounding and the spectral and finite-difference solutions
// solve the same continuous problem.
func adSmoothInitial(x float64) float64 {
	bumps := [][3]float64{{1.0, 0.3, 0.06}, {0.7, 0.75, 0.09}}
	s := 0.2
	for _, b := range bumps {
		for p := -2; p <= 2; p++ {
			d := x - b[1] + float64(p)
			s += b[0] * math.Exp(-d*d/(2*b[2]*b[2]))
		}
	}
	return s
}

// adFiniteDifference solves u_t = −v u_x + κ u_xx − c u on nf periodic
// points by fourth-order central differences in x and classical RK4 with
// substeps steps per output interval 1/63. It returns u at t_n on the
// fine grid, [64][nf].
func adFiniteDifference(nf, substeps int, v, kappa, c float64) [][]float64 {
	h := 1 / float64(nf)
	dt := 1 / 63.0 / float64(substeps)
	rhs := func(dst, u []float64) {
		for i := range nf {
			um2, um1 := u[(i-2+nf)%nf], u[(i-1+nf)%nf]
			up1, up2 := u[(i+1)%nf], u[(i+2)%nf]
			ux := (-up2 + 8*up1 - 8*um1 + um2) / (12 * h)
			uxx := (-up2 + 16*up1 - 30*u[i] + 16*um1 - um2) / (12 * h * h)
			dst[i] = -v*ux + kappa*uxx - c*u[i]
		}
	}
	u := make([]float64, nf)
	for i := range u {
		u[i] = adSmoothInitial(float64(i) * h)
	}
	k1, k2, k3, k4, tmp := make([]float64, nf), make([]float64, nf), make([]float64, nf), make([]float64, nf), make([]float64, nf)
	out := make([][]float64, 64)
	out[0] = append([]float64(nil), u...)
	for n := 1; n < 64; n++ {
		for range substeps {
			rhs(k1, u)
			for i := range tmp {
				tmp[i] = u[i] + dt/2*k1[i]
			}
			rhs(k2, tmp)
			for i := range tmp {
				tmp[i] = u[i] + dt/2*k2[i]
			}
			rhs(k3, tmp)
			for i := range tmp {
				tmp[i] = u[i] + dt*k3[i]
			}
			rhs(k4, tmp)
			for i := range u {
				u[i] += dt / 6 * (k1[i] + 2*k2[i] + 2*k3[i] + k4[i])
			}
		}
		out[n] = append([]float64(nil), u...)
	}
	return out
}

// TestAdvDiffFiniteDifference compares the spectral solution with an
// independent method-of-lines solution (fourth-order central differences,
// RK4) on 256 and 512 points, both on the 64-point grid (advdiffSolve) and
// at every fine point (AdvDiffField.At, mostly off the grid).
//
// Tolerance: u0 is band-limited to rounding, so the spectral answer is
// exact and the difference is the finite-difference error, O(h⁴) in
// space (RK4's error is much smaller: |λ dt| ≤ 0.02 for the modes that
// carry amplitude). Two checks follow: halving h must shrink the
// difference by about 2⁴ = 16 (we require > 10; observed 16.0), which
// shows the FD solution converges to the spectral one at its design order
// (a spectral error δ would make the ratio tend to 1); and the 512-point
// difference must be ≤ 1e-6 (observed 1.2e-7, an 8× margin).
func TestAdvDiffFiniteDifference(t *testing.T) {
	const v, kappa, c = 1.3, 0.01, 0.5
	u0 := make([]float64, 64)
	for i := range u0 {
		u0[i] = adSmoothInitial(float64(i) / 64)
	}
	theta := []float64{v, kappa}
	grid := advdiffSolve(theta, u0, c)
	field, err := NewAdvDiffField(theta, u0, c)
	if err != nil {
		t.Fatal(err)
	}
	errs := map[int]float64{}
	for _, res := range []struct{ nf, substeps int }{{256, 32}, {512, 128}} {
		fd := adFiniteDifference(res.nf, res.substeps, v, kappa, c)
		var gridErr, fieldErr float64
		for n := range 64 {
			tn := float64(n) / 63
			for i := range res.nf {
				x := float64(i) / float64(res.nf)
				fieldErr = math.Max(fieldErr, math.Abs(field.At(tn, x)-fd[n][i]))
				if i%(res.nf/64) == 0 {
					gridErr = math.Max(gridErr, math.Abs(grid[n*64+i/(res.nf/64)]-fd[n][i]))
				}
			}
		}
		t.Logf("nf %d: max |spectral − FD| on grid %.3g, field %.3g", res.nf, gridErr, fieldErr)
		errs[res.nf] = fieldErr
	}
	if errs[512] > 1e-6 {
		t.Errorf("512-point FD differs by %g, want ≤ 1e-6", errs[512])
	}
	if r := errs[256] / errs[512]; r < 10 {
		t.Errorf("FD error ratio 256→512 is %.2f, want ≈ 16 (fourth order)", r)
	}
}

// TestAdvDiffFieldAt checks the off-grid evaluator: equal to the grid
// solution at grid points, and to the analytic single-mode solution at
// random (t, x).
func TestAdvDiffFieldAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sys := newAdvDiff()
	for range 3 {
		theta := sys.SampleTheta(rng)
		side := sys.SampleSide(rng)
		c := ReactionRate(theta[0], theta[1])
		grid := sys.True(theta, side)
		f, err := NewAdvDiffField(theta, side, c)
		if err != nil {
			t.Fatal(err)
		}
		for g, st := range sys.Grid().States {
			if d := math.Abs(f.At(st[0], st[1]) - grid[g]); d > 1e-12 {
				t.Fatalf("grid point %d: field %g, grid %g", g, f.At(st[0], st[1]), grid[g])
			}
		}
	}
	const v, kappa, c = 0.8, 0.003, 0.7
	for _, m := range []int{1, 7, 31} {
		k := 2 * math.Pi * float64(m)
		u0 := make([]float64, 64)
		for i := range u0 {
			u0[i] = math.Sin(k * float64(i) / 64)
		}
		f, err := NewAdvDiffField([]float64{v, kappa}, u0, c)
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			tt, x := rng.Float64(), rng.Float64()
			want := math.Exp(-(kappa*k*k+c)*tt) * math.Sin(k*(x-v*tt))
			if d := math.Abs(f.At(tt, x) - want); d > 1e-12 {
				t.Fatalf("mode %d at (%g, %g): %g, want %g", m, tt, x, f.At(tt, x), want)
			}
		}
	}
	if _, err := NewAdvDiffField([]float64{1}, make([]float64, 64), 0); err == nil {
		t.Error("no error for a short θ")
	}
	if _, err := NewAdvDiffField([]float64{1, 0.01}, make([]float64, 10), 0); err == nil {
		t.Error("no error for a short u0")
	}
}

// TestReactionRate checks c(θ) ∈ [0.35, 1] over the prior, its values at
// the corners, that it is clipped at exactly 1, and its continuity: a step
// h changes it by at most the Lipschitz bound 0.5/v·|h_v| + 0.3/κ·|h_κ|
// (softplus has slope < 1; min with 1 does not increase it).
func TestReactionRate(t *testing.T) {
	if got, want := ReactionRate(0.3, 0.08), math.Log1p(math.Exp(0.5*math.Log(0.3)-0.3*math.Log(0.08)-1)); math.Abs(got-want) > 1e-15 || got < 0.35 || got > 0.36 {
		t.Errorf("c(0.3, 0.08) = %g, want %g", got, want)
	}
	if got := ReactionRate(2, 0.002); got != 1 {
		t.Errorf("c(2, 0.002) = %g, want 1", got)
	}
	const steps = 400
	for a := 0; a <= steps; a++ {
		v := 0.3 + 1.7*float64(a)/steps
		for b := 0; b <= steps; b++ {
			kappa := 0.002 + 0.078*float64(b)/steps
			c := ReactionRate(v, kappa)
			if c > 1 || c < 0.35 || math.IsNaN(c) {
				t.Fatalf("c(%g, %g) = %g", v, kappa, c)
			}
			const hv, hk = 1e-4, 1e-6
			bound := 0.5/v*hv + 0.3/kappa*hk
			if d := math.Abs(ReactionRate(v+hv, kappa+hk) - c); d > bound*1.01 {
				t.Fatalf("jump %g at (%g, %g), bound %g", d, v, kappa, bound)
			}
		}
	}
}

// TestAdvDiffSide checks the drawn initial fields: 64 values in [0.2, 1]
// with maximum exactly 1.
func TestAdvDiffSide(t *testing.T) {
	sys := newAdvDiff()
	rng := rand.New(rand.NewPCG(13, 14))
	for range 500 {
		u0 := sys.SampleSide(rng)
		if len(u0) != 64 {
			t.Fatalf("%d values", len(u0))
		}
		top := math.Inf(-1)
		for _, u := range u0 {
			if u < 0.2 || u > 1 {
				t.Fatalf("value %g outside [0.2, 1]", u)
			}
			top = math.Max(top, u)
		}
		if top != 1 {
			t.Fatalf("max %v, want exactly 1", top)
		}
	}
}

// TestAdvDiffSideDraws checks the order and ranges of SampleSide's draws
// by replaying them from the same seed.
func TestAdvDiffSideDraws(t *testing.T) {
	sys := newAdvDiff()
	for seed := range uint64(20) {
		got := sys.SampleSide(rand.New(rand.NewPCG(seed, 1)))
		rng := rand.New(rand.NewPCG(seed, 1))
		bumps := make([]advdiffBump, 2+rng.IntN(2))
		for i := range bumps {
			a, c, s := rng.Float64(), rng.Float64(), rng.Float64()
			bumps[i] = advdiffBump{amp: 0.3 + a, centre: c, width: 0.03 + 0.08*s}
		}
		if d := adMaxDiff(got, advdiffInitial(bumps)); d != 0 {
			t.Fatalf("seed %d: replay differs by %g", seed, d)
		}
	}
}

// TestAdvDiffDrawDeterministic checks that the same seed gives a
// bit-identical realization.
func TestAdvDiffDrawDeterministic(t *testing.T) {
	sys := newAdvDiff()
	a := Draw(sys, rand.New(rand.NewPCG(42, 7)))
	b := Draw(sys, rand.New(rand.NewPCG(42, 7)))
	for _, p := range [][2][]float64{{a.Theta, b.Theta}, {a.Side, b.Side}, {a.Nominal, b.Nominal}, {a.True, b.True}} {
		if len(p[0]) != len(p[1]) {
			t.Fatal("lengths differ")
		}
		for i := range p[0] {
			if math.Float64bits(p[0][i]) != math.Float64bits(p[1][i]) {
				t.Fatalf("value %d differs: %v vs %v", i, p[0][i], p[1][i])
			}
		}
	}
	if a.Theta[0] < 0.3 || a.Theta[0] > 2 || a.Theta[1] < 0.002 || a.Theta[1] > 0.08 {
		t.Errorf("θ %v outside the prior", a.Theta)
	}
}

// TestAdvDiffNominalOp checks NominalOp and the closure at the true rate
// against Nominal and True row by row.
func TestAdvDiffNominalOp(t *testing.T) {
	sys := newAdvDiff()
	rng := rand.New(rand.NewPCG(15, 16))
	theta, side := adBatch(rng, 3)
	f := nets.NewTensor(3, 1)
	for b := range 3 {
		c := ReactionRate(theta.At(b, 0), theta.At(b, 1))
		f.Data[b] = math.Log(c / (ReactionRateMax - c)) // c = 2·sigmoid(f)
	}
	tp := nets.NewTape()
	nom := sys.NominalOp(tp, tp.Const(theta), side)
	tru := sys.Closure().Apply(tp, tp.Const(theta), side, tp.Const(f))
	for b := range 3 {
		th, u0 := theta.Row(b), side.Row(b)
		if d := adMaxDiff(nom.Value.Row(b), sys.Nominal(th, u0)); d > 0 {
			t.Errorf("row %d: NominalOp differs by %g", b, d)
		}
		if d := adMaxDiff(tru.Value.Row(b), sys.True(th, u0)); d > 1e-12 {
			t.Errorf("row %d: closure at the true rate differs by %g", b, d)
		}
	}
}

func TestAdvDiffClosure(t *testing.T) {
	cl := newAdvDiff().Closure()
	if cl.Name() != "reaction" || cl.Outputs() != 1 {
		t.Errorf("closure %q with %d outputs", cl.Name(), cl.Outputs())
	}
	if q := cl.Queries(); len(q) != 1 || len(q[0]) != 0 {
		t.Errorf("queries %v, want one empty state", q)
	}
	logit := func(c float64) float64 { return math.Log(c / (ReactionRateMax - c)) }
	for _, tc := range []struct {
		c    float64
		clip bool
	}{{1, false}, {0.36, false}, {0.05, false}, {1.95, false}, {0.03, true}, {1.97, true}} {
		if got := cl.Clipped([]float64{logit(tc.c)}); got != tc.clip {
			t.Errorf("Clipped at c = %g: %v, want %v", tc.c, got, tc.clip)
		}
	}
	if !cl.Clipped([]float64{50}) || !cl.Clipped([]float64{-50}) {
		t.Error("extreme f not clipped")
	}
}

// TestAdvDiffEncodeContext checks the features at grid and off-grid
// points: the plain ones, the transported field equal to u0 at t = 0, and
// for a single-mode u0 the analytic u0(x − v_j t).
func TestAdvDiffEncodeContext(t *testing.T) {
	sys := newAdvDiff()
	const m = 3
	k := 2 * math.Pi * m
	u0 := make([]float64, 64)
	for i := range u0 {
		u0[i] = 0.6 + 0.4*math.Cos(k*float64(i)/64)
	}
	rng := rand.New(rand.NewPCG(17, 18))
	ctx := Context{}
	for i := range 50 {
		st := []float64{rng.Float64(), rng.Float64()}
		if i < 10 {
			st = []float64{0, float64(i*5) / 64} // grid points at t = 0
		}
		ctx.States = append(ctx.States, st)
		ctx.Values = append(ctx.Values, []float64{rng.Float64()})
		ctx.Mask = append(ctx.Mask, []bool{true})
		ctx.GridIndex = append(ctx.GridIndex, -1)
	}
	dst := nets.NewTensor(ctx.Len(), sys.FeatureLen())
	sys.EncodeContext(dst, ctx, u0)
	for i, st := range ctx.States {
		tt, x := st[0], st[1]
		row := dst.Row(i)
		want := []float64{2*tt - 1, math.Sin(2 * math.Pi * x), math.Cos(2 * math.Pi * x), ctx.Values[i][0]}
		var tr []float64
		for j := range 8 {
			vj := 0.3 + 1.7*float64(j)/7
			tr = append(tr, 0.6+0.4*math.Cos(k*(x-vj*tt)))
		}
		want = append(want, tr...)
		u := ctx.Values[i][0]
		for _, f := range tr {
			want = append(want, u*f)
		}
		for _, f := range tr {
			want = append(want, (u-f)*(u-f))
		}
		if d := adMaxDiff(row, want); d > 1e-12 {
			t.Fatalf("observation %d at (%g, %g): features %v, want %v", i, tt, x, row, want)
		}
		if i < 10 {
			for j := 4; j < 12; j++ {
				if math.Abs(row[j]-u0[i*5]) > 1e-13 {
					t.Fatalf("t = 0 transported feature %g, want u0 = %g", row[j], u0[i*5])
				}
			}
		}
	}
}
