//go:build ignore

// evaltable turns a stream of `apic eval --json` objects on stdin into a
// Markdown table, one row per object, so that the tables in README.md and
// docs/ are command output that docs/regen.sh can rewrite.
//
//	apic eval --system spring --backbone cnp --json | go run docs/evaltable.go -cols recon_mae,theta_mae
//
// -label names the row's leading columns (system, backbone, seed, model),
// -cols the metrics (a metric of "metrics", or theta.NAME for one
// parameter's θ MAE), -std adds "± std", and -paper follows each apic row
// with the paper's row for its system and backbone (its Tables 1–3).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

type stat struct {
	Mean any `json:"mean"`
	Std  any `json:"std"`
}

type evalResult struct {
	System   string          `json:"system"`
	Backbone string          `json:"backbone"`
	Metrics  map[string]stat `json:"metrics"`
	PerParam map[string]stat `json:"theta_mae_per_param"`
}

// headers are the column titles of the metrics.
var headers = map[string]string{
	"recon_mae":     "recon MAE",
	"recon_ll":      "recon LL",
	"recon_ece":     "recon ECE",
	"delta_mae":     "δ MAE",
	"delta_ll":      "δ LL",
	"delta_ece":     "δ ECE",
	"theta_mae":     "θ MAE",
	"nominal_mae":   "F(θ̂) MAE",
	"theta_cover95": "θ cover95",
}

// greek names the parameters in column titles as the paper writes them.
var greek = map[string]string{"alpha": "α", "beta": "β", "eta": "η", "gamma": "γ", "kappa": "κ", "omega": "ω"}

// title is the column title of a label or metric column.
func title(c string) string {
	if h, ok := headers[c]; ok {
		return h
	}
	if name, ok := strings.CutPrefix(c, "theta."); ok {
		if g, ok := greek[name]; ok {
			name = g
		}
		return "θ MAE " + name
	}
	return c
}

// paper holds the APIC rows of the paper's Tables 1–3 (means only).
var paper = map[string]map[string]string{
	"spring/cnp":  {"recon_mae": "0.013", "recon_ll": "1.133", "recon_ece": "0.247", "delta_mae": "0.009", "delta_ll": "1.130", "delta_ece": "0.298", "theta_mae": "0.097"},
	"spring/lnp":  {"recon_mae": "0.015", "recon_ll": "1.121", "recon_ece": "0.128", "delta_mae": "0.011", "delta_ll": "1.136", "delta_ece": "0.168", "theta_mae": "0.081"},
	"spring/anp":  {"recon_mae": "0.023", "recon_ll": "0.932", "recon_ece": "0.147", "delta_mae": "0.037", "delta_ll": "0.663", "delta_ece": "0.241", "theta_mae": "0.104"},
	"lv/cnp":      {"recon_mae": "0.544", "recon_ll": "0.680", "recon_ece": "0.143", "delta_mae": "0.048", "delta_ll": "0.085", "delta_ece": "0.206", "theta_mae": "0.049"},
	"lv/lnp":      {"recon_mae": "0.036", "recon_ll": "1.454", "recon_ece": "0.251", "delta_mae": "0.030", "delta_ll": "1.268", "delta_ece": "0.279", "theta_mae": "0.059"},
	"lv/anp":      {"recon_mae": "0.061", "recon_ll": "1.369", "recon_ece": "0.248", "delta_mae": "0.048", "delta_ll": "1.738", "delta_ece": "0.273", "theta_mae": "0.102"},
	"advdiff/cnp": {"recon_mae": "0.054", "recon_ll": "1.177", "recon_ece": "0.041", "delta_mae": "0.025", "delta_ll": "1.475", "delta_ece": "0.170", "theta.kappa": "0.019", "theta.v": "0.371"},
	"advdiff/lnp": {"recon_mae": "0.010", "recon_ll": "2.713", "recon_ece": "0.064", "delta_mae": "0.007", "delta_ll": "2.925", "delta_ece": "0.209", "theta.kappa": "0.004", "theta.v": "0.059"},
	"advdiff/anp": {"recon_mae": "0.053", "recon_ll": "1.183", "recon_ece": "0.043", "delta_mae": "0.026", "delta_ll": "1.502", "delta_ece": "0.173", "theta.kappa": "0.019", "theta.v": "0.361"},
}

func main() {
	label := flag.String("label", "model", "leading columns, comma-separated: model, name (from -names) or a top-level key of the JSON (system, backbone, seed, context, noise, refine, ...)")
	names := flag.String("names", "", "row names for the label column name, comma-separated, in input order")
	cols := flag.String("cols", "recon_mae,recon_ll,recon_ece,delta_mae,delta_ll,delta_ece,theta_mae", "metric columns, comma-separated")
	withStd := flag.Bool("std", false, "write mean ± std")
	withPaper := flag.Bool("paper", false, "follow each row with the paper's row for its system and backbone")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, split(*label), split(*cols), split(*names), *withStd, *withPaper); err != nil {
		fmt.Fprintln(os.Stderr, "evaltable:", err)
		os.Exit(1)
	}
}

func split(s string) []string { return strings.Split(s, ",") }

func run(in io.Reader, out io.Writer, labels, cols, names []string, withStd, withPaper bool) error {
	var b strings.Builder
	titles := append(append([]string{}, labels...), cols...)
	for i, c := range titles {
		titles[i] = title(c)
	}
	b.WriteString("| " + strings.Join(titles, " | ") + " |\n")
	b.WriteString(strings.Repeat("|---", len(titles)) + "|\n")
	dec := json.NewDecoder(in)
	rows := 0
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		var r evalResult
		var top map[string]any
		if err == nil {
			err = json.Unmarshal(raw, &r)
		}
		if err == nil {
			err = json.Unmarshal(raw, &top)
		}
		if err != nil {
			return fmt.Errorf("reading eval JSON object %d: %w", rows+1, err)
		}
		name := ""
		if rows < len(names) {
			name = names[rows]
		}
		rows++
		cells, err := rowCells(r, top, name, labels, cols, withStd)
		if err != nil {
			return err
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		if withPaper {
			b.WriteString(paperRow(r, labels, cols) + "\n")
		}
	}
	if rows == 0 {
		return errors.New("no eval JSON on stdin")
	}
	_, err := io.WriteString(out, b.String())
	return err
}

func rowCells(r evalResult, top map[string]any, name string, labels, cols []string, withStd bool) ([]string, error) {
	var cells []string
	for _, l := range labels {
		switch v, ok := top[l]; {
		case l == "model":
			cells = append(cells, "apic "+strings.ToUpper(r.Backbone))
		case l == "name":
			cells = append(cells, name)
		case ok:
			cells = append(cells, fmt.Sprint(v))
		default:
			return nil, fmt.Errorf("%s/%s: no label column %q", r.System, r.Backbone, l)
		}
	}
	for _, c := range cols {
		s, ok := r.Metrics[c]
		if name, isParam := strings.CutPrefix(c, "theta."); isParam {
			s, ok = r.PerParam[name]
		}
		if !ok {
			return nil, fmt.Errorf("%s/%s: no metric %q", r.System, r.Backbone, c)
		}
		cell := number(s.Mean)
		if withStd {
			cell += " ± " + number(s.Std)
		}
		cells = append(cells, cell)
	}
	return cells, nil
}

func paperRow(r evalResult, labels, cols []string) string {
	cells := make([]string, 0, len(labels)+len(cols))
	for range labels {
		cells = append(cells, "")
	}
	cells[0] = "paper APIC-" + strings.ToUpper(r.Backbone)
	p := paper[r.System+"/"+r.Backbone]
	for _, c := range cols {
		cells = append(cells, p[c])
	}
	return "| " + strings.Join(cells, " | ") + " |"
}

// number writes a metric with two decimals from 1 up, three from 0.1,
// otherwise four decimals or two significant digits, whichever shows
// more; eval
// writes non-finite values as strings.
func number(v any) string {
	f, ok := v.(float64)
	if !ok {
		return fmt.Sprint(v)
	}
	a := math.Abs(f)
	switch {
	case a >= 1000:
		return fmt.Sprintf("%.4g", f)
	case a >= 1:
		return fmt.Sprintf("%.2f", f)
	case a >= 0.1:
		return fmt.Sprintf("%.3f", f)
	case a == 0:
		return "0"
	}
	decimals := max(4, 1-int(math.Floor(math.Log10(a))))
	return strconv.FormatFloat(f, 'f', min(decimals, 8), 64)
}
