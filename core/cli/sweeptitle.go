package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"apic/core"
	"apic/sims"
)

// sweepFigureTitle is sweep.png's title, in the diagnostics figure's
// style: "Damped spring · LNP · noise 0 · sweep of context, a series per
// refine · 2 seeds × 8 realizations · mean ± t-based 95% interval over
// seeds", the system, backbone, context and noise those of the cells'
// evaluations (the backbone left out where it differs between cells:
// the legend names it; context and noise as heldCondition), the seeds
// those of summary.json's cells. Its last part says what the points and
// error bars are, which the panels otherwise leave to guesswork (a
// standard deviation? a standard error?).
func sweepFigureTitle(axes []string, rows []sweepRow, sum sweepSummary) string {
	var systems, backbones []string
	var tasks, seeds []int
	for _, r := range rows {
		if r.system != "" {
			systems = append(systems, systemTitle(r.system))
		}
		backbones = append(backbones, strings.ToUpper(r.backbone))
		tasks = append(tasks, r.tasks)
	}
	for _, g := range sum.Cells {
		seeds = append(seeds, g.Seeds)
	}
	systems, backbones = slices.Compact(slices.Sorted(slices.Values(systems))), slices.Compact(slices.Sorted(slices.Values(backbones)))
	var parts []string
	if len(systems) > 0 {
		parts = append(parts, strings.Join(systems, ", "))
	}
	if len(backbones) == 1 && backbones[0] != "" {
		parts = append(parts, backbones[0])
	}
	if held := heldCondition(axes, rows); held != "" {
		parts = append(parts, held)
	}
	swept := "sweep of " + axes[0]
	if len(axes) > 1 {
		swept += ", a series per " + strings.Join(axes[1:], " and ")
	}
	parts = append(parts, swept, countRange(seeds, "seed")+" × "+countRange(tasks, "realization"))
	if slices.Max(append(seeds, 0)) > 1 {
		parts = append(parts, sweepBarsNote) // one seed: points, no bars
	}
	return strings.Join(parts, " · ")
}

// heldCondition names the context size and noise of the cells'
// evaluations that no axis varies, where every cell has the same:
// "context 30, noise 0.05". A sweep of the backbone at --fix noise=0.05
// was titled as if at no noise, and one of noise left its context
// unsaid. Axes that vary one leave it to the axis; cells that differ
// in one without an axis (a --collect of several sweeps) leave it out.
func heldCondition(axes []string, rows []sweepRow) string {
	if len(rows) == 0 {
		return ""
	}
	var parts []string
	same := func(f func(sweepRow) string) (string, bool) {
		v := f(rows[0])
		for _, r := range rows[1:] {
			if f(r) != v {
				return "", false
			}
		}
		return v, true
	}
	if !slices.Contains(axes, "context") {
		if v, ok := same(func(r sweepRow) string { return strconv.Itoa(r.context) }); ok && v != "0" {
			parts = append(parts, "context "+v)
		}
	}
	if !slices.Contains(axes, "noise") {
		if v, ok := same(func(r sweepRow) string { return trimFloat(r.noise) }); ok {
			parts = append(parts, "noise "+v)
		}
	}
	return strings.Join(parts, ", ")
}

// sweepBarsNote says what sweep.png's points and error bars are: the
// summary.json mean over seeds and its t-based 95% interval, the same
// numbers sweep's table prints (and, as the table, only where a cell has
// more than one seed and so an interval).
const sweepBarsNote = "mean ± t-based 95% interval over seeds"

// systemTitle is the title of the system named name, or the name where
// no system has it.
func systemTitle(name string) string {
	if sys, err := sims.Lookup(name); err == nil {
		return sys.Title()
	}
	return name
}

// countRange counts noun over ns, values that may differ between the
// cells: "2 seeds", or "1–3 seeds".
func countRange(ns []int, noun string) string {
	if len(ns) == 0 {
		return core.Count(0, noun)
	}
	lo, hi := slices.Min(ns), slices.Max(ns)
	if lo == hi {
		return core.Count(lo, noun)
	}
	return fmt.Sprintf("%d–%s", lo, core.Count(hi, noun))
}
