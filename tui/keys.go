package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap is every key binding of the explorer. It drives both the key
// handling and the help bubble (the short line at the bottom and the full
// view on ?); bindings that do not apply at the moment are disabled and
// drop out of the help.
type KeyMap struct {
	Up, Down, Left, Right  key.Binding
	NextSystem, PrevSystem key.Binding
	Backbone               key.Binding
	Realization            key.Binding
	AutoTheta              key.Binding
	// Reset puts the inputs of inference back as the explorer opened
	// them (resetInputs).
	Reset                 key.Binding
	Train, Mode, Cancel   key.Binding
	Undo                  key.Binding
	SliceBack, SliceFwd   key.Binding
	SliceBack8, SliceFwd8 key.Binding
	Heatmap, Page         key.Binding
	Diagnose              key.Binding
	Ablation              key.Binding
	Baselines             key.Binding
	Save, Open, Write     key.Binding
	Help, Quit            key.Binding
	// HelpPageUp and HelpPageDown scroll the ? help by a screen; they
	// act only while it is open (its last line names them).
	HelpPageUp, HelpPageDown key.Binding
	// selectKeys and changeKeys name ↑↓ and ←→ in the footer;
	// selectDesc says what ↑↓ do (over the ? help they scroll it).
	selectKeys, changeKeys, selectDesc string
	// diagDesc, ablDesc and baseDesc say in the footer what d, A and c
	// do now: open the view or run the fits, or close and clear them.
	// The help's own words ("diagnostics (d/esc closes)") are too long
	// for a line that has to hold them beside the other keys.
	diagDesc, ablDesc, baseDesc string
	// quitDesc says in the footer what q does now: quit, or, while a
	// save writes its file, quit once it is written (quitSaveHelp).
	quitDesc string
	// diagWord, ablWord and baseWord are diagDesc, ablDesc and baseDesc
	// in a word, for the compact footer (CompactHelp); arrowKeys names
	// the four arrow keys as its one entry.
	diagWord, ablWord, baseWord, arrowKeys string
}

// selectControls is what ↑↓ do but over the ? help: select a control.
const selectControls = "select"

// quitSaveHelp is the ? help's account of q while a save (s) writes
// its file: Model.quit waits for it, onSaved quits or calls the quit
// off, and q again ends the program, after which runProgram finishes
// the file (saveJobs).
var quitSaveHelp = []string{
	"q waits for a save still writing its file, then quits; a failed save calls the",
	"  quit off, to save elsewhere. q again closes at once: apic still finishes the",
	"  file before it exits, and says where it is.",
}

// DefaultKeyMap returns the explorer's key bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous control")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next control")),
		Left:        key.NewBinding(key.WithKeys("left", "h", "-"), key.WithHelp("←/h/-", "decrease")),
		Right:       key.NewBinding(key.WithKeys("right", "l", "+", "="), key.WithHelp("→/l/+", "increase")),
		NextSystem:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next system")),
		PrevSystem:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous system")),
		Backbone:    key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "next backbone")),
		Realization: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "new realization")),
		AutoTheta:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "θ back to the estimate")),
		Reset:       key.NewBinding(key.WithKeys("0"), key.WithHelp("0", "reset context, noise, θ, seed")),
		Train:       key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "train")),
		Mode:        key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "training mode")),
		Cancel:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop training, then baselines")),
		Undo:        key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo last training, open or atlas model")),
		SliceBack:   key.NewBinding(key.WithKeys("["), key.WithHelp("[", "earlier time slice")),
		SliceFwd:    key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "later time slice")),
		SliceBack8:  key.NewBinding(key.WithKeys("{"), key.WithHelp("{", "8 slices earlier")),
		SliceFwd8:   key.NewBinding(key.WithKeys("}"), key.WithHelp("}", "8 slices later")),
		Heatmap:     key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "heatmaps / slice")),
		Page:        key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "other panels")),
		Diagnose:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "diagnostics (d/esc closes)")),
		Ablation:    key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "ablation curves (A/esc closes)")),
		Baselines:   key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "baselines (c again clears)")),
		Save:        key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save checkpoint")),
		Open:        key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open checkpoint")),
		Write:       key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "write the context as CSV")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit (also ctrl+c)")),
		// The help runs to three or four screens at 80×24: a line per
		// ↓ took some fifty presses to its end.
		HelpPageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "help a screen up")),
		HelpPageDown: key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdn", "help a screen down")),
		selectKeys:   "↑↓",
		selectDesc:   selectControls,
		changeKeys:   "←→",
		diagDesc:     "diagnostics",
		ablDesc:      "ablation",
		baseDesc:     "baselines",
		quitDesc:     "quit",
		diagWord:     "diag",
		ablWord:      "ablate",
		baseWord:     "base",
		arrowKeys:    "↑↓←→",
	}
}

// asciiArrows names the arrow keys in words. --ascii draws ↑ ↓ ← → as
// ^ v < >, and its help offered "v/j next control", "^v select" and
// "<> change": v is the heatmap key, and ^ < > are no keys at all.
var asciiArrows = strings.NewReplacer("↑↓←→", "arrows", "↑/↓", "up/down", "←/→", "left/right", "↑↓", "up/down", "←→", "left/right",
	"↑", "up", "↓", "down", "←", "left", "→", "right")

// asciiNames is k with the arrow keys named in words (asciiArrows),
// for --ascii.
func (k KeyMap) asciiNames() KeyMap {
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.Left, &k.Right} {
		b.SetHelp(asciiArrows.Replace(b.Help().Key), b.Help().Desc)
	}
	k.selectKeys, k.changeKeys = asciiArrows.Replace(k.selectKeys), asciiArrows.Replace(k.changeKeys)
	k.arrowKeys = asciiArrows.Replace(k.arrowKeys)
	return k
}

// keyText is s with the arrow keys it names in words under --ascii
// (asciiArrows); only for text that names keys, not plot marks.
func (m Model) keyText(s string) string {
	if m.opts.ASCII {
		return asciiArrows.Replace(s)
	}
	return s
}

// ShortHelp is the one-line help at the bottom of the screen, in the
// words of the footer where it has room for every key (footerSlots).
func (k KeyMap) ShortHelp() []key.Binding {
	var out []key.Binding
	for _, s := range k.footerSlots() {
		out = append(out, s.full...)
	}
	return out
}

// footerSlot is one place in the footer: its key (or the arrows' two
// entries) in ShortHelp's words, and in a word a key, for a footer too
// narrow for those (Model.footer): at 80 columns they showed ? q p ↑↓
// ←→ t and left d, c, A, r, tab and b to the ? help.
type footerSlot struct {
	full, word []key.Binding
}

// enabled reports whether the slot's key acts now.
func (s footerSlot) enabled() bool { return s.full[0].Enabled() }

// footerSlots are the footer's keys, most needed first: the line is cut
// at the terminal's width, after the last key that fits. Help, quit and
// the other panels (on a small terminal) first; the views (d, c, A)
// come before the keys that move to other data (r, tab, b): nothing
// else on screen says they are there, while the system and the backbone
// are the sidebar's first rows, which ↑↓←→ set. In a word the arrows
// make one entry, "↑↓←→ set" (↑↓ pick the control that ←→ set), but
// over the ? help, where ↑↓ scroll it.
func (k KeyMap) footerSlots() []footerSlot {
	one := func(b key.Binding, full, word string) footerSlot {
		return footerSlot{[]key.Binding{shortHelp(b, full)}, []key.Binding{shortHelp(b, word)}}
	}
	arrows := footerSlot{
		full: []key.Binding{pairHelp(k.selectKeys, k.selectDesc, k.Up, k.Down), pairHelp(k.changeKeys, "change", k.Left, k.Right)},
		word: []key.Binding{pairHelp(k.arrowKeys, "set", k.Up, k.Down, k.Left, k.Right)},
	}
	if k.selectDesc != selectControls {
		arrows.word = []key.Binding{pairHelp(k.selectKeys, k.selectDesc, k.Up, k.Down), pairHelp(k.changeKeys, "set", k.Left, k.Right)}
	}
	desc := func(b key.Binding) string { return b.Help().Desc }
	return []footerSlot{
		one(k.Help, desc(k.Help), "help"), one(k.Quit, k.quitDesc, k.quitDesc), one(k.Page, desc(k.Page), "page"), arrows,
		one(k.Train, desc(k.Train), "train"), one(k.Cancel, desc(k.Cancel), "stop"),
		one(k.Diagnose, k.diagDesc, k.diagWord), one(k.Baselines, k.baseDesc, k.baseWord), one(k.Ablation, k.ablDesc, k.ablWord),
		one(k.Realization, desc(k.Realization), "reseed"), one(k.NextSystem, desc(k.NextSystem), "system"),
		one(k.Backbone, desc(k.Backbone), "backbone"), one(k.Heatmap, desc(k.Heatmap), "heatmaps"),
		one(k.Save, desc(k.Save), "save"), one(k.Open, desc(k.Open), "open"), one(k.Write, desc(k.Write), "csv"),
	}
}

// shortHelp is b, enabled as it is, with the footer's shorter desc.
func shortHelp(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// pairHelp is one short-help entry for opposite bindings (↑ and ↓),
// which the full help lists one by one: "↑/k previous control" alone
// left ↓ and → out of the footer at every width.
func pairHelp(keys, desc string, bs ...key.Binding) key.Binding {
	var all []string
	for _, b := range bs {
		all = append(all, b.Keys()...)
	}
	return key.NewBinding(key.WithKeys(all...), key.WithHelp(keys, desc))
}

// FullHelp is the help view on ?, in columns: the keys that move and
// pick, the views, and training with its files. Each pair of columns fits
// an 80-column terminal side by side.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Left, k.Right, k.AutoTheta, k.Reset, k.Realization, k.NextSystem, k.PrevSystem, k.Backbone},
		{k.Diagnose, k.Ablation, k.Baselines, k.Heatmap, k.Page, k.SliceBack, k.SliceFwd, k.SliceBack8, k.SliceFwd8},
		{k.Train, k.Mode, k.Cancel, k.Undo, k.Save, k.Open, k.Write, k.Help, k.Quit},
	}
}
