package cli

import (
	"fmt"
	"slices"
	"strings"

	"apic/core"
	"apic/sims"
)

// sweepFigureTitle is sweep.png's title, in the diagnostics figure's
// style: "Damped spring · LNP · sweep of context, a series per noise · 2
// seeds × 8 realizations · mean ± t-based 95% interval over seeds", the
// system and backbone those of the cells' evaluations (the backbone left
// out where it differs between cells: the legend names it), the seeds
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
