package checkpoints

import (
	"embed"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"apic/core"
)

// The ablation atlas: one trained model per value of an ablation axis
// (λθ, λδ, the regulariser), embedded beside the shipped checkpoints as
// atlas/SYSTEM-AXIS-VALUE.safetensors, so that the explorer switches
// between them at once and its ablation view reads their curves without
// training. Each file is an ordinary checkpoint recording its own
// training configuration; checkpoints/atlas/README.md gives the
// commands and budgets.
//
//go:embed atlas/*.safetensors
var atlasFiles embed.FS

// atlasDir is the atlas's directory, and the prefix of its files' names
// in embedded:atlas/FILE.
const atlasDir = "atlas"

// AtlasPrefix begins the name of every atlas file after "embedded:"
// (Cell.Name).
const AtlasPrefix = atlasDir + "/"

// The atlas's axes, as spelled in its file names (the train flags).
const (
	AxisLambdaTheta = "lambda-theta"
	AxisLambdaDelta = "lambda-delta"
	AxisReg         = "reg"
)

// AtlasAxes lists the axes in display order.
var AtlasAxes = []string{AxisLambdaTheta, AxisLambdaDelta, AxisReg}

// MaxAtlasBytes bounds the atlas's files together (issue 22): the
// program carries them in every binary.
const MaxAtlasBytes = 25 << 20

// Cell is one model of the atlas: system, axis and the axis's value as
// its file name spells it ("0.1", "gradpen").
type Cell struct {
	System, Axis, Value string
}

// File is the cell's file name within the atlas.
func (c Cell) File() string { return c.System + "-" + c.Axis + "-" + c.Value + suffix }

// Name is the cell as the commands name embedded checkpoints after
// "embedded:" (atlas/spring-lambda-theta-0.1.safetensors).
func (c Cell) Name() string { return AtlasPrefix + c.File() }

// Number is a λ axis's value as a number (NaN on the reg axis).
func (c Cell) Number() float64 {
	if c.Axis == AxisReg {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(c.Value, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// Data returns the cell's checkpoint bytes.
func (c Cell) Data() ([]byte, error) {
	b, err := atlasFiles.ReadFile(c.Name())
	if err != nil {
		return nil, fmt.Errorf("atlas cell %s: %w", c.File(), err)
	}
	return b, nil
}

// Config is the configuration the cell's file records (its training λθ,
// λδ and regulariser), read from the file's header alone.
func (c Cell) Config() (core.Config, error) {
	b, err := c.Data()
	if err != nil {
		return core.Config{}, err
	}
	cfg, err := core.DecodeCheckpointConfig(b)
	if err != nil {
		return core.Config{}, fmt.Errorf("atlas cell %s: %w", c.File(), err)
	}
	return cfg, nil
}

// Load decodes the cell's model.
func (c Cell) Load() (*core.Model, core.Info, error) {
	b, err := c.Data()
	if err != nil {
		return nil, core.Info{}, err
	}
	m, info, err := core.DecodeCheckpoint(b)
	if err != nil {
		return nil, core.Info{}, fmt.Errorf("atlas cell %s: %w", c.File(), err)
	}
	return m, info, nil
}

// parseCell reads a cell from an atlas file name; ok is false for a
// name that is not SYSTEM-AXIS-VALUE.safetensors with a known axis and,
// on a λ axis, a number for VALUE.
func parseCell(file string) (Cell, bool) {
	stem, ok := strings.CutSuffix(file, suffix)
	if !ok {
		return Cell{}, false
	}
	system, rest, ok := strings.Cut(stem, "-")
	if !ok || system == "" {
		return Cell{}, false
	}
	for _, axis := range AtlasAxes {
		value, ok := strings.CutPrefix(rest, axis+"-")
		if !ok || value == "" {
			continue
		}
		c := Cell{System: system, Axis: axis, Value: value}
		if axis != AxisReg && math.IsNaN(c.Number()) {
			return Cell{}, false
		}
		return c, true
	}
	return Cell{}, false
}

// Atlas lists the atlas's cells by system, axis (in AtlasAxes order)
// and value (numeric on the λ axes, core.Regularizers order on reg).
func Atlas() []Cell {
	var out []Cell
	for _, f := range atlasFileNames() {
		if c, ok := parseCell(f); ok {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, compareCells)
	return out
}

// atlasFileNames lists the atlas directory's checkpoint files.
func atlasFileNames() []string {
	entries, err := fs.ReadDir(atlasFiles, atlasDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), suffix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// compareCells orders cells as Atlas lists them.
func compareCells(a, b Cell) int {
	if c := strings.Compare(a.System, b.System); c != 0 {
		return c
	}
	if c := slices.Index(AtlasAxes, a.Axis) - slices.Index(AtlasAxes, b.Axis); c != 0 {
		return c
	}
	if a.Axis == AxisReg {
		ra, rb := slices.Index(core.Regularizers, core.Regularizer(a.Value)), slices.Index(core.Regularizers, core.Regularizer(b.Value))
		if ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Value, b.Value)
	}
	switch na, nb := a.Number(), b.Number(); {
	case na < nb:
		return -1
	case na > nb:
		return 1
	}
	return 0
}

// FindCell returns the atlas cell of system, axis and value (spelled as
// in the file names).
func FindCell(system, axis, value string) (Cell, bool) {
	c := Cell{System: system, Axis: axis, Value: value}
	if _, err := fs.Stat(atlasFiles, c.Name()); err != nil {
		return Cell{}, false
	}
	return c, true
}

// LoadCell decodes the atlas model of system, axis and value; a cell
// the atlas lacks is an error naming the cells of that system.
func LoadCell(system, axis, value string) (*core.Model, core.Info, error) {
	c, ok := FindCell(system, axis, value)
	if !ok {
		var have []string
		for _, x := range Atlas() {
			if x.System == system {
				have = append(have, x.Axis+"="+x.Value)
			}
		}
		return nil, core.Info{}, fmt.Errorf("the atlas has no %s cell %s=%s (it has: %s)", system, axis, value, strings.Join(have, ", "))
	}
	return c.Load()
}
