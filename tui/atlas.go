package tui

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"apic/checkpoints"
	"apic/core"
)

// The ablation atlas in the explorer: moving λθ, λδ or the regulariser
// to a value the atlas holds a model for switches to that model at once,
// without training (issue 22); other values only mark the model stale,
// as before, and t trains.

// AtlasCell is one model of the ablation atlas as the explorer uses it:
// the cell, the training settings its file records, and how to load it.
type AtlasCell struct {
	checkpoints.Cell
	Backbone string
	Train    core.Train
	Load     func() (*core.Model, core.Info, error)
}

// EmbeddedAtlas lists the atlas embedded in the program; a cell whose
// header cannot be read is left out (the checkpoints tests refuse one).
func EmbeddedAtlas() []AtlasCell {
	var out []AtlasCell
	for _, c := range checkpoints.Atlas() {
		cfg, err := c.Config()
		if err != nil {
			continue
		}
		out = append(out, AtlasCell{Cell: c, Backbone: string(cfg.Arch.Backbone), Train: cfg.Train, Load: c.Load})
	}
	return out
}

// axisControl is the control of an atlas axis.
var axisControl = map[string]control{
	checkpoints.AxisLambdaTheta: ctlLamTheta,
	checkpoints.AxisLambdaDelta: ctlLamDelta,
	checkpoints.AxisReg:         ctlReg,
}

// controlAxis is the atlas (and sweep) axis of control id, or "" for a
// control that is none.
func controlAxis(id control) string {
	for axis, c := range axisControl {
		if c == id {
			return axis
		}
	}
	return ""
}

// axisSymbol names an axis as the controls do.
var axisSymbol = map[string]string{
	checkpoints.AxisLambdaTheta: "λθ",
	checkpoints.AxisLambdaDelta: "λδ",
	checkpoints.AxisReg:         "reg",
}

// label is the cell as the header names it: "spring λθ=0.2".
func (c AtlasCell) label() string {
	return fmt.Sprintf("%s %s=%s", c.System, axisSymbol[c.Axis], c.Value)
}

// atlasSources are the header's labels of atlas entry e, longest
// first, each with its training budget and, where it differs, that of
// the model under the atlas, which the controls go back to: "atlas:
// spring λθ=0.5, 1000+2000 steps (shipped 1000+6000)". The atlas was
// trained on a smaller budget than the shipped models, so a user
// comparing λθ values compares budgets too; the note that said so
// when the model loaded went with the next message.
func (e *entry) atlasSources(t theme) []string {
	axis := fmt.Sprintf("%s=%s", axisSymbol[e.cell.Axis], e.cell.Value)
	split := fmt.Sprintf("%d+%d steps", e.info.Steps1, e.info.Steps2)
	total := fmt.Sprintf("%d steps", e.info.Steps1+e.info.Steps2)
	if under, ok := e.budgetUnder(); ok {
		split += fmt.Sprintf(" (%s %d+%d)", under, e.prev.info.Steps1, e.prev.info.Steps2)
		total += fmt.Sprintf(" (%s %d)", under, e.prev.info.Steps1+e.prev.info.Steps2)
	}
	short := e.savedText(t.shortPath)
	return []string{
		"atlas: " + e.cell.label() + ", " + split + e.savedText(func(p string) string { return p }),
		"atlas " + axis + ", " + split + short,
		"atlas " + axis + ", " + total + short,
		"atlas " + axis + ", " + total,
	}
}

// budgetUnder names the model under atlas entry e ("shipped"), when it
// was trained on another budget than e.
func (e *entry) budgetUnder() (string, bool) {
	p := e.prev
	if p == nil || p.info.Steps1+p.info.Steps2 == 0 || p.info.Steps1 == e.info.Steps1 && p.info.Steps2 == e.info.Steps2 {
		return "", false
	}
	switch p.src {
	case srcEmbedded:
		return "shipped", true
	case srcFile:
		return "file", true
	case srcTrained:
		return "trained here", true
	}
	return "", false
}

// settings are the values of λθ, λδ and the regulariser a model was
// trained with, or the controls show.
type settings struct {
	lamTheta, lamDelta float64
	reg                string
}

// trainControls are the settings the controls show.
func (m Model) trainControls() settings {
	return settings{m.lamTheta.value(), m.lamDelta.value(), m.reg.value()}
}

func trainSettings(t core.Train) settings {
	return settings{t.LambdaTheta, t.LambdaDelta, string(t.Reg)}
}

// of is the setting control id holds.
func (s settings) of(id control) any {
	switch id {
	case ctlLamTheta:
		return s.lamTheta
	case ctlLamDelta:
		return s.lamDelta
	}
	return s.reg
}

// atlasPick is the atlas cell for the controls' settings want, just
// after control moved moved: the cell trained at exactly want, or else
// one trained at moved's new value that shares most of the other two
// settings (on moved's own axis first), whose settings the controls
// then take. ok is false when no cell of system and backbone was
// trained at moved's new value.
func atlasPick(cells []AtlasCell, system, backbone string, moved control, want settings) (AtlasCell, bool) {
	best, bestScore := AtlasCell{}, -1
	for _, c := range cells {
		have := trainSettings(c.Train)
		if c.System != system || c.Backbone != backbone || have.of(moved) != want.of(moved) {
			continue
		}
		score := 0
		for _, id := range []control{ctlLamTheta, ctlLamDelta, ctlReg} {
			if id != moved && have.of(id) == want.of(id) {
				score += 2
			}
		}
		if axisControl[c.Axis] == moved {
			score++
		}
		if score > bestScore {
			best, bestScore = c, score
		}
	}
	return best, bestScore >= 0
}

// atlasValues are the values of the cells of system and backbone on
// the axis of control id, for its ladder.
func atlasValues(cells []AtlasCell, system, backbone string, id control) []float64 {
	var out []float64
	for _, c := range cells {
		if c.System == system && c.Backbone == backbone {
			if v, ok := trainSettings(c.Train).of(id).(float64); ok && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// atlasOffer is the note on a value of control id without an atlas
// model: the values of system and backbone that have one ("the atlas
// has λθ 0, 0.1, …", numbers in order, names as listed), or the
// backbone that has them; "" where the system has none, or one value
// only.
func atlasOffer(cells []AtlasCell, system, backbone string, id control) string {
	name := map[control]string{ctlLamTheta: "λθ", ctlLamDelta: "λδ", ctlReg: "regulariser"}[id]
	var numbers []float64
	var values, backbones []string
	for _, c := range cells {
		switch {
		case c.System != system:
		case c.Backbone != backbone:
			if !slices.Contains(backbones, c.Backbone) {
				backbones = append(backbones, c.Backbone)
			}
		default:
			v := trainSettings(c.Train).of(id)
			if x, ok := v.(float64); ok && !slices.Contains(numbers, x) {
				numbers = append(numbers, x)
			} else if !ok && !slices.Contains(values, fmt.Sprint(v)) {
				values = append(values, fmt.Sprint(v))
			}
		}
	}
	slices.Sort(numbers)
	for _, v := range numbers {
		values = append(values, formatLadder(v))
	}
	switch {
	case len(values) > 1:
		return fmt.Sprintf("the atlas has %s %s; t trains this one", name, strings.Join(values, ", "))
	case len(backbones) > 0 && len(values) == 0:
		return fmt.Sprintf("the atlas has %s/%s models only (b switches)", system, strings.Join(backbones, ", "))
	}
	return ""
}

// atlasCache holds the atlas models decoded so far, shared by the
// explorer's copies and its commands: each file is decoded once.
type atlasCache struct {
	mu     sync.Mutex
	models map[string]atlasModel
}

type atlasModel struct {
	model *core.Model
	info  core.Info
}

// load returns the cell's model, decoding it on first use.
func (c *atlasCache) load(cell AtlasCell) (*core.Model, core.Info, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.models[cell.File()]; ok {
		return got.model, got.info, nil
	}
	m, info, err := cell.Load()
	if err != nil {
		return nil, core.Info{}, err
	}
	if c.models == nil {
		c.models = map[string]atlasModel{}
	}
	c.models[cell.File()] = atlasModel{m, info}
	return m, info, nil
}

// cached is the cell's model if it was decoded, else nil.
func (c *atlasCache) cached(cell AtlasCell) *core.Model {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.models[cell.File()].model
}

// backToBase brings back base, the model under the atlas cells, whose
// settings the controls then show, saying so and naming any setting of
// want it could not keep.
func (m *Model) backToBase(base *entry, want settings) tea.Cmd {
	m.entries[m.key()] = base
	m.syncTraining()
	have := trainSettings(base.model.Config.Train)
	m.setMsg(msgInfo, "back to the %s model: %s%s", base.sourceText(), have, unmatched(want, have))
	m.atlasMsg = m.msg
	return m.reinfer()
}

// String is "λθ 1, λδ 100, spread".
func (s settings) String() string {
	return fmt.Sprintf("λθ %s, λδ %s, %s", formatLadder(s.lamTheta), formatLadder(s.lamDelta), s.reg)
}

// unmatched is " (no model at λδ 10)" naming the settings of want that
// the model loaded for it, trained at have, does not share: the
// controls were set back, and the note says from what. "" when none.
func unmatched(want, have settings) string {
	var left []string
	if want.lamTheta != have.lamTheta {
		left = append(left, "λθ "+formatLadder(want.lamTheta))
	}
	if want.lamDelta != have.lamDelta {
		left = append(left, "λδ "+formatLadder(want.lamDelta))
	}
	if want.reg != have.reg {
		left = append(left, want.reg)
	}
	if len(left) == 0 {
		return ""
	}
	return " (no model at " + strings.Join(left, ", ") + ")"
}

// switchAtlas loads the atlas model for the controls after control
// moved changed, when the atlas has one; otherwise the model on screen
// stays and is marked stale. It does nothing while a run trains (the
// controls then describe the next run).
func (m *Model) switchAtlas(moved control) tea.Cmd {
	if m.run != nil {
		return nil
	}
	want := m.trainControls()
	// Settings back at those of the model under the atlas cells (the
	// shipped one, a file, trained weights) bring that model back: the
	// same controls must not show another model, trained on a smaller
	// budget, with other numbers.
	base := m.entry()
	if base.src == srcAtlas && base.prev != nil {
		base = base.prev // atlas cells replace each other: u goes back past them all
	}
	if base != m.entry() && trainSettings(base.model.Config.Train) == want {
		return m.backToBase(base, want)
	}
	cell, ok := atlasPick(m.atlas, m.sys().Name(), m.backbone.value(), moved, want)
	if !ok {
		// The model stays, now stale (the status line says so): a note
		// that it was loaded at, or brought back by, the settings the
		// controls just left no longer describes them.
		if m.msgKind == msgInfo && m.msg != "" && m.msg == m.atlasMsg {
			m.setMsg(msgInfo, "")
		}
		// Which values load at once, so that a class need not wait on
		// a value the atlas lacks to learn that it lacks it.
		if offer := atlasOffer(m.atlas, m.sys().Name(), m.backbone.value(), moved); offer != "" {
			m.setKeyNote("%s", offer)
		}
		return nil
	}
	// A cell trained at the settings of the model under the atlas (the
	// shipped one, say: the λθ axis passes through its λθ) brings that
	// model back, on its full budget, as reaching those settings by
	// another control does.
	if trainSettings(base.model.Config.Train) == trainSettings(cell.Train) {
		return m.backToBase(base, want)
	}
	if e := m.entry(); e.src == srcAtlas && e.cell.File() == cell.File() {
		m.syncTraining()
		return nil
	}
	model, info, err := m.atlasModels.load(cell)
	if err != nil {
		m.setMsg(msgErr, "atlas: %v", err)
		return nil
	}
	m.entries[m.key()] = &entry{model: model, src: srcAtlas, info: info, cell: cell, prev: base}
	m.syncTraining()
	if have := trainSettings(cell.Train); have == want {
		m.setMsg(msgInfo, "loaded atlas %s (%d+%d steps) · u goes back", cell.label(), info.Steps1, info.Steps2)
	} else {
		m.setMsg(msgInfo, "loaded atlas %s: %s%s · u goes back", cell.label(), have, unmatched(want, have))
	}
	m.atlasMsg = m.msg
	return m.reinfer()
}
