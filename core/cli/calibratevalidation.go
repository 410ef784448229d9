package cli

import (
	"fmt"
	"strings"

	"apic/core"
)

// validationJSON is calibrate's --json "checkpoint_validation": what the
// checkpoint file records of its own validation at training time (the
// report 'apic inspect' prints), reduced to what says the model may be
// poor: the realizations validated, those that failed and the warnings.
type validationJSON struct {
	Tasks    int           `json:"tasks"`
	Failures core.Failures `json:"failures"`
	Warnings []string      `json:"warnings"`
}

// checkpointValidation is rep, the validation a checkpoint file
// records, as --json gives it; nil when the file records none.
func checkpointValidation(rep *core.Report) *validationJSON {
	if rep == nil {
		return nil
	}
	v := &validationJSON{Tasks: rep.Tasks, Failures: rep.Failures, Warnings: append([]string{}, rep.Warnings...)}
	if v.Failures.Realizations == nil {
		v.Failures.Realizations = []core.Failure{} // [] rather than null
	}
	return v
}

// validationNotes are the lines of rep, a checkpoint's recorded
// validation, that warn: its failures line, then each warning. None
// for a file that records no validation or a clean one.
func validationNotes(rep *core.Report) []string {
	if rep == nil {
		return nil
	}
	var notes []string
	if line := failureLine(rep.Failures, rep.Tasks); line != "" {
		notes = append(notes, "failures: "+line)
	}
	return append(notes, rep.Warnings...)
}

// writeValidationNotes writes, below calibrate's own warnings, the
// warnings and failures the checkpoint recorded when it was validated at
// training time: a checkpoint that validated poorly calibrates this data
// no better, and its user should see so without running inspect.
// Nothing is written for a clean record.
func writeValidationNotes(b *strings.Builder, c calibration) {
	notes := validationNotes(c.validation)
	if len(notes) == 0 {
		return
	}
	fmt.Fprintf(b, "the checkpoint's validation at training time (%s; apic inspect %s shows it):\n",
		core.Count(c.validation.Tasks, "realization"), shellQuote(c.checkpoint))
	for _, n := range notes {
		fmt.Fprintf(b, "  ! %s\n", n)
	}
	b.WriteString("\n")
}
