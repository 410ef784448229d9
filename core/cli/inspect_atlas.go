package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"apic/checkpoints"
)

// atlasRow is one atlas cell as inspect --atlas lists it: the axis value
// its name gives, and what its file records.
type atlasRow struct {
	File        string  `json:"file"`
	System      string  `json:"system"`
	Axis        string  `json:"axis"`
	Value       string  `json:"value"`
	Backbone    string  `json:"backbone"`
	LambdaTheta float64 `json:"lambda_theta"`
	LambdaDelta float64 `json:"lambda_delta"`
	Reg         string  `json:"reg"`
	Steps1      int     `json:"steps1"`
	Steps2      int     `json:"steps2"`
	WallSeconds float64 `json:"wall_seconds"`
	Bytes       int     `json:"bytes"`
}

// atlasRows decodes every atlas cell for its record.
func atlasRows() ([]atlasRow, error) {
	var rows []atlasRow
	for _, c := range checkpoints.Atlas() {
		data, err := c.Data()
		if err != nil {
			return nil, err
		}
		m, info, err := c.Load()
		if err != nil {
			return nil, err
		}
		t := m.Config.Train
		rows = append(rows, atlasRow{File: embeddedPrefix + c.Name(), System: c.System, Axis: c.Axis, Value: c.Value,
			Backbone: string(m.Config.Arch.Backbone), LambdaTheta: t.LambdaTheta, LambdaDelta: t.LambdaDelta, Reg: string(t.Reg),
			Steps1: info.Steps1, Steps2: info.Steps2, WallSeconds: info.WallSeconds, Bytes: len(data)})
	}
	return rows, nil
}

// writeAtlas lists the ablation atlas (inspect --atlas).
func writeAtlas(w io.Writer, jsonOut bool) error {
	rows, err := atlasRows()
	if err != nil {
		return err
	}
	if jsonOut {
		if rows == nil {
			rows = []atlasRow{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"atlas": rows})
	}
	total := 0
	for _, r := range rows {
		total += r.Bytes
	}
	fmt.Fprintf(w, "ablation atlas: %d models, %.1f MiB (checkpoints/atlas/README.md: how they were trained)\n", len(rows), float64(total)/(1<<20))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "system\taxis\tvalue\tbackbone\tλθ\tλδ\treg\tsteps\twall s\tfile")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%g\t%g\t%s\t%d+%d\t%.0f\t%s\n", r.System, r.Axis, r.Value, r.Backbone,
			r.LambdaTheta, r.LambdaDelta, r.Reg, r.Steps1, r.Steps2, r.WallSeconds, r.File)
	}
	return tw.Flush()
}
