package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"apic/core"
	"apic/sims"
)

// A sweep's cell folder holds what a run wrote (cell.json: the cell's
// values; eval.json: its evaluation's report), and --collect summarises
// what it reads there. A value edited by hand, or a file of another
// tool's, is held to what a sweep writes: the flags' own bounds and
// names (a cell.json value as its --vary value would be, checkValue),
// the keys a sweep writes and no other, an ID its values make, and a
// report whose settings are those of the cell's values. The errors name
// the file and the value.

// decodeStrict decodes data into v, refusing a key v has no field for
// and anything after the JSON value.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more after the JSON object")
	}
	return nil
}

// checkCellValues refuses a cell whose seed or values no sweep writes:
// a seed past --seeds' bound, a value its axis's flag would refuse (a
// number out of its bound, a name not on its list).
func checkCellValues(c sweepCell) error {
	if err := core.LimitSweepSeeds.Check(c.Seed); err != nil {
		return fmt.Errorf("seed %d is beyond --seeds' bound: %w", c.Seed, err)
	}
	for _, s := range c.Axes {
		a, _ := lookupAxis(s.Name) // known: checkCellAxis
		if err := a.checkValue(s.Value); err != nil {
			return err
		}
	}
	return nil
}

// checkCellID refuses a cell whose ID is not the one its values and
// seed make, as the folder it is in is named: a value edited by hand in
// cell.json (or the folder renamed) would label the results with a
// setting the cell was not run with.
func checkCellID(c sweepCell, folder string) error {
	want := cellID(c.Axes, c.Seed)
	switch {
	case c.ID != want:
		return fmt.Errorf("its values and seed make the cell ID %s, not the %s it gives: a value was changed after the cell ran", core.QuoteInput(want), core.QuoteInput(c.ID))
	case folder != want:
		return fmt.Errorf("its values and seed make the cell ID %s, not the name of its folder, %s", core.QuoteInput(want), core.QuoteInput(folder))
	}
	return nil
}

// evalReportKeys are the keys every eval --json report has had since
// sweeps first kept them: a report without one is no report of eval's.
var evalReportKeys = []string{"system", "backbone", "tasks", "context", "noise", "seed", "samples", "refine", "metrics", "failures"}

// checkReportKeys refuses a report data missing a key of
// evalReportKeys, or one of the metrics a sweep summarises; keys no
// report has are refused by decodeStrict.
func checkReportKeys(data []byte) error {
	var top, metrics map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	for _, k := range evalReportKeys {
		if _, ok := top[k]; !ok {
			return fmt.Errorf("no %q: not the output of apic eval --json", k)
		}
	}
	if err := json.Unmarshal(top["metrics"], &metrics); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	for _, k := range sweepMetrics {
		if _, ok := metrics[k]; !ok && !strings.HasPrefix(k, onePassPrefix) {
			return fmt.Errorf("metrics: no %q: not the output of apic eval --json", k)
		}
	}
	for k := range metrics {
		if !slices.Contains(core.MetricKeys, k) && !slices.Contains(core.DiagnosticKeys, k) {
			return fmt.Errorf("metrics: %s is no metric of apic eval (%s)", core.QuoteInput(k), strings.Join(slices.Concat(core.MetricKeys, core.DiagnosticKeys), ", "))
		}
	}
	return nil
}

// checkReportValues refuses a report whose settings eval's flags would
// refuse or whose metrics no evaluation gives: a system or backbone
// that is none, counts past their flags' bounds, a context that leaves
// no targets, a mean outside its metric's range (an MAE below 0, an
// ECE or a coverage above 1), a negative spread.
func checkReportValues(rep core.Report) error {
	sys, err := sims.Lookup(rep.System)
	if err != nil {
		return err
	}
	if !slices.Contains(core.BackboneNames(), rep.Backbone) {
		return fmt.Errorf("backbone %s is none of %s", core.QuoteInput(rep.Backbone), strings.Join(core.BackboneNames(), ", "))
	}
	for _, c := range []struct {
		limit core.Limit
		v     int
	}{{core.LimitTasks, rep.Tasks}, {core.LimitSamples, rep.Samples}, {core.LimitRefine, rep.Refine}} {
		if err := c.limit.Check(c.v); err != nil {
			return err
		}
	}
	if g := sys.Grid(); rep.Context < 1 || rep.Context > g.Points()-1 {
		return fmt.Errorf("context %d is outside 1 to %d, the %s grid's points less one", rep.Context, g.Points()-1, rep.System)
	}
	if !(rep.Noise >= 0 && rep.Noise <= core.MaxNoise) {
		return fmt.Errorf("noise %v is outside 0 to %v", rep.Noise, core.MaxNoise)
	}
	for _, k := range slices.Sorted(maps.Keys(rep.Metrics)) {
		m := rep.Metrics[k]
		lo, hi := core.MetricRange(k)
		if !math.IsNaN(m.Mean) && !(m.Mean >= lo && m.Mean <= hi) {
			return fmt.Errorf("metrics: %s mean %v is outside [%v, %v], the values it takes", k, m.Mean, lo, hi)
		}
		if m.Std < 0 {
			return fmt.Errorf("metrics: %s std %v is below 0", k, m.Std)
		}
	}
	return nil
}

// checkReportIsCell refuses a cell's evaluation report whose settings
// differ from the values of the cell's evaluation axes: the results
// would be labelled with a setting they were not evaluated at.
func checkReportIsCell(c sweepCell, rep core.Report) error {
	for _, s := range c.Axes {
		var got, want string
		switch s.Name {
		case "context":
			got, want = strconv.Itoa(rep.Context), s.Value
		case "noise":
			x, _ := strconv.ParseFloat(s.Value, 64)
			got, want = strconv.FormatFloat(rep.Noise, 'g', -1, 64), strconv.FormatFloat(x, 'g', -1, 64)
		case "samples":
			n, _ := strconv.Atoi(s.Value)
			got, want = strconv.Itoa(rep.Samples), strconv.Itoa(core.Backbone(rep.Backbone).SamplesDrawn(n))
		case "refine":
			if s.Value == "-1" { // the checkpoint's count, whatever it is
				continue
			}
			got, want = strconv.Itoa(rep.Refine), s.Value
		case "backbone":
			got, want = rep.Backbone, s.Value
		default:
			continue
		}
		if a, _ := lookupAxis(s.Name); a.sameAs(got) != a.sameAs(want) {
			return fmt.Errorf("it was evaluated with %s %s, and the cell's cell.json gives %s=%s", s.Name, got, s.Name, core.QuoteInput(s.Value))
		}
	}
	return nil
}
