package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"apic/core"
	"apic/core/bcpi"
	"apic/core/cpinn"
	"apic/core/kohgp"
	"apic/sims"
)

// compareAPICName selects every APIC checkpoint in --methods.
const compareAPICName = "apic"

// compareCPINNFlag is Correction-PINN's short name in --methods; its
// rows and JSON key are cpinn.Name.
const compareCPINNFlag = "cpinn"

// compareMethodNames are the --methods names, in the tables' order.
var compareMethodNames = []string{kohgp.Name, bcpi.Name, compareCPINNFlag, compareAPICName}

// compareDefaultMethods is --methods' default: KOH-GP and APIC. BCPI and
// Correction-PINN cost seconds to minutes per realization, so a plain
// 'apic compare' would run for hours; "all" asks for every method.
var compareDefaultMethods = []string{kohgp.Name, compareAPICName}

// parseCompareMethods reads --methods into a set keyed by kohgp.Name,
// bcpi.Name, cpinn.Name and compareAPICName, each name in any case;
// a method named twice, in any spelling, is refused.
func parseCompareMethods(list string) (map[string]bool, error) {
	chosen := map[string]bool{}
	if canonicalName(strings.TrimSpace(list), []string{"all"}) == "all" {
		list = strings.Join(compareMethodNames, ",")
	}
	// In any ASCII case, as --system takes names: KOH-GP is koh-gp, and
	// koh-gp,KOH-GP one method given twice, which is refused.
	known := append([]string{cpinn.Name}, compareMethodNames...)
	given := map[string]string{} // each chosen method's name as typed
	for _, typed := range strings.Split(list, ",") {
		if canonicalName(strings.TrimSpace(typed), []string{"all"}) == "all" {
			// Refused as unknown, it would contradict the names listed.
			return nil, UsageError("--methods: all is every method and stands alone: give --methods all, or a list without it (got %s)", core.QuoteInput(list))
		}
		name := canonicalName(strings.TrimSpace(typed), known)
		switch name {
		case kohgp.Name, bcpi.Name, compareAPICName:
		case compareCPINNFlag, cpinn.Name:
			name = cpinn.Name
		default:
			return nil, UsageError("--methods: unknown method %s (want a comma-separated list of %s, or all)", core.QuoteInput(name), strings.Join(compareMethodNames, ", "))
		}
		if first, twice := given[name]; twice {
			// Run once, it would leave the list's reader wondering
			// whether the second was meant as another method.
			return nil, UsageError("--methods: %s is given twice (%s and %s): name each method once", name, core.QuoteInput(strings.TrimSpace(first)), core.QuoteInput(strings.TrimSpace(typed)))
		}
		given[name] = typed
		chosen[name] = true
	}
	return chosen, nil
}

// budgetFlags are the flags that set one baseline's budget, by the
// method they belong to.
var budgetFlags = map[string]string{
	"members": cpinn.Name, "steps": cpinn.Name,
	"bcpi-starts": bcpi.Name, "mcmc": bcpi.Name, "starts": kohgp.Name,
}

// checkBudgetFlags refuses a budget flag given for a method --methods
// leaves out: it would silently do nothing.
func checkBudgetFlags(fs *flag.FlagSet, chosen map[string]bool) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if m, ok := budgetFlags[f.Name]; ok && !chosen[m] && err == nil {
			err = UsageError("--%s sets %s's budget, which --methods leaves out (add it, e.g. --methods all)", f.Name, m)
		}
	})
	return err
}

// apicFlags are the flags that only the APIC checkpoints read.
var apicFlags = []string{"checkpoint", "samples", "refine", "raw-spread"}

// checkAPICFlags refuses an APIC flag when --methods leaves APIC out, as
// checkBudgetFlags refuses a baseline's: a --checkpoint FILE would go
// unread, even unchecked, and its row the user asked for never appear.
func checkAPICFlags(fs *flag.FlagSet, chosen map[string]bool) error {
	if chosen[compareAPICName] {
		return nil
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(apicFlags, f.Name) && err == nil {
			err = UsageError("--%s applies to the APIC checkpoints, which --methods leaves out (add %s to --methods)", f.Name, compareAPICName)
		}
	})
	return err
}

// dropUnsupported leaves BCPI out for a system it cannot calibrate (one
// without linear(ised) equations, or with more than two channels; none
// of the benchmark systems), with a note when --methods was not given,
// and is a usage error when it was.
func dropUnsupported(env *Env, fs *flag.FlagSet, sys sims.System, chosen map[string]bool) error {
	if !chosen[bcpi.Name] {
		return nil
	}
	if _, err := bcpi.New(sys, bcpi.Options{}); err != nil {
		given := false
		fs.Visit(func(f *flag.Flag) { given = given || f.Name == "methods" })
		if given {
			return UsageError("--methods: %v", err)
		}
		env.Notef("%v; left out", err)
		delete(chosen, bcpi.Name)
	}
	return nil
}

// findMethod returns the method called name, if compared.
func findMethod(methods []compareMethod, name string) (compareMethod, bool) {
	for _, m := range methods {
		if m.Name == name {
			return m, true
		}
	}
	return compareMethod{}, false
}

// apicMethods are the compared APIC models.
func apicMethods(methods []compareMethod) []compareMethod {
	var out []compareMethod
	for _, m := range methods {
		if !m.Baseline {
			out = append(out, m)
		}
	}
	return out
}

// baselineSettings are the per-realization baselines' flags.
type baselineSettings struct {
	starts         int
	seed           uint64
	workers        int
	members, steps int
	mcmc           int
	bcpiStarts     int
}

// compareBaselines runs the chosen per-realization baselines in the
// tables' order.
func compareBaselines(ctx context.Context, env *Env, sys sims.System, test []sims.Task, chosen map[string]bool, b baselineSettings, failed *[]failedMethod) ([]compareMethod, error) {
	var out []compareMethod
	for _, c := range []struct {
		name string
		run  func() (compareMethod, error)
	}{
		{kohgp.Name, func() (compareMethod, error) { return compareKOH(ctx, env, sys, test, b.starts, b.seed, b.workers) }},
		{bcpi.Name, func() (compareMethod, error) { return compareBCPI(ctx, env, sys, test, b) }},
		{cpinn.Name, func() (compareMethod, error) { return compareCPINN(ctx, env, sys, test, b) }},
	} {
		if !chosen[c.name] {
			continue
		}
		m, err := c.run()
		if left, err := leaveOut(env, c.name, err, failed); err != nil {
			return nil, err
		} else if left {
			continue
		}
		out = append(out, m)
	}
	return out, nil
}

// compareCPINN trains Correction-PINN ensembles one realization at a
// time, each ensemble's members in parallel on b.workers cores, so that
// a realization's time is the wall time of its whole ensemble.
func compareCPINN(ctx context.Context, env *Env, sys sims.System, test []sims.Task, b baselineSettings) (compareMethod, error) {
	c, err := cpinn.New(sys, cpinn.Options{Members: b.members, Steps: b.steps, Seed: b.seed, Workers: b.workers})
	if err != nil {
		return compareMethod{}, err
	}
	// Fit trains at most one member per goroutine.
	parallel := min(b.workers, b.members)
	env.Notef("%s: training %s × %s on %s, one realization at a time (%s each)", cpinn.Name,
		core.Count(len(test), "realization"), core.Count(b.members, "member"), core.Count(parallel, "worker"), core.Count(b.steps, "step"))
	prog := newTaskProgress(env, cpinn.Name)
	start := time.Now()
	run, err := core.RunMethod(ctx, sys, c, test, 1, prog.report)
	prog.finish()
	if err != nil {
		return compareMethod{}, err
	}
	settings := fmt.Sprintf("Correction-PINN: %s × %s per realization, members on %s", core.Count(b.members, "member"), core.Count(b.steps, "step"), core.Count(parallel, "worker"))
	return compareMethod{Name: cpinn.Name, Run: run, Wall: time.Since(start), Baseline: true, Workers: 1, Settings: settings,
		members: b.members, steps: b.steps, memberWorkers: parallel}, nil
}

// compareBCPI fits BCPI to every task on a worker pool, like KOH-GP.
func compareBCPI(ctx context.Context, env *Env, sys sims.System, test []sims.Task, b baselineSettings) (compareMethod, error) {
	c, err := bcpi.New(sys, bcpi.Options{Starts: b.bcpiStarts, Steps: b.mcmc, Seed: b.seed})
	if err != nil {
		return compareMethod{}, UsageError("%v (leave it out with --methods)", err)
	}
	workers := min(b.workers, len(test))
	env.Notef("%s: fitting %s (MAP from %s, then %s of adaptive Metropolis) on %s", bcpi.Name,
		core.Count(len(test), "realization"), core.Count(b.bcpiStarts, "start"), core.Count(b.mcmc, "step"), core.Count(workers, "worker"))
	prog := newTaskProgress(env, bcpi.Name)
	start := time.Now()
	run, err := core.RunMethod(ctx, sys, c, test, workers, prog.report)
	prog.finish()
	if err != nil {
		return compareMethod{}, err
	}
	settings := fmt.Sprintf("BCPI: MAP from %s and %s of adaptive Metropolis per realization, %s", core.Count(b.bcpiStarts, "L-BFGS start"), core.Count(b.mcmc, "step"), core.Count(workers, "worker"))
	return compareMethod{Name: bcpi.Name, Run: run, Wall: time.Since(start), Baseline: true, Workers: workers, Settings: settings, mcmc: b.mcmc}, nil
}

// baselineJSON adds a baseline's budget to its JSON entry.
func baselineJSON(j *compareMethodJSON, m compareMethod, starts int) {
	switch m.Name {
	case kohgp.Name:
		j.Starts = starts
	case cpinn.Name:
		j.Members, j.Steps = m.members, m.steps
	case bcpi.Name:
		j.MCMC = m.mcmc
	}
}
