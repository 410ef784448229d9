package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"apic/checkpoints"
	"apic/core"
	"apic/core/cli"
	"apic/nets"
	"apic/sims"
)

// Options configure the explorer.
type Options struct {
	System     string // benchmark system (default "spring")
	Backbone   string // cnp, lnp or anp (default "lnp")
	Checkpoint string // a checkpoint file to open; it names system and backbone
	Seed       uint64 // seed of the realization on screen (default 1)
	ASCII      bool   // no colours, whatever the terminal can do
	SaveDir    string // where s suggests new checkpoint files (default ".")
	// Embedded looks up shipped checkpoints (default checkpoints.Lookup);
	// tests pass one that finds none, so their frames stay fixed.
	Embedded func(system, backbone string) ([]byte, bool)
	// Context is the parent of training runs (default Background).
	Context context.Context
	// RefineDelay is how long the controls must rest before the one-pass
	// prediction is refined by the model's own refinement steps (default
	// 150ms); negative never refines.
	RefineDelay time.Duration
	// Atlas lists the ablation atlas (default EmbeddedAtlas); tests pass
	// one that finds none, or their own.
	Atlas func() []AtlasCell
	// Averages is how many realizations the sidebar's averages, the
	// ablation view and the diagnostics evaluate (default avgTasks;
	// explore's --tasks); negative shows the one realization
	// only in the sidebar, the views then taking avgTasks.
	Averages int
}

// control identifies a row of the controls panel.
type control int

const (
	ctlSystem control = iota
	ctlBackbone
	ctlContext
	ctlNoise
	ctlLamTheta
	ctlLamDelta
	ctlReg
	ctlMode
	ctlSlice
	ctlTheta // + parameter index
)

// msgKind colours the message line.
type msgKind int

const (
	msgInfo msgKind = iota
	msgWarn
	msgErr
)

// Model is the explorer, a Bubble Tea model. It composes small
// components (plots, heatmaps, steppers, pickers, readouts) and keeps all
// numerics in package core: inference runs in commands off the UI
// goroutine and training in a goroutine of its own.
type Model struct {
	opts          Options
	keys          KeyMap
	help          help.Model
	helpTop       int // the first line the ? help shows when it is taller than the screen
	theme         theme
	width, height int

	systems  []sims.System
	sysIdx   int
	backbone picker
	entries  map[entryKey]*entry

	ctxSteps                  map[string]stepper // context size per system
	noise, lamTheta, lamDelta stepper
	reg, mode                 picker
	theta                     []thetaControl
	slice                     int            // time index of the advdiff slice
	slices                    map[string]int // the slice each 2-D system was left at, as ctxSteps keeps its context
	heat                      bool
	page                      int
	focus                     int

	// thetas are the θ rows (θ set by hand) each system was left with,
	// as ctxSteps keeps its context.
	thetas map[string][]thetaControl

	seed  uint64
	real  sims.Realization
	split sims.Split

	gen      int  // inference generation; results of older ones are dropped
	inflight bool // an inference command is running
	pending  bool // the controls changed while it ran
	snap     map[string]*nets.Tensor
	live     *core.Model  // newest snapshot model while a run trains
	res      *inferMsg    // the result on screen
	kept     *stalePanels // the panels kept on screen while res is nil after a switch

	runs   []*trainRun // runs whose goroutine has not reported its end
	run    *trainRun   // the run the status line follows
	runSeq int
	prog   *core.Progress
	losses []float64

	prompt prompt
	// completeSeq numbers the prompt's tabs (prompt.tab), so that a
	// directory read's answer reaches only the tab that asked for it.
	completeSeq int
	// opening is the file an open still reads, "" when none; openGen
	// numbers the opens, so that one superseded or given up is dropped
	// when it ends.
	opening string
	openGen int
	msg     string
	msgKind msgKind
	// keyNote says msg is a note on what the last key did (or could not
	// do), or a warning of what it does pressed again (switchArmed): the
	// next key that acts takes it off, where it would read as about that
	// key's doing. Any other message clears it.
	keyNote  bool
	rangeMsg string // the training-range warning noteRange last showed
	// atlasMsg is the note switchAtlas last set ("loaded atlas …",
	// "back to the … model"); it goes when the controls leave the
	// settings it names.
	atlasMsg string
	quitting bool
	// saves follows the saves (s) whose file is being written: a quit
	// waits for them (quit), as it waits for training to stop, and the
	// end of the session finishes them (saveJobs).
	saves *saveJobs
	// quitArmed: the last key was a quit that warned of these unsaved
	// weights (and runs); another quit goes ahead while they are the same.
	quitArmed string
	// quitMsg is the status message that warning set, which goes with
	// the arm: left up, "q again quits" was untrue after any other key.
	quitMsg string
	// againArmed is the key, s or u, whose warning the last key put up:
	// s that the weights on screen are in a file already (s again saves
	// a copy), u that it drops weights trained here and not saved (u
	// again drops them). The same key again goes ahead.
	againArmed string
	// switchArmed: the key note is the warning of a key that asked to
	// show another system or backbone (or to open a checkpoint) and
	// named the work that would stop; the same key again goes ahead.
	// It goes with the note.
	switchArmed switchArm
	initCmd     tea.Cmd // the first inference, started by Init

	diag diagState // the diagnostics view (d)
	base baseState // the baselines (c)
	abl  ablState  // the ablation view (A)
	avg  avgState  // the sidebar's averages over realizations

	// now is the time of the last progress tick, against which the
	// status line reads how long work in progress has taken (busy.go);
	// ticking: a tick is on its way.
	now     time.Time
	ticking bool

	atlas       []AtlasCell
	atlasModels *atlasCache
}

// New builds the explorer on the setup opts names, loading the model and
// drawing the realization; it fails on an unknown system or backbone or an
// unreadable checkpoint file.
func New(opts Options) (Model, error) {
	opts = opts.withDefaults()
	backbones := core.BackboneNames()
	regs := make([]string, len(core.Regularizers))
	for i, r := range core.Regularizers {
		regs[i] = string(r)
	}
	keys := DefaultKeyMap()
	if opts.ASCII {
		keys = keys.asciiNames()
	}
	m := Model{
		opts:        opts,
		keys:        keys,
		help:        help.New(),
		theme:       newTheme(colorprofile.TrueColor),
		systems:     sims.All(),
		backbone:    newPicker("backbone", backbones, opts.Backbone),
		entries:     map[entryKey]*entry{},
		ctxSteps:    map[string]stepper{},
		slices:      map[string]int{},
		thetas:      map[string][]thetaControl{},
		noise:       newStepper("noise σ", []float64{0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5}, 0, nil),
		reg:         newPicker("regulariser", regs, string(core.RegL2)),
		mode:        newPicker("train mode", trainModes, string(modeFineTune)),
		seed:        opts.Seed,
		width:       minWidth,
		height:      minHeight,
		atlas:       opts.Atlas(),
		atlasModels: &atlasCache{},
		saves:       newSaveJobs(),
	}
	if opts.ASCII {
		m.theme = newTheme(colorprofile.ASCII)
	}
	m.help.Styles = m.theme.helpStyles()

	if err := m.loadFirst(); err != nil {
		return Model{}, err
	}
	m.enterSystem(m.sysIdx)
	m.syncTraining()
	m.initCmd = m.reinfer()
	return m, nil
}

// Init starts the first inference (prepared by New, since Init cannot
// change the model).
func (m Model) Init() tea.Cmd {
	return m.initCmd
}

func (m Model) sys() sims.System { return m.systems[m.sysIdx] }

func (m Model) key() entryKey { return entryKey{m.sys().Name(), m.backbone.value()} }

func (m Model) entry() *entry { return m.entries[m.key()] }

// controls lists the rows of the controls panel for the current system.
func (m Model) controls() []control {
	cs := []control{ctlSystem, ctlBackbone, ctlContext, ctlNoise, ctlLamTheta, ctlLamDelta, ctlReg, ctlMode}
	if m.is2D() {
		cs = append(cs, ctlSlice)
	}
	for i := range m.theta {
		cs = append(cs, ctlTheta+control(i))
	}
	return cs
}

// is2D reports whether the grid is a product grid (advdiff's (t, x)).
func (m Model) is2D() bool { return len(m.sys().Grid().Shape) == 2 }

// enterSystem shows system i and resets what depends on it:
// realization, split, θ controls, time slice and the context ladder.
// θ set by hand, the slice and the context are the ones the system was
// left with, so that a look at another system loses none of them.
func (m *Model) enterSystem(i int) {
	if m.theta != nil {
		m.thetas[m.sys().Name()] = slices.Clone(m.theta)
	}
	m.sysIdx = i
	sys := m.sys()
	m.real, m.split = drawRealization(sys, m.seed)
	m.theta = newThetaControls(sys)
	if kept, ok := m.thetas[sys.Name()]; ok {
		m.theta = slices.Clone(kept)
	}
	if m.is2D() {
		m.slice = sys.Grid().Shape[0] / 2
		if s, ok := m.slices[sys.Name()]; ok {
			m.slice = s
		}
	}
	if _, ok := m.ctxSteps[sys.Name()]; !ok {
		m.ctxSteps[sys.Name()] = newStepper("context", contextLadder(sys.Grid().Points()), float64(sys.TestContext()), nil)
	}
	m.res = nil
	m.focus = min(m.focus, len(m.controls())-1)
}

// contextLadder are the context sizes the stepper offers, up to points.
func contextLadder(points int) []float64 {
	var out []float64
	for _, n := range []int{1, 2, 3, 5, 8, 10, 15, 20, 25, 30, 40, 50, 60, 75, 100, 128, 150, 200, 256, 300, 400, 512, 768, 1024, 1536, 2048, 3072, 4096} {
		if n < points {
			out = append(out, float64(n))
		}
	}
	return append(out, float64(points))
}

// syncTraining sets the λ and regularizer controls to what the model on
// screen was trained with, so it starts out not stale.
func (m *Model) syncTraining() {
	t := m.entry().model.Config.Train
	sys, b := m.sys().Name(), m.backbone.value()
	// The atlas's values join the ladders: stepping onto one loads its
	// model (switchAtlas).
	m.lamTheta = newStepper("λθ", append([]float64{0, 0.1, 0.3, 1, 3, 10}, atlasValues(m.atlas, sys, b, ctlLamTheta)...), t.LambdaTheta, nil)
	m.lamDelta = newStepper("λδ", append([]float64{0, 0.01, 0.1, 0.3, 1, 3, 10}, atlasValues(m.atlas, sys, b, ctlLamDelta)...), t.LambdaDelta, nil)
	m.reg = m.reg.set(string(t.Reg))
}

// stale reports whether the λ or regularizer controls differ from what
// the weights on screen were trained with.
func (m Model) stale() bool {
	t := m.entry().model.Config.Train
	return t.LambdaTheta != m.lamTheta.value() || t.LambdaDelta != m.lamDelta.value() || string(t.Reg) != m.reg.value()
}

// thetaAutoMsg is what a says when it puts θ back to the estimate.
const thetaAutoMsg = "θ back to the estimate θ̂"

// thetaIsAutoMsg is what a says when no θ was set by hand, so that the
// key does not look dead.
const thetaIsAutoMsg = "θ is the estimate θ̂ already; ←/→ on a θ row sets it by hand"

// msgLine turns line breaks and tabs into spaces.
var msgLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

func (m *Model) setMsg(k msgKind, format string, args ...any) {
	// One line of text: an error's own newlines would push the frame.
	m.msgKind, m.msg = k, boundMsg(msgLine.Replace(fmt.Sprintf(format, args...)))
	m.keyNote, m.switchArmed = false, switchArm{}
}

// maxMsgRunes bounds the status message. The ? help wraps it in full,
// in time that grows with the square of its length: a path pasted by
// mistake (a clipboard of a megabyte), named by the open's error, took
// minutes a frame and froze the explorer. A path the system takes is
// shorter (PATH_MAX: 4096 bytes on Linux), and no message needs more.
const maxMsgRunes = 8192

// boundMsg is s, or where it is longer than maxMsgRunes, its start and
// end (the file, then the cause) about a note of what was left out.
func boundMsg(s string) string {
	r := []rune(s)
	if len(r) <= maxMsgRunes {
		return s
	}
	keep := maxMsgRunes / 2
	return fmt.Sprintf("%s … (%d characters left out) … %s", string(r[:keep]), len(r)-2*keep, string(r[len(r)-keep:]))
}

// setKeyNote sets a note on what the key just pressed did, which the
// next key that acts takes off (see dropKeyNote).
func (m *Model) setKeyNote(format string, args ...any) {
	m.setKeyMsg(msgInfo, format, args...)
}

// setKeyMsg is setKeyNote for a message of kind k: a warning of what
// the key does pressed again goes as a note does.
func (m *Model) setKeyMsg(k msgKind, format string, args ...any) {
	m.setMsg(k, format, args...)
	m.keyNote = true
}

// dropKeyNote takes the last key's note off before key k acts. The
// help (? and its scrolling) changes nothing the note is about, so the
// note is still there when it closes.
func (m *Model) dropKeyNote(k tea.KeyPressMsg) {
	if m.keyNote && !m.help.ShowAll && !key.Matches(k, m.keys.Help) {
		m.setMsg(msgInfo, "")
	}
}

// Update handles messages; an open diagnostics or ablation view, and
// the sidebar's averages, then follow any change of the settings they
// depend on.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	nm, cmd := m.update(msg)
	next, ok := nm.(Model)
	if !ok {
		return nm, cmd
	}
	next.syncBaselines(m.msg)
	next.syncAblNote()
	next.syncSwitchWarning()
	// The syncs change next: they run before it is returned.
	cmd = tea.Batch(cmd, next.syncDiag(), next.syncAblation(), next.syncAverages())
	// After the syncs, which may have started work.
	cmd = tea.Batch(cmd, next.syncProgressTick())
	return next, cmd
}

// update handles one message.
func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		return m, nil
	case tea.ColorProfileMsg:
		if !m.opts.ASCII {
			m.theme = newTheme(msg.Profile)
			m.help.Styles = m.theme.helpStyles()
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case completedMsg:
		m.prompt = m.prompt.completed(msg)
		return m, nil
	case tea.PasteMsg:
		if m.prompt.active() {
			m.prompt = m.prompt.paste(msg.Content)
		}
		return m, nil
	case inferMsg:
		return m.onInfer(msg)
	case diagMsg:
		return m.onDiag(msg)
	case ablMsg:
		return m.onAblation(msg)
	case avgMsg:
		return m.onAverages(msg)
	case baseMsg:
		return m.onBaseline(msg)
	case progressTickMsg:
		return m.onProgressTick(msg)
	case workProgressMsg:
		return m.onWorkProgress(msg)
	case trainProgressMsg:
		if msg.run == m.run {
			p := msg.p
			m.prog = &p
			m.losses = append(m.losses, p.Losses.Total)
			if len(m.losses) > 1000 {
				m.losses = m.losses[len(m.losses)-1000:]
			}
		}
		return m, msg.run.next()
	case trainSnapshotMsg:
		cmds := []tea.Cmd{msg.run.next()}
		if msg.run == m.run && !msg.run.stopping {
			m.snap = msg.weights
			cmds = append(cmds, m.reinfer())
		}
		return m, tea.Batch(cmds...)
	case trainRecalibratingMsg:
		msg.run.recalibrating = true
		return m, msg.run.next()
	case trainDoneMsg:
		return m.onTrainDone(msg.run)
	case refineMsg:
		if msg.gen == m.gen && !m.inflight && m.needsRefine() {
			req := m.request()
			req.refine = -1
			m.inflight = true
			return m, req.cmd()
		}
		return m, nil
	case savedMsg:
		return m.onSaved(msg)
	case openedMsg:
		return m.onOpened(msg)
	}
	return m, nil
}

// handleKey dispatches a key press through the KeyMap.
func (m Model) handleKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if !key.Matches(k, m.keys.Quit) {
		m.disarmQuit() // the warning holds for the very next key only
	}
	again := m.againArmed
	m.againArmed = "" // as quitArmed, for the very next key only
	// A switch's warning goes with its key note (dropKeyNote): the key
	// that armed it goes ahead with this copy.
	armed := m.switchArmed
	if k.String() == "ctrl+c" {
		return m.quit(k.String())
	}
	if m.width < minWidth || m.height < minHeight {
		// The "too small" screen shows none of the state a key would
		// change; only quitting works there.
		if key.Matches(k, m.keys.Quit) {
			return m.quit(k.String())
		}
		return m, nil
	}
	if rest, ok := m.escThenKey(k); ok {
		next, cmd := m.handleKey(tea.KeyPressMsg{Code: tea.KeyEscape})
		after, more := next.(Model).handleKey(rest)
		return after, tea.Batch(cmd, more)
	}
	if m.prompt.active() {
		return m.promptKey(k)
	}
	m.dropKeyNote(k)
	keys := m.keys
	if m.help.ShowAll && !key.Matches(k, keys.Help, keys.Up, keys.Down, keys.HelpPageUp, keys.HelpPageDown, keys.Cancel, keys.Quit) {
		// The help covers the panels: a key that changes them closes it
		// first, so that what it does is seen, not done out of sight.
		m.help.ShowAll = false
	}
	// The groups are tried in turn, as one switch's cases would be.
	for _, group := range []func(tea.KeyPressMsg, switchArm, string) (tea.Model, tea.Cmd, bool){m.controlKey, m.actionKey, m.cancelKey, m.viewKey} {
		if next, cmd, ok := group(k, armed, again); ok {
			return next, cmd
		}
	}
	return m, nil
}

// handled is a key group's answer for a key it acted on.
func handled(next tea.Model, cmd tea.Cmd) (tea.Model, tea.Cmd, bool) { return next, cmd, true }

// controlKey handles quitting, help, focus, the sliders and the
// switches of system, backbone, realization and θ. Like each key group
// (handleKey), it reports whether the key was one of its own; armed is
// the switch warning the key may answer, saveAgain a save's.
func (m Model) controlKey(k tea.KeyPressMsg, armed switchArm, again string) (tea.Model, tea.Cmd, bool) {
	keys := m.keys
	switch {
	case key.Matches(k, keys.Quit):
		return handled(m.quit(k.String()))
	case key.Matches(k, keys.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.helpTop = 0
	case m.help.ShowAll && key.Matches(k, keys.Up, keys.Down, keys.HelpPageUp, keys.HelpPageDown):
		m.scrollHelp(k)
	case key.Matches(k, keys.Up):
		n := len(m.controls())
		m.focus = (m.focus - 1 + n) % n
	case key.Matches(k, keys.Down):
		m.focus = (m.focus + 1) % len(m.controls())
	case key.Matches(k, keys.Left, keys.Right):
		d := 1
		if key.Matches(k, keys.Left) {
			d = -1
		}
		if !m.confirmAdjust(k.String(), armed, d) {
			return m, nil, true
		}
		return m, m.adjust(d), true
	case key.Matches(k, keys.NextSystem, keys.PrevSystem):
		i := m.sysIdx + 1
		if key.Matches(k, keys.PrevSystem) {
			i = m.sysIdx - 1
		}
		if !m.confirmSwitch(k.String(), armed, i, m.backbone.value()) {
			return m, nil, true
		}
		return m, m.setSystem(i), true
	case key.Matches(k, keys.Backbone):
		b := m.backbone.step(1).value()
		if !m.confirmSwitch(k.String(), armed, m.sysIdx, b) {
			return m, nil, true
		}
		return m, m.setBackbone(b), true
	case key.Matches(k, keys.Realization):
		if m.seed++; m.seed == 0 {
			m.seed = 1 // past the largest seed: 0 is not a seed (--seed refuses it)
		}
		m.real, m.split = drawRealization(m.sys(), m.seed)
		m.setKeyNote("new realization, seed %d", m.seed)
		return m, m.reinfer(), true
	case key.Matches(k, keys.AutoTheta):
		any := false
		for i := range m.theta {
			any = any || m.theta[i].set
			m.theta[i].set = false
		}
		if any {
			m.setKeyNote("%s", thetaAutoMsg)
			return m, m.reinfer(), true
		}
		m.setKeyNote("%s", thetaIsAutoMsg)
	case key.Matches(k, keys.Reset):
		return m, m.resetInputs(), true
	default:
		return m, nil, false
	}
	return m, nil, true
}

// actionKey handles training, the mode and the views (diagnostics,
// ablation, baselines).
func (m Model) actionKey(k tea.KeyPressMsg, armed switchArm, again string) (tea.Model, tea.Cmd, bool) {
	keys := m.keys
	switch {
	case key.Matches(k, keys.Train):
		if m.waitForOpen() {
			return m, nil, true
		}
		return handled(m.startTrain())
	case key.Matches(k, keys.Mode):
		m.mode = m.mode.step(1)
		m.noteModeDuringRun()
	case key.Matches(k, keys.Diagnose):
		m.closeAblation()
		return handled(m.toggleDiag())
	case key.Matches(k, keys.Ablation):
		return handled(m.toggleAblation())
	case key.Matches(k, keys.Baselines):
		return handled(m.toggleBaselines())
	default:
		return m, nil, false
	}
	return m, nil, true
}

// cancelKey handles esc: it closes the help or a view, answers a
// switch's warning, or stops a run or a wait for a file.
func (m Model) cancelKey(k tea.KeyPressMsg, armed switchArm, again string) (tea.Model, tea.Cmd, bool) {
	keys := m.keys
	switch {
	case m.help.ShowAll && key.Matches(k, keys.Cancel):
		// The help says esc closes it: over a run, esc stopped the run
		// and left the help open.
		m.help.ShowAll = false
	case m.diag.open && key.Matches(k, keys.Cancel):
		m.closeDiag() // esc closes the view before it stops training
	case m.abl.open && key.Matches(k, keys.Cancel):
		m.closeAblation()
	case armed.key != "" && key.Matches(k, keys.Cancel):
		// Esc answers the warning on screen, as it does a prompt: the
		// switch is called off and what it would stop goes on; esc
		// again stops a run.
		verb := "goes on"
		if strings.Contains(armed.stops, " and ") {
			verb = "go on"
		}
		m.setMsg(msgInfo, "%s called off: %s %s", armed.key, armed.stops, verb)
	case key.Matches(k, keys.Cancel):
		switch {
		case m.escStopsRun():
			m.run.stopping = true
			m.run.cancel()
			m.setMsg(msgInfo, "stopping training…")
		case m.opening != "":
			m.setMsg(msgInfo, "stopped waiting for %s", m.opening)
			m.opening = ""
			m.openGen++ // what it reads later is dropped
		case m.base.running():
			// A training run stops first; esc with none (or while it
			// stops) ends the fits, whose work holds the cores.
			m.stopBaselines()
		case m.run == nil:
			m.setKeyNote("no training run to stop")
		}
	default:
		return m, nil, false
	}
	return m, nil, true
}

// escStopsRun is whether esc stops a training run (cancelKey): one that
// trains and is not stopping already.
func (m Model) escStopsRun() bool { return m.run != nil && !m.run.stopping }

// viewKey handles undo, the slice and page of the view, heatmaps,
// saving and opening.
func (m Model) viewKey(k tea.KeyPressMsg, armed switchArm, again string) (tea.Model, tea.Cmd, bool) {
	keys := m.keys
	switch {
	case key.Matches(k, keys.Undo):
		if m.waitForOpen() || !m.confirmUndo(again == "u") {
			return m, nil, true
		}
		return handled(m.undo())
	case key.Matches(k, keys.SliceBack):
		m.moveSlice(-1)
	case key.Matches(k, keys.SliceFwd):
		m.moveSlice(1)
	case key.Matches(k, keys.SliceBack8):
		m.moveSlice(-8)
	case key.Matches(k, keys.SliceFwd8):
		m.moveSlice(8)
	case key.Matches(k, keys.Heatmap):
		m.toggleHeat()
	case key.Matches(k, keys.Page):
		m.flipPage()
	case key.Matches(k, keys.Save):
		if m.waitForOpen() || !m.confirmSaveAgain(again == "s") {
			return m, nil, true
		}
		return handled(m.startSave())
	case key.Matches(k, keys.Open):
		if !m.confirmOpen(k.String(), armed) {
			return m, nil, true
		}
		m.prompt = newPrompt(promptOpen, "", "e.g. path/to/model.safetensors")
	case key.Matches(k, keys.Write):
		return handled(m.writeContext())
	default:
		return m, nil, false
	}
	return m, nil, true
}

// withDefaults fills in the options left unset.
func (opts Options) withDefaults() Options {
	if opts.System == "" {
		opts.System = "spring"
	}
	if opts.Backbone == "" {
		opts.Backbone = string(core.LNP)
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.SaveDir == "" {
		opts.SaveDir = "."
	}
	if opts.Embedded == nil {
		opts.Embedded = checkpoints.Lookup
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.RefineDelay == 0 {
		opts.RefineDelay = 150 * time.Millisecond
	}
	if opts.Atlas == nil {
		opts.Atlas = EmbeddedAtlas
	}
	if opts.Averages == 0 {
		opts.Averages = avgTasks
	}
	return opts
}

// loadFirst loads the model the explorer opens on: the --checkpoint
// file (whose system and backbone then replace the options'), or the
// embedded checkpoint of the options' system and backbone.
func (m *Model) loadFirst() error {
	opts := &m.opts
	var e *entry
	if opts.Checkpoint != "" {
		// Read under the command's context, so that Ctrl-C ends a read
		// that blocks (a named pipe is refused unopened, but a file can
		// become one after the check).
		cm, info, err := cli.OpenFlagCheckpoint(opts.Context, "checkpoint", opts.Checkpoint)
		if err != nil {
			return err
		}
		opts.System, opts.Backbone = cm.Config.Arch.System, string(cm.Config.Arch.Backbone)
		m.backbone = m.backbone.set(opts.Backbone)
		e = &entry{model: cm, src: srcFile, path: opts.Checkpoint, info: info}
		m.entries[entryKey{opts.System, opts.Backbone}] = e
	}
	idx := slices.IndexFunc(m.systems, func(s sims.System) bool { return s.Name() == opts.System })
	if idx < 0 {
		_, err := sims.Lookup(opts.System)
		return err
	}
	if _, err := core.ParseBackbone(opts.Backbone); err != nil {
		return err
	}
	m.sysIdx = idx
	if e != nil {
		m.describeEntry()
		return nil
	}
	e, warn, err := loadEntry(m.key(), opts.Embedded)
	if err != nil {
		return err
	}
	m.entries[m.key()] = e
	m.describeEntry()
	if warn != "" {
		m.setMsg(msgWarn, "%s", warn)
	}
	return nil
}

// disarmQuit calls off a quit that warned of unsaved weights, and takes
// its warning off the status line unless a later message replaced it.
func (m *Model) disarmQuit() {
	if m.quitArmed != "" && m.msg == m.quitMsg {
		m.setMsg(msgInfo, "")
	}
	m.quitArmed, m.quitMsg = "", ""
}

// quit exits, first stopping training: the goroutines end (each within a
// training step) before the program does. A second q or ctrl+c exits at
// once; runProgram still waits for the goroutines after the program has ended.
// pressed is the key that asked ("q" or "ctrl+c"), which the warning
// about unsaved weights names as the one to press again.
func (m Model) quit(pressed string) (tea.Model, tea.Cmd) {
	if u, behind := m.unsaved(); len(u) > 0 && !m.quitting {
		// A run that ended since the warning changes what would be lost.
		if what := fmt.Sprintf("%s (%d running)", strings.Join(u, ", "), len(m.runs)); m.quitArmed != what {
			m.quitArmed = what
			// Short, so that it fits at 80 columns beside a training
			// status; the open prompt takes q as text.
			again := pressed
			if m.prompt.active() {
				again = "ctrl+c"
			}
			// Weights an opened file hides are marked: u (on their own
			// system and backbone) brings them back to save.
			names := make([]string, len(u))
			for i, n := range u {
				names[i] = n
				if slices.Contains(behind, n) {
					names[i] += " under a file (u)"
				}
			}
			// s saves the model on screen: where that is not the unsaved
			// one (another system or backbone, or a file over it), it has
			// to be shown first.
			save, cur := "s saves", m.key().system+"/"+m.key().backbone
			switch {
			case !slices.Contains(u, cur) || slices.Contains(behind, cur):
				save = "show it, then s saves"
			case m.run != nil:
				// s refuses while the run on screen trains or stops.
				save = m.saveAfterRun()
			case len(u) > 1:
				save = "s saves the one shown"
			}
			m.setMsg(msgErr, "unsaved: %s · %s · %s again quits", strings.Join(names, ", "), save, again)
			m.quitMsg = m.msg
			return m, nil
		}
	}
	m.quitArmed, m.quitMsg = "", ""
	if m.quitting || (len(m.runs) == 0 && m.saves.pending() == 0) {
		m.quitting = true
		return m, tea.Quit
	}
	m.quitting = true
	for _, r := range m.runs {
		r.stopping = true
		r.cancel()
	}
	if len(m.runs) > 0 {
		m.setMsg(msgInfo, "stopping training before quitting… (q again to force)")
	} else {
		// s then q at once ended the program with the file half
		// written: no checkpoint, and a temporary file left behind.
		m.setMsg(msgInfo, "writing the checkpoint before quitting… (q again to force)")
	}
	return m, nil
}

// quitNow is whether a quit that waited (quit) can end the program:
// no training run left, and no file being written.
func (m Model) quitNow() bool {
	return m.quitting && len(m.runs) == 0 && m.saves.pending() == 0
}

// saveAfterRun is how the quit warning says to save the weights of the
// run on screen, which s refuses while it trains or stops: stopped
// with esc, or once it has stopped.
func (m Model) saveAfterRun() string {
	if m.run.stopping {
		return "s saves once it stops"
	}
	return "esc stops it, then s saves"
}

// unsaved names, in a fixed order, the system/backbone pairs whose
// weights were trained in this session and not saved since (on screen,
// or behind an opened file), and those training now; behindFile names
// those an opened file hides.
func (m Model) unsaved() (names, behindFile []string) {
	var out []string
	for k, e := range m.entries {
		// Look past opened files and atlas models only: weights they
		// replaced are one u away and lost on quitting just the same,
		// while the runs behind trained weights are superseded by them.
		// Weights a save (s) is writing are not lost on quitting: quit
		// waits for the file, and stays where the save fails.
		if u := unsavedTrained(e); u != nil && !m.saves.writing(u) {
			out = append(out, k.system+"/"+k.backbone)
			if u != e {
				behindFile = append(behindFile, k.system+"/"+k.backbone)
			}
		}
	}
	for _, r := range m.runs {
		if name := r.key.system + "/" + r.key.backbone; !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	slices.Sort(behindFile)
	return out, behindFile
}

// adjust moves the focused control by d.
func (m *Model) adjust(d int) tea.Cmd {
	id := m.controls()[m.focus]
	switch {
	case id == ctlSystem:
		return m.setSystem(m.sysIdx + d)
	case id == ctlBackbone:
		return m.setBackbone(m.backbone.step(d).value())
	case id == ctlContext:
		name := m.sys().Name()
		m.ctxSteps[name] = m.ctxSteps[name].step(d)
		m.noteRange()
		return m.reinfer()
	case id == ctlNoise:
		m.noise = m.noise.step(d)
		m.noteRange()
		return m.reinfer()
	case id == ctlLamTheta, id == ctlLamDelta, id == ctlReg:
		before := m.trainControls()
		switch id {
		case ctlLamTheta:
			m.lamTheta = m.lamTheta.step(d)
		case ctlLamDelta:
			m.lamDelta = m.lamDelta.step(d)
		default:
			m.reg = m.reg.step(d)
		}
		if m.trainControls() == before {
			// At the end of its ladder the control does not move, and
			// nothing may change: a model loaded for the settings it
			// already had could change the other two behind the user's
			// back.
			return nil
		}
		return m.switchAtlas(id)
	case id == ctlMode:
		m.mode = m.mode.step(d)
		m.noteModeDuringRun()
	case id == ctlSlice:
		m.moveSlice(d)
	case id >= ctlTheta:
		i := int(id - ctlTheta)
		est := m.thetaEstimate(i)
		m.theta[i] = m.theta[i].step(d, est)
		if m.overridden() && m.msgKind == msgInfo && m.msg == thetaAutoMsg {
			m.setMsg(msgInfo, "") // no longer true
		}
		return m.reinfer()
	}
	return nil
}

// thetaEstimate is the estimate θ̂_i on screen (NaN before the first
// result).
func (m Model) thetaEstimate(i int) float64 {
	if m.res != nil && i < len(m.res.est) {
		return m.res.est[i]
	}
	return math.NaN()
}

func (m *Model) moveSlice(d int) {
	if !m.is2D() {
		m.setKeyNote("time slices are for systems on a (t, x) grid (advdiff)")
		return
	}
	nt := m.sys().Grid().Shape[0]
	m.slice = max(0, min(nt-1, m.slice+d))
	m.slices[m.sys().Name()] = m.slice
}

// setSystem switches to system i (wrapping around).
func (m *Model) setSystem(i int) tea.Cmd {
	n := len(m.systems)
	i = ((i % n) + n) % n
	if i == m.sysIdx {
		return nil
	}
	stopped, stepped := m.abandonRun()
	m.keepPanels()
	m.enterSystem(i)
	m.prog, m.losses = nil, nil
	cmd := m.enterEntry()
	m.noteAbandoned(stopped, stepped)
	return cmd
}

// setBackbone switches the backbone.
func (m *Model) setBackbone(b string) tea.Cmd {
	if b == m.backbone.value() {
		return nil
	}
	stopped, stepped := m.abandonRun()
	m.keepPanels()
	m.backbone = m.backbone.set(b)
	m.res = nil
	m.prog, m.losses = nil, nil
	cmd := m.enterEntry()
	m.noteAbandoned(stopped, stepped)
	return cmd
}

// enterEntry makes sure the current system and backbone have a model,
// loading the shipped checkpoint or fresh weights, and re-infers.
func (m *Model) enterEntry() tea.Cmd {
	if m.entry() == nil {
		e, warn, err := loadEntry(m.key(), m.opts.Embedded)
		if err != nil {
			m.setMsg(msgErr, "%v", err)
			return nil
		}
		m.entries[m.key()] = e
		if warn != "" {
			m.setMsg(msgWarn, "%s", warn)
		}
	}
	m.syncTraining()
	m.describeEntry()
	m.noteRange()
	return m.reinfer()
}

// describeEntry says which weights are on screen.
func (m *Model) describeEntry() {
	e := m.entry()
	if e.src == srcUntrained {
		m.setMsg(msgWarn, "no %s/%s checkpoint is shipped yet", m.sys().Name(), m.backbone.value())
		return
	}
	m.setMsg(msgInfo, "%s/%s: %s", m.sys().Name(), m.backbone.value(), e.phrase())
}

// abandonRun stops the shown run because the user moved to another
// model or opened a file; its weights still land in its own entry when
// it ends. It returns the stopped run (nil when none ran) and whether it
// had reported a completed step.
func (m *Model) abandonRun() (stopped *trainRun, stepped bool) {
	if m.run == nil {
		return nil, false
	}
	stopped, stepped = m.run, m.prog != nil
	m.run.stopping = true
	m.run.cancel()
	m.run, m.live, m.snap, m.prog = nil, nil, nil, nil
	return stopped, stepped
}

// noteAbandoned adds to the status line that a run was stopped, and
// where its partly trained weights go: over the weights it started
// from, or one u behind a file opened over them. Either is easy to miss
// once another model is shown.
func (m *Model) noteAbandoned(stopped *trainRun, stepped bool) {
	if stopped == nil {
		return
	}
	kept := "it keeps the weights so far (u there undoes)"
	switch {
	case !stepped:
		kept = "it had not completed a step"
	case m.entries[stopped.key] != stopped.base:
		kept = "the weights of its completed steps go one u behind the file"
	}
	m.setMsg(msgWarn, "%s · training of %s/%s stopped; %s", m.msg, stopped.key.system, stopped.key.backbone, kept)
}

// reinfer asks for a fresh inference of the current state. One command
// runs at a time: a request made while one runs is remembered and sent
// when it returns, and the returning (older) result is dropped.
func (m *Model) reinfer() tea.Cmd {
	m.gen++
	if m.inflight {
		m.pending = true
		return nil
	}
	return m.launch()
}

func (m *Model) launch() tea.Cmd {
	req := m.request()
	m.inflight, m.pending = true, false
	return req.cmd()
}

// request captures the current state as an inference request; it takes
// the newest training snapshot, if any, for the request to build.
func (m *Model) request() inferRequest {
	sys := m.sys()
	req := inferRequest{
		gen: m.gen, sys: sys, real: m.real, split: m.split,
		n:       int(m.ctxSteps[sys.Name()].value()),
		noise:   m.noise.value(),
		model:   m.entry().model,
		samples: samplesFor(sys),
		seed:    1,
	}
	for i, c := range m.theta {
		if c.set {
			if req.theta == nil {
				req.theta = make([]float64, len(m.theta))
				for j := range req.theta {
					req.theta[j] = math.NaN()
				}
			}
			req.theta[i] = c.value
		}
	}
	if m.run != nil {
		if m.snap != nil {
			req.weights, req.cfg, req.runID = m.snap, m.run.cfg, m.run.id
			m.snap = nil
		} else if m.live != nil {
			req.model = m.live
		}
	}
	return req
}

func (m Model) onInfer(msg inferMsg) (tea.Model, tea.Cmd) {
	m.inflight = false
	if msg.built != nil && m.run != nil && msg.runID == m.run.id {
		m.live = msg.built
	}
	if msg.gen == m.gen {
		// The kept panels go either way: the error is the news.
		m.kept = nil
		if msg.err != nil {
			m.setMsg(msgErr, "inference: %v", msg.err)
		} else {
			r := msg
			m.res = &r
		}
	}
	if m.pending {
		return m, m.launch()
	}
	if msg.gen == m.gen && m.needsRefine() {
		gen := m.gen
		return m, tea.Tick(m.opts.RefineDelay, func(time.Time) tea.Msg { return refineMsg{gen: gen} })
	}
	return m, nil
}

// refineMsg asks for the refined prediction of generation gen, once the
// controls have rested.
type refineMsg struct{ gen int }

// needsRefine reports whether the result on screen is the one-pass
// prediction of a model that refines: the explorer shows the amortized
// answer at once and the refined one when the controls rest (not while
// training, which needs the CPU). With θ set by hand the refined pass
// refines the estimate θ̂ shown beside the set values.
func (m Model) needsRefine() bool {
	return m.opts.RefineDelay > 0 && m.run == nil && m.res != nil && m.res.refined == 0 &&
		m.entry().model.Config.Infer.Refine > 0
}

// startTrain starts a background training run of the current model with
// the controls' λθ, λδ, regularizer and training mode.
func (m Model) startTrain() (tea.Model, tea.Cmd) {
	if len(m.runs) > 0 {
		if m.run != nil && !m.run.stopping {
			m.setMsg(msgWarn, "already training — esc stops the run")
		} else {
			m.setMsg(msgWarn, "the previous run is still stopping; try again in a moment")
		}
		return m, nil
	}
	base := m.entry()
	mode := trainMode(m.mode.value())
	m.runSeq++
	cfg := trainConfig(m.sys(), base.model.Config, mode, m.lamTheta.value(), m.lamDelta.value(), core.Regularizer(m.reg.value()), m.runSeq)
	trainee, err := newTrainee(cfg, recalibrationTasks(mode))
	if err == nil && mode == modeFineTune {
		err = trainee.Params.Restore(base.model.Params.Snapshot())
	}
	if err != nil {
		m.setMsg(msgErr, "cannot start training: %v", err)
		return m, nil
	}
	r := &trainRun{id: m.runSeq, key: m.key(), mode: mode, base: base, cfg: cfg}
	startTraining(m.opts.Context, r, trainee)
	m.runs = append(m.runs, r)
	m.run, m.prog, m.losses, m.live, m.snap = r, nil, nil, nil, nil
	t := cfg.Train
	m.setMsg(msgInfo, "training (%s): %d + %d steps, batch %d, λθ %s, λδ %s, %s", mode, t.Steps1, t.Steps2, t.Batch,
		formatLadder(t.LambdaTheta), formatLadder(t.LambdaDelta), t.Reg)
	return m, r.next()
}

// newTrainee builds the model a run trains from cfg, refusing a run
// whose memory estimate exceeds the budget, as apic train does: first
// from cfg alone, then measured on one realization's step, each with
// the recalibration on recal realizations that follows the training.
func newTrainee(cfg core.Config, recal int) (*core.Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := core.CheckTrainMemory(core.EstimateRunMemory(cfg, recal, core.RecalWhole)); err != nil {
		return nil, err
	}
	m, err := core.NewModel(cfg)
	if err != nil {
		return nil, err
	}
	e, err := m.MeasureRunMemory(context.Background(), recal, core.RecalWhole)
	if err != nil {
		return nil, err
	}
	return m, core.CheckTrainMemory(e)
}

// onTrainDone takes a finished run's weights into its entry. If a file
// opened meanwhile replaced the weights the run started from, the run's
// weights go between the two, one u behind the file, so they are not
// lost; if those weights were undone meanwhile, on top.
func (m Model) onTrainDone(r *trainRun) (tea.Model, tea.Cmd) {
	m.runs = slices.DeleteFunc(m.runs, func(x *trainRun) bool { return x == r })
	steps := r.res.Steps1 + r.res.Steps2
	var cmd tea.Cmd
	if steps > 0 && r.model != nil {
		trained := &entry{model: r.model, src: srcTrained, info: r.info(), prev: r.base}
		placed := false
		for e := m.entries[r.key]; e != nil && !placed; e = e.prev {
			if e.prev == r.base {
				e.prev, placed = trained, true
			}
		}
		if !placed {
			// The run's start is on top, or was undone past: the weights
			// go on top, one u from what was shown.
			trained.prev = m.entries[r.key]
			m.entries[r.key] = trained
			if r.key == m.key() && r != m.run {
				cmd = m.reinfer()
			}
		}
	}
	if r == m.run {
		m.run, m.live, m.snap = nil, nil, nil
		where := fmt.Sprintf("stage %d step %d/%d", lastStage(r), lastStep(m.prog), lastSteps(m.prog))
		switch {
		case r.err == nil:
			m.setMsg(msgInfo, "trained %d steps in %s, spread refitted — s saves, u undoes", steps, formatDuration(r.res.Wall))
		case r.refitStarted && errors.Is(r.err, context.Canceled):
			m.setMsg(msgInfo, "refit stopped: weights kept, bands not recalibrated — s saves, u undoes")
		case r.refitStarted:
			m.setMsg(msgErr, "%v — trained weights kept, bands not recalibrated (u undoes, s saves)", r.err)
		case errors.Is(r.err, context.Canceled):
			if steps > 0 {
				m.setMsg(msgInfo, "stopped (%s): bands not recalibrated — s saves, u undoes", where)
			} else {
				m.setMsg(msgInfo, "training stopped before the first step")
			}
		case errors.Is(r.err, core.ErrNonFinite):
			m.setMsg(msgErr, "%v — kept the last good weights (u undoes)", r.err)
		default:
			m.setMsg(msgErr, "training failed: %v", r.err)
		}
		if r.key == m.key() {
			cmd = m.reinfer()
		}
	}
	if m.quitNow() {
		return m, tea.Quit
	}
	return m, cmd
}

func lastStage(r *trainRun) int {
	if r.res.Steps2 > 0 || r.cfg.Train.Steps1 == 0 {
		return 2
	}
	return 1
}

func lastStep(p *core.Progress) int {
	if p == nil {
		return 0
	}
	return p.Step
}

func lastSteps(p *core.Progress) int {
	if p == nil {
		return 0
	}
	return p.Steps
}

// undo restores the weights from before the last training run.
func (m Model) undo() (tea.Model, tea.Cmd) {
	e := m.entry()
	if m.run != nil {
		m.setMsg(msgWarn, "training is running — esc stops it first")
		return m, nil
	}
	if !e.undoable() {
		m.setKeyNote("nothing to undo")
		return m, nil
	}
	if e.prev != nil {
		m.entries[m.key()] = e.prev
	} else {
		delete(m.entries, m.key()) // shown again, it loads as on first sight
	}
	m.prog, m.losses = nil, nil // the box would describe the run just undone
	if e.from != (entryKey{}) {
		// A file opened over another system or backbone: back to the
		// one shown when it was opened.
		m.keepPanels()
		m.backbone = m.backbone.set(e.from.backbone)
		if idx := slices.IndexFunc(m.systems, func(s sims.System) bool { return s.Name() == e.from.system }); idx >= 0 && idx != m.sysIdx {
			m.enterSystem(idx)
		}
		m.res = nil
		cmd := m.enterEntry()
		m.setMsg(msgInfo, "undid opening %s: back to %s/%s, %s", e.path, m.sys().Name(), m.backbone.value(), m.entry().phrase())
		return m, cmd
	}
	m.syncTraining()
	m.setMsg(msgInfo, "restored the previous weights (%s)", e.prev.sourceText())
	return m, m.reinfer()
}

// savedMsg reports a save.
type savedMsg struct {
	job   int // its number in saveJobs
	path  string
	entry *entry
	err   error
	inDir string // a free name in the directory path names, which was refused
}

// openedMsg reports an opened checkpoint file.
type openedMsg struct {
	path  string
	gen   int // the open's Model.openGen
	model *core.Model
	info  core.Info
	err   error
}

// startSave opens the save prompt with a new file name.
func (m Model) startSave() (tea.Model, tea.Cmd) {
	if m.run != nil {
		m.setMsg(msgWarn, "training is running — wait for it or stop it (esc), then save")
		return m, nil
	}
	m.prompt = newSuggestingPrompt(promptSave, suggestPath(m.opts.SaveDir, m.key()))
	return m, nil
}

// confirmSaveAgain reports whether s goes on to the save prompt. For
// weights in a file already, saved here or opened (o) and not trained
// since, s used to write another copy under the next free name without
// a word: it now says where they are, and s again (again, the very
// next key) saves the copy.
func (m *Model) confirmSaveAgain(again bool) bool {
	e := m.entry()
	if again {
		return true
	}
	// A warning, as a switch's is: it goes on onto the line below where
	// a note would be cut, and the path, last, is long.
	switch {
	case e.saved != "":
		m.setKeyMsg(msgWarn, "saved already (s again saves a copy) as %s", e.saved)
	case e.openedFile() != "":
		m.setKeyMsg(msgWarn, "weights already in a file (s again saves a copy): %s", e.openedFile())
	default:
		return true
	}
	m.againArmed = "s"
	return false
}

// confirmUndo reports whether u goes on to undo. Weights trained here
// and not saved, on screen, are in no file and nowhere behind: u used
// to drop them at one key, the minutes of a full run with them, where
// q asks twice for the same weights. It now says so, and u again (the
// very next key) drops them. Weights a save (s) is still writing are on
// their way into its file, which the save finishes after u too: the
// warning said "saved in no file" there, and offered s.
func (m *Model) confirmUndo(again bool) bool {
	e := m.entry()
	if again || m.run != nil || e.src != srcTrained || e.saved != "" {
		return true
	}
	m.againArmed = "u"
	if path, ok := m.saves.writingTo(e); ok {
		// The path last: a warning goes on onto the line below, and a
		// long one is elided in its middle there.
		m.setKeyMsg(msgWarn, "u again drops the weights trained here; unless it fails, the save in progress puts them in %s", path)
		return false
	}
	m.setKeyMsg(msgWarn, "u drops the weights trained here, saved in no file: u again drops them, s saves them")
	return false
}

// savedName is the file a save asked to write path writes, by
// core.CheckpointFileName's rule, without looking at the disk: a name
// without an extension takes .safetensors (where a file of that very
// name is there, the save refuses it).
func savedName(path string) string {
	if path == "" || filepath.Ext(path) != "" || strings.HasSuffix(path, string(filepath.Separator)) {
		return path
	}
	return path + core.CheckpointExt
}

// suggestPath is the first apic-SYSTEM-BACKBONE-N.safetensors in dir that
// nothing holds yet, not even a link: a dangling one passed a Stat as
// free, and the save, which keeps links, then refused the name offered,
// and on a SIGTERM (keepUnsaved) tried it until it gave the weights up.
func suggestPath(dir string, k entryKey) string {
	for n := 1; ; n++ {
		p := filepath.Join(dir, fmt.Sprintf("apic-%s-%s-%d.safetensors", k.system, k.backbone, n))
		// Any error ends the search: a directory that cannot be read
		// (no permission) would otherwise never show a free name; the
		// save then reports the cause.
		if _, err := os.Lstat(p); err != nil {
			return p
		}
	}
}

// noteModeDuringRun says, when the training mode changes while a run
// goes on, that the new mode is the next run's: the sidebar shows the
// control's value beside a status line that names the run's own.
func (m *Model) noteModeDuringRun() {
	if m.modeIsNextRuns() {
		m.setKeyNote("train mode %s is the next run's; this one goes on as %s", m.mode.value(), m.run.mode)
	}
}

// modeIsNextRuns is whether a run goes on in a mode other than the
// train mode control's, which is then the next run's.
func (m Model) modeIsNextRuns() bool {
	return m.run != nil && trainMode(m.mode.value()) != m.run.mode
}

// promptKey handles keys while the path prompt is open.
func (m Model) promptKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "esc":
		m.prompt = prompt{}
		m.setKeyNote("cancelled")
		return m, nil
	case "enter":
		path, kind := m.prompt.path(), m.prompt.kind
		m.prompt = prompt{}
		if path == "" {
			how := "type one (tab completes)"
			if kind == promptOpen {
				how += ", or embedded:NAME for a shipped file"
			}
			m.setMsg(msgWarn, "no path given: %s", how)
			return m, nil
		}
		if kind == promptSave {
			if strings.HasPrefix(path, checkpoints.Prefix) {
				// It would write a file of that literal name, which the
				// open prompt reads as a shipped checkpoint instead.
				m.setMsg(msgErr, "cannot save as %s: the shipped checkpoints are read-only; give a file path", path)
				return m, nil
			}
			e := m.entry()
			// The file's name, as "saved" names it: on a slow disk (a
			// home directory over the network) the status line said
			// nothing of the save until it ended.
			name := savedName(path) // the file the save writes, as every view names it
			m.setMsg(msgInfo, "saving %s…", filepath.Base(name))
			return m, m.saves.track(name, e, saveCmd(path, e))
		}
		// Anything but a regular file is refused before the open, which
		// on a named pipe would wait for a writer (CheckCheckpointFile
		// opens nothing). The open runs in the background, keys that act
		// on the weights wait for it (waitForOpen), and a newer open
		// supersedes one still reading (openGen).
		if err := cli.CheckCheckpointFile(path); err != nil {
			m.setMsg(msgErr, "%s", openError(path, err))
			return m, nil
		}
		m.setMsg(msgInfo, "opening %s…", path)
		m.openGen++
		m.opening = path
		return m, openCmd(path, m.openGen)
	}
	if k.String() == "tab" {
		m.completeSeq++
		var cmd tea.Cmd
		m.prompt, cmd = m.prompt.tab(m.completeSeq)
		return m, cmd
	}
	m.prompt = m.prompt.edit(k)
	return m, nil
}

// saveCheckpointFile writes the file of a save (s): a variable, so that
// a test can hold a save while it is being written.
var saveCheckpointFile = core.SaveNewCheckpoint

// saveCmd writes e's model to a new file, refusing to overwrite anything
// (an embedded checkpoint included); the write is atomic. A path without
// an extension, where nothing is, gets .safetensors, as train --out's
// (core.CheckpointFileName): a name that is taken is refused as it was
// typed, never saved beside under another (/dev/full as
// /dev/full.safetensors); anything but a regular file is refused as
// such (core.CheckSaveTarget), a directory too: the refusal offers a
// free apic-SYSTEM-BACKBONE-N.safetensors name in it, where the save
// used to put the file unasked. Any name left that does not end in
// .safetensors is refused with the one to use (checkpointNameError).
func saveCmd(path string, e *entry) tea.Cmd {
	model, info := e.model, e.info
	key := entryKey{model.Config.Arch.System, string(model.Config.Arch.Backbone)}
	return func() tea.Msg {
		st, err := os.Stat(path)
		switch {
		case err == nil && st.IsDir():
			return savedMsg{path: path, err: core.CheckSaveTarget(path), inDir: suggestPath(path, key)}
		case strings.HasSuffix(path, string(filepath.Separator)):
			// A directory meant, which Stat failed to find as one (the
			// kernel refuses "file/" as not a directory).
			if err == nil {
				err = fmt.Errorf("%s is not a directory", path)
			}
			return savedMsg{path: path, err: err}
		default:
			path = core.CheckpointFileName(path)
			// What the name holds first (a named pipe called "pipe"),
			// then the name, as train --out checks them.
			if err := core.CheckSaveTarget(path); err != nil {
				return savedMsg{path: path, err: err}
			}
			if err := checkpointNameError(path); err != nil {
				return savedMsg{path: path, err: err}
			}
		}
		// Created only where nothing holds the name when the file is
		// linked in: a file there, one made meanwhile (another explorer
		// saving the same name) or a link, even a dangling one, is kept.
		err = saveCheckpointFile(path, model, info, nets.F64)
		if errors.Is(err, fs.ErrExist) {
			return savedMsg{path: path, err: fmt.Errorf("exists, and the explorer never overwrites: %s%s", path, linkNote(path))}
		}
		if errors.Is(err, fs.ErrNotExist) {
			// "No such file" where the directory is there: it takes no
			// new files (/proc), which "does not exist" would deny.
			if st, serr := os.Stat(filepath.Dir(path)); serr == nil && st.IsDir() {
				err = fmt.Errorf("%s takes no new files; choose another directory", filepath.Dir(path))
				if _, werr := os.Getwd(); werr != nil && !filepath.IsAbs(path) {
					// The directory the explorer runs in was removed: it
					// still opens as ".", and takes nothing.
					err = fmt.Errorf("the current directory was removed since the explorer started; give a path elsewhere")
				}
			}
		}
		if abs, aerr := filepath.Abs(path); aerr == nil {
			path = abs
		}
		return savedMsg{path: path, entry: e, err: err}
	}
}

func (m Model) onSaved(msg savedMsg) (tea.Model, tea.Cmd) {
	m.saves.taken(msg.job)
	next, cmd := m.reportSaved(msg)
	nm := next.(Model)
	if msg.err != nil && nm.quitting {
		// The quit waited for this file, which is not there: ending now
		// would take the error, and weights saved nowhere, with it.
		nm.quitting = false
		nm.msg = "quit called off · " + nm.msg
		return nm, cmd
	}
	if nm.quitNow() {
		return nm, tea.Quit
	}
	return nm, cmd
}

// reportSaved says how a save ended, and marks the weights saved.
func (m Model) reportSaved(msg savedMsg) (tea.Model, tea.Cmd) {
	if msg.err != nil {
		m.setMsg(msgErr, "save failed: %s", saveErrorText(msg))
		return m, nil
	}
	msg.entry.saved = msg.path
	// The file's name first: at 80 columns the note is cut at its end,
	// while the directory was typed or shown in the prompt. The model
	// saved is the one the header names.
	m.setMsg(msgInfo, "saved %s in %s", filepath.Base(msg.path), filepath.Dir(msg.path))
	return m, nil
}

// saveErrorText is why a save failed (msg.err is not nil). The
// underlying error repeats the path and names the temporary file of the
// atomic write; the common causes read better plainly.
func saveErrorText(msg savedMsg) string {
	dir := filepath.Dir(msg.path)
	var notRegular *core.NotRegularFileError
	var pe *fs.PathError
	switch {
	case errors.As(msg.err, &notRegular):
		hint := "give a file name"
		if msg.inDir != "" {
			hint += " such as " + msg.inDir
		}
		return fmt.Sprintf("%v; %s", notRegular, hint)
	case errors.Is(msg.err, fs.ErrNotExist):
		return fmt.Sprintf("directory %s does not exist", dir)
	case errors.Is(msg.err, fs.ErrPermission):
		return fmt.Sprintf("no permission to write in %s", dir)
	case errors.As(msg.err, &pe):
		// The operation's own path may be the temporary file.
		return fmt.Sprintf("cannot write %s: %v", msg.path, pe.Err)
	}
	return msg.err.Error()
}

// linkNote is " (a link to TARGET, which does not exist)" where path is
// a dangling symbolic link, else "": listed as existing (the save) or
// as missing (the open) with no word of the link, the file read as a
// riddle.
func linkNote(path string) string {
	target, err := os.Readlink(path)
	if err != nil {
		return ""
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return " (a link to " + target + ", which does not exist)"
}

// openCmd loads a checkpoint file.
func openCmd(path string, gen int) tea.Cmd {
	return func() tea.Msg {
		model, info, err := cli.OpenCheckpoint(path)
		return openedMsg{path: path, gen: gen, model: model, info: info, err: err}
	}
}

// openError is the status line's account of a failed open, "cannot
// open PATH: cause". The command line's message frames the cause with
// the path again ("load checkpoint: open PATH: …", "PATH is not a
// checkpoint …"), and at 80 columns the room it takes is the cause's:
// a CheckpointError's Cause is the words alone.
func openError(path string, err error) string {
	cause := err.Error()
	var ce *cli.CheckpointError
	if errors.As(err, &ce) {
		cause = ce.Cause
	}
	if errors.Is(err, fs.ErrNotExist) {
		cause += linkNote(path)
	}
	return "cannot open " + path + ": " + cause
}

// onOpened switches to the opened checkpoint's system and backbone.
func (m Model) onOpened(msg openedMsg) (tea.Model, tea.Cmd) {
	if msg.gen != m.openGen {
		return m, nil // superseded by a newer open, or given up (esc)
	}
	m.opening = ""
	if msg.err != nil {
		m.setMsg(msgErr, "%s", openError(msg.path, msg.err))
		return m, nil
	}
	arch := msg.model.Config.Arch
	idx := slices.IndexFunc(m.systems, func(s sims.System) bool { return s.Name() == arch.System })
	if idx < 0 {
		m.setMsg(msgErr, "cannot open %s: unknown system %q", msg.path, arch.System)
		return m, nil
	}
	stopped, stepped := m.abandonRun()
	m.keepPanels()
	key := entryKey{arch.System, string(arch.Backbone)}
	// The replaced weights (perhaps trained here and unsaved) stay one u
	// away. A system and backbone not shown yet get their shipped (or
	// fresh) weights under the file, as on first sight, and u from the
	// file goes back to what is shown now.
	e := &entry{model: msg.model, src: srcFile, path: msg.path, info: msg.info, prev: m.entries[key]}
	if key != m.key() {
		e.from = m.key()
	}
	if e.prev == nil {
		e.prev, _, _ = loadEntry(key, m.opts.Embedded) // nil on an error: u then forgets the key
	}
	m.entries[key] = e
	m.backbone = m.backbone.set(string(arch.Backbone))
	if idx != m.sysIdx {
		m.enterSystem(idx)
	}
	m.res = nil
	m.syncTraining()
	// A stopped run's file carries no spread fitted to its weights: the
	// bands drawn are uncalibrated, as eval and calibrate warn of it.
	unfinished := ""
	if msg.info.Unfinished {
		unfinished = "unfinished, bands not recalibrated; "
	}
	m.setMsg(msgInfo, "opened %s (%s%s/%s, %d+%d steps; u goes back)", msg.path, unfinished, arch.System, arch.Backbone, msg.info.Steps1, msg.info.Steps2)
	m.noteAbandoned(stopped, stepped)
	return m, m.reinfer()
}

// stopAll cancels every training run and waits for the goroutines to end.
func (m Model) stopAll() {
	if m.diag.cancel != nil {
		m.diag.cancel()
	}
	if m.abl.cancel != nil {
		m.abl.cancel()
	}
	if m.avg.cancel != nil {
		m.avg.cancel()
	}
	if m.base.cancel != nil {
		m.base.cancel()
	}
	for _, r := range m.runs {
		r.wait()
	}
}
