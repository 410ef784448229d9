package core

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a mean over realizations and its 95% confidence interval
// [Lo, Hi] = mean ± t·s/√n, Student's t at n−1 degrees of freedom: what
// an ablation's curve shows at each value, so that a difference reads
// against the spread of the realizations, not one realization's luck.
// With n < 2 the interval is the mean alone.
type Interval struct {
	Mean, Lo, Hi float64
	N            int // realizations behind it
}

// MeanInterval is the mean of xs and its 95% interval; NaN values (a
// metric a realization has none of) are left out, and no values give NaN.
func MeanInterval(xs []float64) Interval {
	n, sum := 0, 0.0
	for _, x := range xs {
		if !math.IsNaN(x) {
			n, sum = n+1, sum+x
		}
	}
	if n == 0 {
		return Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	mean := sum / float64(n)
	if n < 2 {
		return Interval{Mean: mean, Lo: mean, Hi: mean, N: n}
	}
	ss := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) {
			ss += (x - mean) * (x - mean)
		}
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	half := t * math.Sqrt(ss/float64(n-1)/float64(n))
	return Interval{Mean: mean, Lo: mean - half, Hi: mean + half, N: n}
}

// Intervals are the metrics of an evaluation as means with their 95%
// intervals over its realizations.
type Intervals struct {
	Tasks   int                 // realizations drawn
	Failed  int                 // of them, left out (their prediction failed)
	Context int                 // context size evaluated
	Noise   float64             // context noise σ
	Metrics map[string]Interval // by metric key (MetricKeys, DiagnosticKeys)
}

// EvaluateIntervals evaluates m as Evaluate does (opt.Tasks seeded
// realizations, the same draws and latent noise) and reduces each
// metric to its mean and 95% interval over the realizations that did
// not fail. ctx cancels between batches.
func EvaluateIntervals(ctx context.Context, m *Model, opt EvalOptions) (Intervals, error) {
	if err := LimitTasks.Check(opt.Tasks); err != nil {
		return Intervals{}, fmt.Errorf("evaluating intervals: %w", err)
	}
	rep, per, err := Evaluate(ctx, m, opt)
	if err != nil {
		return Intervals{}, err
	}
	out := Intervals{Tasks: rep.Tasks, Failed: rep.Failures.Count, Context: rep.Context, Noise: rep.Noise, Metrics: map[string]Interval{}}
	for _, k := range append(MetricKeys[:len(MetricKeys):len(MetricKeys)], DiagnosticKeys...) {
		xs := make([]float64, 0, len(per))
		for _, tm := range per {
			if tm.Failed == "" {
				xs = append(xs, tm.Values[k])
			}
		}
		out.Metrics[k] = MeanInterval(xs)
	}
	return out, nil
}
