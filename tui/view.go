package tui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"apic/core"
)

// The smallest terminal the explorer draws in, and the size from which it
// shows all four panels at once in a 2×2 grid. An 80×24 terminal running
// tmux or screen gives the explorer 80×23 (the status bar takes a row),
// and a split or a second bar less still: the minimum was 80×24, and
// most sessions over SSH met "too small". At 80×22 every view keeps its
// controls and labels; the sidebar packs its headings tighter
// (sideLayout, metricsBlock) and the diagnostics drop their hint line.
const (
	minWidth, minHeight = 80, 22
	bigWidth, bigHeight = 120, 36
)

// The sidebar's width below and from bigWidth × bigHeight. 31 cells
// are what a θ row needs to show an estimate to the decimal of its σ
// beside the truth at as many decimals ("κ .05093±2e-5 .05095 auto"):
// at 30 the truth's column held five characters, and advdiff's
// estimates fell back to three significant digits (thetaColumns).
const smallSideW, bigSideW = 31, 36

// View draws the frame in the alternate screen.
func (m Model) View() tea.View {
	if m.opts.ASCII {
		m = m.laidOutForASCII()
	}
	frame, title := m.render(), "apic explorer — "+m.sys().Name()+"/"+m.backbone.value()
	if m.opts.ASCII {
		frame, title = toASCII(frame), toASCII(title)
	}
	v := tea.NewView(frame)
	v.AltScreen = true
	v.WindowTitle = title
	return v
}

// render draws the whole frame as text, exactly width × height cells.
func (m Model) render() string {
	if m.width < minWidth || m.height < minHeight {
		return m.tooSmall()
	}
	plotW, mainH, big := m.panelArea()
	lines, msgCut := m.headerCut()
	if m.help.ShowAll {
		// The help takes the whole width: beside the sidebar its columns
		// would not fit a small terminal.
		lines = append(lines, block(m.fullHelp(m.width, mainH, msgCut), m.width, mainH)...)
		return strings.Join(append(lines, m.footer()), "\n")
	}

	sideW := m.sideWidth()
	side := block(m.sidebar(sideW, mainH), sideW, mainH)
	sep := make([]string, mainH)
	for i := range sep {
		sep[i] = m.theme.paint(m.theme.dim, "│")
	}
	panels := m.plots
	switch {
	case m.diag.open:
		panels = func(w, h int, _ bool) []string { return m.diagView(w, h) }
	case m.abl.open:
		panels = func(w, h int, _ bool) []string { return m.ablView(w, h) }
	}
	lines = append(lines, joinH(block(panels(plotW, mainH, big), plotW, mainH), sep, side)...)
	lines = append(lines, m.footer())
	return strings.Join(lines, "\n")
}

// panelArea is the size of the area left of the sidebar, between the
// header and the footer, and whether it takes the four panels at once.
func (m Model) panelArea() (w, h int, big bool) {
	return m.width - m.sideWidth() - 1, m.height - headerLines - 1, m.width >= bigWidth && m.height >= bigHeight
}

// sideWidth is the sidebar's width on the terminal.
func (m Model) sideWidth() int {
	if m.width >= bigWidth && m.height >= bigHeight {
		return bigSideW
	}
	return smallSideW
}

// headerCut is the title line (system, backbone, checkpoint, seed), the
// status line (idle / training / stale / untrained, and the last
// message) and the line below it (headerLines), and whether they show
// less than the whole message: a note cut, a longer message cut in its
// parts (lastLine). The ? help then shows the message in full.
func (m Model) headerCut() (lines []string, msgCut bool) {
	m.msg, m.msgKind = m.shownMsg() // m is headerCut's copy
	t := m.theme
	sys := m.sys()
	e := m.entry()
	title := t.paint(t.title, " APIC ")
	// The seed goes before the checkpoint, whose saved path may be long
	// and is the part to cut.
	srcs := []string{"checkpoint: " + e.sourceText(), e.sourceText(), e.shortSourceText(t)}
	if path, ok := m.saves.writingTo(e); ok && e.src == srcTrained && e.saved == "" {
		srcs = savingSources(t, path)
	}
	if e.src == srcAtlas {
		srcs = append(e.atlasSources(t), e.sourceText(), e.shortSourceText(t)) // "atlas: spring λθ=0.2, …"
	}
	// Short of room the system's title goes first, then "checkpoint:"
	// (an atlas model's budget its stages, then its system), then a
	// file's folders: cut at the end, a path lost its name ("file
	// embedded:lv-cnp.sa…").
	forms := []string{fmt.Sprintf(" %s · %s │ %s │ seed %d │ %s", sys.Name(), sys.Title(), m.backbone.value(), m.seed, srcs[0])}
	for _, src := range srcs {
		forms = append(forms, fmt.Sprintf(" %s │ %s │ seed %d │ %s", sys.Name(), m.backbone.value(), m.seed, src))
	}
	line1 := padRight(title+t.fitFirst(m.width-ansi.StringWidth(title), forms...), m.width)

	status, st := m.status()
	if m.base.active {
		sep := " · "
		if status == baseBusyStatus {
			sep = " " // "◐ baselines: koh-gp done 0.1 s, bcpi running…"
		}
		room := m.width - ansi.StringWidth(status) - ansi.StringWidth(sep)
		besideWork := status != baseBusyStatus
		forms := m.baseStatusForms(besideWork)
		least := forms[len(forms)-1]
		if besideWork {
			least = forms[2] // baseNamedLeast, from the forms at hand
		}
		w := room
		// A note gets the room of its first part (what a key does next,
		// "esc stops them, …") where a shorter account of the fits leaves
		// it, one that still says "baselines:" beside other work: a note
		// is cut, not wrapped, and else goes onto the line below
		// (msgParts).
		if lead, _, _ := strings.Cut(m.msg, " · "); m.msgKind == msgInfo && lead != "" {
			if need := ansi.StringWidth(lead) + 5 + 1 + ansi.StringWidth(t.ellipsis); ansi.StringWidth(least) <= room-need { // "  │  ", " …"
				w = room - need
			}
		}
		status += sep + t.fitFirst(w, forms...)
	}
	line2 := t.paint(st, status)
	below := strings.Repeat(" ", m.width)
	if m.msg == "" {
		return []string{line1, padRight(t.truncate(line2, m.width), m.width), below}, false
	}
	parts, indent, msgCut := m.msgParts(ansi.StringWidth(status))
	if parts[0] != "" {
		line2 += t.paint(t.dim, "  │  ") + t.paint(t.msgStyle(m.msgKind), parts[0])
	}
	if len(parts) > 1 {
		below = strings.Repeat(" ", indent) + t.paint(t.msgStyle(m.msgKind), parts[1])
	}
	return []string{line1, padRight(t.truncate(line2, m.width), m.width), padRight(t.truncate(below, m.width), m.width)}, msgCut
}

// headerLines is the header's height: the title, the status line and
// the line below it, which a message too long for the status line goes
// on onto. The line stays, blank, when no message needs it: the panels
// below then keep their place when one comes or goes (a range warning
// beside a note, an error, a training status whose width changes every
// step), and on the terminals whose panel area has an odd height (80×24,
// 120×36) it costs the panels nothing: half of the odd row was blank.
const headerLines = 3

// msgParts is the message on the status line beside a status statusW
// cells wide ("" where all of it goes below) and on the line below,
// indented by indent, and whether they show less than all of it. A
// long status (training) leaves the message too little room beside it:
// then it all goes below. A note takes one of the two lines, cut by its
// parts; an error or warning goes on from the status line onto the line
// below (splitMsg), under its start beside a short status.
func (m Model) msgParts(statusW int) (parts []string, indent int, cut bool) {
	lead := statusW + 5 // "  │  "
	beside, indent := m.width-lead, lead
	if lead > m.width/4 {
		indent = 2 // under the message, the line below would lose half its room
	}
	msgW := ansi.StringWidth(m.msg)
	if msgW > beside && beside < m.width/3 {
		beside = 0
	}
	if m.msgKind == msgInfo {
		if beside > 0 {
			note, whole := m.theme.fitNoteParts(m.msg, beside)
			// A note cut inside its text that fits the line below goes
			// there whole: beside the stale status, "lv/lnp: the
			// shipped checkpoint" read "…the shipped checkpo…".
			if whole || msgW > m.width-indent {
				return []string{note}, indent, note != m.msg
			}
			return []string{"", m.msg}, indent, false
		}
		note := m.theme.fitNote(m.msg, m.width-indent)
		return []string{"", note}, indent, note != m.msg
	}
	if msgW <= beside {
		return []string{m.msg}, indent, false
	}
	parts, cut = m.theme.splitMsg(m.msg, []int{beside, m.width - indent})
	return parts, indent, cut
}

// msgStyle is the colour of a message of kind k.
func (t theme) msgStyle(k msgKind) ansi.Style {
	switch k {
	case msgWarn:
		return t.warn
	case msgErr:
		return t.err
	}
	return t.label
}

// fitNote is a note in w cells: whole, else as many of its parts
// (joined by " · ") as fit with " …" after them, else cut.
func (t theme) fitNote(msg string, w int) string {
	note, _ := t.fitNoteParts(msg, w)
	return note
}

// fitNoteParts is fitNote, and whether the note keeps whole parts
// (false where it is cut inside its first).
func (t theme) fitNoteParts(msg string, w int) (string, bool) {
	if ansi.StringWidth(msg) <= w {
		return msg, true
	}
	parts := strings.Split(msg, " · ")
	for n := len(parts) - 1; n > 0; n-- {
		if head := strings.Join(parts[:n], " · ") + " " + t.ellipsis; ansi.StringWidth(head) <= w {
			return head, true
		}
	}
	return t.truncate(msg, w), false
}

// splitMsg cuts msg into lines of the given widths (a width of 0 leaves
// its line empty), breaking at spaces or after slashes, and stops once
// msg is used up. The last line holds what is left in its width
// (lastLine), which cut reports; a single width leaves msg whole.
func (t theme) splitMsg(msg string, widths []int) (lines []string, cut bool) {
	if len(widths) == 1 {
		return []string{msg}, false // a note, cut at its end by the line
	}
	var out []string
	for i, w := range widths {
		switch {
		case msg == "" && i > 0:
			return out, false
		case i == len(widths)-1:
			return append(out, t.lastLine(msg, w)), ansi.StringWidth(msg) > w
		case w == 0:
			out = append(out, "")
			continue
		}
		first := lineStart(msg, w)
		out = append(out, first)
		msg = strings.TrimLeft(msg[len(first):], " ")
	}
	return out, false
}

// lineStart is the start of msg up to the last break (a space, or
// after a slash) within w cells, else its first w cells: the message's
// own text (joining Wrap's lines would put spaces into paths).
func lineStart(msg string, w int) string {
	first, _, _ := strings.Cut(ansi.Wrap(msg, w, " /"), "\n")
	first = strings.TrimRight(first, " ")
	if !strings.HasPrefix(msg, first) {
		first = ansi.Cut(msg, 0, w)
	}
	return first
}

// lastLine is msg in w cells, on the last line a message has. Its
// parts (msgSeparators: the baselines' failures, a message and the
// range warning) go whole from its start while they fit; the first
// that does not keeps its start, which names what went wrong ("cannot
// open PATH", "bcpi:"), and its end, which says why (elideMiddle),
// where it has the room, and "…" stands for the parts left out. Beside
// a range warning the old cut, which kept the message's end, showed an
// error's cause without what had failed.
func (t theme) lastLine(msg string, w int) string {
	if ansi.StringWidth(msg) <= w {
		return msg
	}
	ellW := ansi.StringWidth(t.ellipsis)
	var out string
	for {
		part, rest := nextPart(msg)
		room := w - ansi.StringWidth(out)
		if rest != "" && ansi.StringWidth(part)+ellW <= room { // "…" if the next does not fit
			out, msg = out+part, rest
			continue
		}
		text, sep := cutSeparator(part)
		more := ""
		if rest != "" {
			more = sep + t.ellipsis
		}
		if room -= ansi.StringWidth(more); room < minElided {
			return out + t.ellipsis
		}
		return out + t.elideMiddle(text, room) + more
	}
}

// minElided is the least room a part of a message is shown in with its
// middle elided; with less its place is marked "…".
const minElided = 20

// nextPart cuts msg after its first separator (msgSeparators): the
// part with the separator, and the rest ("" for the last part).
func nextPart(msg string) (part, rest string) {
	end := -1
	for _, sep := range msgSeparators {
		if i := strings.Index(msg, sep); i >= 0 && (end < 0 || i+len(sep) < end) {
			end = i + len(sep)
		}
	}
	if end < 0 {
		return msg, ""
	}
	return msg[:end], msg[end:]
}

// cutSeparator is a part without the separator after it, and that
// separator.
func cutSeparator(part string) (text, sep string) {
	for _, sep := range msgSeparators {
		if text, ok := strings.CutSuffix(part, sep); ok {
			return text, sep
		}
	}
	return part, ""
}

// elideMiddle is msg in w cells: whole where it fits, else its start,
// "…" where it is cut, and its end: at most half the line, from where a
// part or a word starts (msgTail), so that a message a few cells too
// long loses only those ("cannot open /home/me/models/spring-run3.saf… no
// such file or directory").
func (t theme) elideMiddle(msg string, w int) string {
	if ansi.StringWidth(msg) <= w {
		return msg
	}
	ellW := ansi.StringWidth(t.ellipsis)
	tail := msgTail(msg, (w-1-ellW)/2)
	head := ansi.Cut(msg, 0, w-1-ellW-ansi.StringWidth(tail))
	// A head that stops inside a word leaves that word out, as msgTail
	// does: "trained on: in… miss the extra noise" read "in" as a word.
	// A path keeps its cut: its folders tell which file.
	if rest, ok := strings.CutPrefix(msg, head); ok && rest != "" && !strings.HasPrefix(rest, " ") {
		if i := strings.LastIndexByte(head, ' '); i > 0 && !strings.ContainsRune(head[i+1:], '/') {
			head = head[:i]
		}
	}
	head = strings.TrimRight(head, " ")
	if head == "" || tail == "" {
		return t.truncate(msg, w)
	}
	// A tail that starts a word or a part of the message is set off by
	// a space; one that starts inside a word (a long path's last
	// cells) is not, so that the path still reads as one.
	if strings.HasSuffix(strings.TrimSuffix(msg, tail), " ") {
		return head + t.ellipsis + " " + tail
	}
	return head + t.ellipsis + tail
}

// msgSeparators join the parts of a message: the baselines' failures
// ("koh-gp: …; bcpi: …"), the range warning and what follows it.
var msgSeparators = []string{"; ", " · "}

// msgTail is the end of msg in at most w cells, starting where a part of
// it starts (the earliest such start in the last w cells), else at a
// word: a part cut at its start has lost what it is about ("…observations,
// got 1;"), and a word cut in two reads as another word.
func msgTail(msg string, w int) string {
	tail := ansi.TruncateLeft(msg, ansi.StringWidth(msg)-w, "")
	cutWord := len(tail) < len(msg) && msg[len(msg)-len(tail)-1] != ' '
	best := -1
	for _, sep := range msgSeparators {
		if i := strings.Index(tail, sep); i >= 0 && i+len(sep) < len(tail) && (best < 0 || i+len(sep) < best) {
			best = i + len(sep)
		}
	}
	switch {
	case best >= 0:
		return tail[best:]
	case cutWord:
		if i := strings.IndexByte(tail, ' '); i >= 0 && i+1 < len(tail) {
			return tail[i+1:]
		}
	}
	return strings.TrimLeft(tail, " ")
}

// status is the status word and its style: a training run's, else
// the work in progress (computing), else the state of the weights.
func (m Model) status() (string, ansi.Style) {
	t := m.theme
	if s, st, ok := m.runStatus(); ok {
		return s, st
	}
	// The baselines' fits, when shown, follow as "· baselines: koh-gp
	// done 0.1 s, bcpi running… 12 s, …".
	if s := m.computingStatus(); s != "" {
		return s, t.accent
	}
	if m.base.running() {
		return baseBusyStatus, t.accent
	}
	switch {
	case m.entry().src == srcUntrained:
		return "● untrained — press t to train", t.warn
	case m.stale():
		return "● stale — λθ/λδ/regulariser changed: t retrains", t.warn
	}
	return "● idle", t.ok
}

// baseBusyStatus is the status while only the baselines' fits run:
// their account follows it (headerCut), "◐ baselines: koh-gp done
// 0.1 s, bcpi running… 12 s, cpinn running… 12 s", which says what
// runs where "● idle" said nothing did, in little more room than it.
const baseBusyStatus = "◐"

// runStatus is the status of a training run, quitting or stopping,
// and whether there is one.
func (m Model) runStatus() (string, ansi.Style, bool) {
	t := m.theme
	switch {
	case m.quitting && len(m.runs) > 0:
		return "◌ stopping training, then quitting", t.warn, true
	case m.run != nil && m.run.stopping:
		return t.dots("◌ stopping training…"), t.warn, true
	case m.run != nil && m.run.recalibrating:
		return fmt.Sprintf("◐ recalibrating the spread on %d validation realizations · esc stops", recalibrationTasks(m.run.mode)), t.accent, true
	case m.run != nil:
		p := m.prog
		if p == nil {
			return fmt.Sprintf("◐ training (%s) — starting", m.run.mode), t.accent, true
		}
		// On a small terminal the mode goes first (the "train mode"
		// control row shows the picker's), then "esc stops" (the help has it),
		// rather than the line cutting the ETA.
		progress := fmt.Sprintf("stage %d/2 · step %d/%d · loss %s · stage ETA %s", p.Stage, p.Step, p.Steps, lossText(p.Losses.Total), formatDuration(p.StageETA))
		return t.fitFirst(m.width,
			fmt.Sprintf("◐ training (%s) %s · esc stops", m.run.mode, progress),
			"◐ training "+progress+" · esc stops",
			"◐ training "+progress), t.accent, true
	}
	return "", ansi.Style{}, false
}

// footer is the short help line, or the path prompt.
func (m Model) footer() string {
	if m.prompt.active() {
		return m.prompt.view(m.width, m.theme)
	}
	k := m.keysNow()
	if m.help.ShowAll {
		// ↑↓ scroll the help over which the footer shows: it offered
		// "↑↓ select" there.
		k.selectDesc = "scroll"
	}
	return padRight(m.footerLine(k.footerSlots()), m.width)
}

// footerLine is the footer's keys: all of them in ShortHelp's words,
// " • " apart, where they fit; else as many as fit in a word a key, two
// spaces apart (" • " took 24 of the 80 columns between nine keys), and
// " …" for those left out. Where room is left, the first keys take back
// their whole words, in order, as long as as many keys still fit.
func (m Model) footerLine(all []footerSlot) string {
	var slots []footerSlot
	for _, s := range all {
		if s.enabled() {
			slots = append(slots, s)
		}
	}
	if line := m.footerKeys(slots, nil, m.help.ShortSeparator); ansi.StringWidth(line) <= m.width {
		return line
	}
	full := make([]bool, len(slots))
	n := len(slots)
	for n > 0 && ansi.StringWidth(m.footerKeys(slots[:n], full, compactSeparator)+m.footerMore(n < len(slots))) > m.width {
		n--
	}
	fits := func() bool {
		return ansi.StringWidth(m.footerKeys(slots[:n], full, compactSeparator)+m.footerMore(n < len(slots))) <= m.width
	}
	for i := range n {
		if full[i] = true; !fits() {
			full[i] = false
			break // a key in its words after one in a word read as out of order
		}
	}
	return m.footerKeys(slots[:n], full, compactSeparator) + m.footerMore(n < len(slots))
}

// compactSeparator parts the keys of a footer in a word a key.
const compactSeparator = "  "

// footerKeys is slots as the help bubble draws them, sep apart: in
// ShortHelp's words where full is nil or full[i], else in a word. The
// help model's own cut is not used: it adds the key that does not fit
// where its " …" has no room either, and the line was then cut inside
// that key ("r new realization •").
func (m Model) footerKeys(slots []footerSlot, full []bool, sep string) string {
	h := m.help
	h.SetWidth(0) // uncut: footerLine cuts
	h.ShortSeparator = sep
	var keys []key.Binding
	for i, s := range slots {
		if full == nil || full[i] {
			keys = append(keys, s.full...)
		} else {
			keys = append(keys, s.word...)
		}
	}
	return h.ShortHelpView(keys)
}

// footerMore is the footer's " …" where it leaves keys out, else "".
func (m Model) footerMore(left bool) string {
	if !left {
		return ""
	}
	return " " + m.help.Styles.Ellipsis.Inline(true).Render(m.help.Ellipsis)
}

// keysNow is the KeyMap with the bindings that apply now enabled.
func (m Model) keysNow() KeyMap {
	k := m.keys
	twoD := m.is2D()
	for _, b := range []*key.Binding{&k.SliceBack, &k.SliceFwd, &k.SliceBack8, &k.SliceFwd8, &k.Heatmap} {
		b.SetEnabled(twoD)
	}
	// Under d or A, v switches nothing in sight (toggleHeat says so).
	k.Heatmap.SetEnabled(twoD && !m.diag.open && !m.abl.open)
	// While a run trains t only answers "already training": the
	// footer offered "t train" there, and at 80 columns cut esc, the
	// key that does act, for it.
	k.Train.SetEnabled(m.run == nil)
	// esc stops a run first, else baseline fits (cancelKey): the footer
	// names the one it stops. A run stopping already is past it: the
	// footer offered "esc stop training" there, where esc stopped the
	// fits, or nothing.
	k.Cancel.SetEnabled(m.escStopsRun() || m.base.running())
	if m.escStopsRun() {
		k.Cancel.SetHelp(k.Cancel.Help().Key, "stop training")
	} else {
		k.Cancel.SetHelp(k.Cancel.Help().Key, "stop baselines")
	}
	// s and u refuse while a run trains (or stops): the weights on
	// screen are still changing. The footer offered them all the same.
	k.Save.SetEnabled(m.run == nil)
	k.Undo.SetEnabled(m.run == nil && m.entry().undoable())
	// q waits for a save writing its file; pressed again, it waits no
	// more (quit).
	switch {
	case m.quitting && m.saves.pending() > 0:
		k.quitDesc = "quit at once"
	case m.saves.pending() > 0:
		k.quitDesc = "quit once saved"
	}
	// d, A and c close what they opened, pressed again.
	if m.diag.open {
		k.diagDesc, k.diagWord = "close diagnostics", "close"
	}
	if m.abl.open {
		k.ablDesc, k.ablWord = "close ablation", "close"
	}
	switch {
	case m.base.active && !m.base.allDone() && m.run != nil:
		k.baseDesc, k.baseWord = "stop baselines", "stop"
	case m.base.active:
		// While they run, esc stops them and keeps what ended.
		k.baseDesc, k.baseWord = "clear baselines", "clear"
	}
	// Under d or A, p flips nothing in sight (flipPage says so): the
	// footer offered "p other panels" there all the same.
	k.Page.SetEnabled(!m.fourPanels() && !m.diag.open && !m.abl.open)
	return k
}

// plots draws the panel area: four panels in a 2×2 grid on a large
// terminal, otherwise two at a time (p shows the other two).
func (m Model) plots(w, h int, big bool) []string {
	if m.res == nil {
		if s := m.kept; s != nil && s.w == w && s.h == h {
			return m.staleView(s)
		}
		out := make([]string, h)
		out[h/2] = padRight(strings.Repeat(" ", max(0, w/2-6))+m.theme.dots("inferring…"), w)
		return out
	}
	var panels []func(w, h int) []string
	if m.is2D() && m.heat {
		hms := m.heatPanels()
		if m.base.active {
			// The baselines' fields are compared along the ▸ slice in
			// place of the |error| map, which the slice shows for
			// APIC as the gap between truth and prediction.
			hms = hms[:3]
		}
		for _, hm := range hms {
			panels = append(panels, func(w, h int) []string {
				hm.width, hm.height = w, h
				return hm.render(m.theme)
			})
		}
		if m.base.active {
			lp := m.baseSlicePanel()
			panels = append(panels, func(w, h int) []string {
				lp.width, lp.height = w, h
				return lp.render(m.theme)
			})
		}
	} else {
		lps := m.linePanels()
		// Every panel takes as many legend lines as the one that needs
		// most: side by side, so that their plots share rows and their
		// x axes line up; above or below each other (or on the other
		// page), so that panels 1, 3 and 4, which share a range, draw it
		// on the same rows with the same ticks (panel 2's legend, longer
		// with θ set by hand or baselines shown, would otherwise shrink
		// panel 1's plot alone).
		w1, h1 := w, h/2
		if big {
			w1 = (w - 1) / 2
		}
		// Their y labels take the widest one's columns too: the panels
		// share the x axis, and stacked (1 over 2, or 1 over 3 beside 2
		// over 4) their data then start at the same column, so that a t
		// in one lies under the same t in the other.
		// Both are read off the panels' sizes and scales before any
		// body is drawn, so that each is drawn once.
		n, labelW := 1, 0
		legendN := make([]int, len(lps))
		for i := range lps {
			lps[i].width, lps[i].height = w1, h1
			legendN[i] = lps[i].legendCount()
			n = max(n, legendN[i])
		}
		for i := range lps {
			lps[i].legendRows = n
			legendN[i] = lps[i].legendNFrom(legendN[i])
			labelW = max(labelW, lps[i].labelWidth(legendN[i]))
		}
		laid := make([]panelLayout, len(lps))
		for i, lp := range lps {
			lp.labelWMin = labelW
			laid[i] = lp.layoutAt(legendN[i])
			panels = append(panels, func(w, h int) []string {
				lp.width, lp.height = w, h
				if w == w1 && h == h1 && laid[i].legendN == n {
					// Laid out as render would: the body need not be
					// drawn again.
					return lp.renderLaidOut(m.theme, &laid[i])
				}
				return lp.render(m.theme)
			})
		}
	}
	// Every panel gets the same size, the odd line or column left blank
	// (render pads the area to w × h): panels of different heights would
	// sample different rows of a heatmap's time axis, and choose
	// different ticks for ranges they share, under the same labels.
	h1 := h / 2
	if big {
		w1 := (w - 1) / 2
		gap := block(nil, 1, h1)
		row := func(a, b int) []string {
			return joinH(block(panels[a](w1, h1), w1, h1), gap, block(panels[b](w1, h1), w1, h1))
		}
		return append(row(0, 1), row(2, 3)...)
	}
	first := 2 * m.page
	return append(block(panels[first](w, h1), w, h1), block(panels[first+1](w, h1), w, h1)...)
}

// sidebar is the controls panel, the θ readout, the metrics and the
// training box, packed as tightly as h rows need (sideLayoutFor).
func (m Model) sidebar(w, h int) []string {
	lay := m.sideLayoutFor(w, h)
	out := append(m.sideTop(w, h, lay), m.sideSection(w, m.metricsTitle()))
	box := m.trainBox(w, lay)
	room := h - len(out) - len(box)
	switch {
	case m.run != nil:
		// A run's box keeps its heading and first line: the averages
		// wait for the run's end.
		room = h - len(out) - 2
	case len(m.losses) > 0:
		// After a run the metrics of the new weights are what is read,
		// and the status line says how the run went: short of room for
		// every metric, the box gives up rows, down to one
		// (finishedRunRow). At 80×24 lv then keeps every average (the
		// metrics' title in their heading: averagedBlock), which the
		// box's three rows cut to two.
		box = m.finishedRunBox(w, h-len(out)-len(m.metricsRows(w)), box)
		room = h - len(out) - len(box)
	}
	// Before any run the box says how to start one, save and open,
	// which the footer at 80 columns cuts: it keeps its row, and the
	// metrics' last rows give way to it (with the baselines shown at
	// 80×24, the errors too). Without a row left for the metrics' mark
	// (below the smallest size), they come first and the sidebar is cut
	// once, at the bottom.
	if room < 1 && m.run == nil {
		room = h
	}
	if m.opts.Averages > 0 {
		out = append(out[:len(out)-1], m.averagedBlock(w, room)...) // in place of the title
	} else {
		out = append(out, m.theme.cutMarked(m.metricsLines(w), w, room, sideMore)...)
	}
	if m.run != nil && len(out)+len(box) > h {
		// The sparkline is the history of the loss on the line below
		// the heading: short of a row of its own it goes beside the
		// heading, shorter, rather than silently.
		box = []string{m.trainHeading(w), box[1]}
	}
	out = append(out, box...)
	return m.theme.cutMarked(out, w, h, sideMore)
}

// metricsRows are the metrics' rows uncut: with the averages, their
// heading and a row a metric; without, two metrics a row.
func (m Model) metricsRows(w int) []string {
	if m.opts.Averages > 0 {
		return m.averagedLines(w, len(avgRows)+1, "")
	}
	return m.metricsLines(w)
}

// averagedBlock is the metrics' title and the averages in room rows
// below it. Short of a row for every average, the title goes into the
// columns' heading, which has its first ten cells free (metricsLabel):
// at 80×23, inside tmux, lv's sidebar is one row short of the title, the
// heading and five rows, and the title's row is worth more as a metric.
func (m Model) averagedBlock(w, room int) []string {
	if room >= len(avgRows)+1 || room < 1 {
		return append([]string{m.sideSection(w, m.metricsTitle())}, m.averagedLines(w, room, "")...)
	}
	return m.averagedLines(w, room+1, m.metricsLabel())
}

// sideTop is the sidebar above the metrics: the controls, the θ rows
// and, while shown, the baselines' rows.
func (m Model) sideTop(w, h int, lay sideLayout) []string {
	t := m.theme
	var out []string
	if lay < sideNoControlsHeading {
		out = append(out, m.sideSection(w, "controls"))
	}
	ctls := m.controls()
	var est, std []float64
	if m.res != nil {
		est, std = m.res.est, m.res.estStd
	}
	for i, id := range ctls {
		focused := i == m.focus
		switch {
		case id == ctlSystem:
			names := make([]string, len(m.systems))
			for j, s := range m.systems {
				names[j] = s.Name()
			}
			out = append(out, newPicker("system", names, m.sys().Name()).view(w, focused, t))
		case id == ctlBackbone:
			out = append(out, m.backbone.view(w, focused, t))
		case id == ctlContext:
			out = append(out, m.ctxSteps[m.sys().Name()].view(w, focused, t))
		case id == ctlNoise:
			out = append(out, m.noise.view(w, focused, t))
		case id == ctlLamTheta:
			out = append(out, m.lamTheta.view(w, focused, t))
		case id == ctlLamDelta:
			out = append(out, m.lamDelta.view(w, focused, t))
		case id == ctlReg:
			out = append(out, m.reg.view(w, focused, t))
		case id == ctlMode:
			mode := m.mode
			if m.modeIsNextRuns() {
				// The status line at 80 columns has no room for the
				// run's mode: the row must not read as the run's.
				mode.label = "next run's mode"
			}
			out = append(out, mode.view(w, focused, t))
		case id == ctlSlice:
			g := m.sys().Grid()
			v := sliceTime(g.States[m.slice*g.Shape[1]][0])
			out = append(out, controlRow(t, w, focused, "time slice", v, m.slice > 0, m.slice < g.Shape[0]-1))
		case id >= ctlTheta:
			if id == ctlTheta {
				out = append(out, m.sideSection(w, thetaHeading(w, m.thetaOnePass())))
			}
			j := int(id - ctlTheta)
			e, s := nan, nan
			if j < len(est) {
				e, s = est[j], std[j]
			}
			out = append(out, m.theta[j].view(w, focused, t, e, s, m.real.Theta[j]))
		}
	}
	if m.base.active {
		// A failure's reason wraps onto more lines where the sidebar
		// has the rows to spare.
		lines := m.baseLines(w, min(3, max(2, (h-15)/4)))
		if lay >= sideNoBaselineTitle {
			lines = lines[1:]
		}
		out = append(out, lines...)
	}
	return out
}

// sideSection is a section heading of the sidebar.
func (m Model) sideSection(w int, s string) string {
	return padRight(m.theme.paint(m.theme.label, s), w)
}

// lossText is the training loss as the status line and the training
// box write it: three significant digits with the trailing zeros kept
// (sigFixed, "0.920", not "0.92", whose width would jump with every
// step), and the leading zero, which the box drops short of room.
func lossText(v float64) string {
	s := sigFixed(v, 3)
	switch {
	case strings.HasPrefix(s, "."):
		return "0" + s
	case strings.HasPrefix(s, "-."):
		return "-0" + s[1:]
	}
	return s
}

// trainHeading is the training box's heading with the loss sparkline
// beside it, for a sidebar without a row for the sparkline.
func (m Model) trainHeading(w int) string {
	t := m.theme
	const head = "training "
	spark := sparkline(m.losses, w-len(head)-1)
	return padRight(t.paint(t.label, head)+t.paint(t.fg(colSparks), spark), w)
}

// finishedRunBox is a finished run's training box (full) in at most
// rows rows: whole, or its heading with the sparkline beside it and the
// last step's line, or one row.
func (m Model) finishedRunBox(w, rows int, full []string) []string {
	switch {
	case rows >= len(full):
		return full
	case rows >= 2:
		return []string{m.trainHeading(w), full[1]}
	}
	return []string{m.finishedRunRow(w)}
}

// finishedRunRow is a finished run's training box on one row: the
// heading, the loss sparkline and the last loss, for a sidebar that
// keeps its rows for the averages of the new weights.
func (m Model) finishedRunRow(w int) string {
	t := m.theme
	const head = "training "
	last := ""
	if m.prog != nil {
		last = " loss " + compact(lossText(m.prog.Losses.Total))
	}
	spark := sparkline(m.losses, w-len(head)-len(last)-1)
	return padRight(t.paint(t.label, head)+t.paint(t.fg(colSparks), spark)+last, w)
}

// sideMore is the line that ends a sidebar cut for room.
func sideMore(n int) []string {
	more := " … " + core.Count(n, "more row")
	return []string{more + ": a taller terminal", more + ": taller window", more}
}

var nan = math.NaN()

// thetaOnePass reports whether the θ rows show the one pass of a model
// that refines where nothing else on screen says so: a training run's
// snapshots are inferred without refinement (needsRefine), which needs
// the CPU the run has; and with every point in context the metrics'
// heading says "none: all in context" in place of "one pass,
// refining…", so θ̂ ± σ and θ MAE changed on refinement with no word.
func (m Model) thetaOnePass() bool {
	if m.res == nil || m.res.refined != 0 || m.entry().model.Config.Infer.Refine <= 0 {
		return false
	}
	return m.run != nil || len(m.res.task.Targets) == 0
}

// metricsTitle says what the metrics describe: the one-pass amortized
// prediction, the refined one, or the prediction at a hand-set θ.
func (m Model) metricsTitle() string {
	switch {
	case m.res == nil:
		return "metrics"
	case len(m.res.task.Targets) == 0:
		return "metrics · none: all in context"
	case m.overridden():
		return "metrics · θ set by hand"
	case m.res.refined > 0:
		return fmt.Sprintf("metrics · refined (%d LM steps)", m.res.refined)
	case m.needsRefine():
		return m.theme.dots("metrics · one pass, refining…")
	}
	return "metrics · one pass"
}

// metricsLabel is metricsTitle in the nine cells the averages' heading
// has before its "this" (averagedBlock): what the metrics describe, in
// a word or two.
func (m Model) metricsLabel() string {
	label := "one pass"
	switch {
	case m.res == nil || len(m.res.task.Targets) == 0:
		label = "metrics"
	case m.overridden():
		label = "θ by hand"
	case m.res.refined > 0:
		label = "refined"
	case m.needsRefine():
		label = m.theme.dots("refining…") // "refining..." under --ascii: too wide
	}
	return m.theme.fitFirst(metricsLabelW, label, "metrics")
}

// metricsLabelW is the room of metricsLabel: the averages' label column
// less the space before "this".
const metricsLabelW = 9

// metricsLines shows the realization's metrics from core.Score.
func (m Model) metricsLines(w int) []string {
	// Each value takes at most limit cells, all at the same significant
	// digits (atOneDigits: ".000999" in a 30-cell sidebar takes ".0010"),
	// so no value is ever cut.
	limit := min(7, (w-18)/2) // " recon MAE " v " δ MAE " v
	// The two metrics of a row share a notation (sigIn): decimals where
	// both fit so, else exponents where one takes one.
	mates := map[string][]string{core.KeyReconMAE: {core.KeyDeltaMAE}, core.KeyDeltaMAE: {core.KeyReconMAE},
		core.KeyReconLL: {core.KeyThetaMAE}, core.KeyThetaMAE: {core.KeyReconLL}}
	rowExp := func(k string, digits int) bool {
		if m.res == nil {
			return false
		}
		v, row := m.res.metrics.Values, append([]string{k}, mates[k]...)
		needs := slices.ContainsFunc(row, func(j string) bool { return needsExp(v[j], digits) })
		return needs && slices.ContainsFunc(row, func(j string) bool { return !inDecimals(sigIn(v[j], digits, false), limit) })
	}
	cells := atOneDigits(len(avgRows), func(i int, d [2]int) (string, bool) {
		k := avgRows[i][1]
		return m.thisAt(k, limit, d[0], rowExp(k, d[0]))
	}, func(i int) string {
		k := avgRows[i][1] // alone: the table is at numDigits[1] (atOneDigits)
		return fitNumber(m.res.metrics.Values[k], limit, rowExp(k, numDigits[1][0]))
	})
	vals := make(map[string]string, len(avgRows))
	for i, r := range avgRows {
		vals[r[1]] = cells[i]
	}
	// The reconstruction's metrics share the first column, whose labels
	// are as long as "recon LL" needs.
	rows := [][4]string{
		{"recon MAE", vals[core.KeyReconMAE], "δ MAE", vals[core.KeyDeltaMAE]},
		{"recon LL ", vals[core.KeyReconLL], "θ MAE", vals[core.KeyThetaMAE]},
		{"recon ECE", vals[core.KeyReconECE], "", ""},
	}
	// The second column starts one space after the widest first one, so
	// that it lines up whatever the values' lengths.
	col := 0
	for _, r := range rows {
		col = max(col, ansi.StringWidth(" "+r[0]+" "+r[1])+1)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = padRight(padRight(" "+r[0]+" "+r[1], col)+r[2]+" "+r[3], w)
	}
	return out
}

// trainLines is the training box under its heading once a run has
// started: stage, step, loss and ETA with a loss sparkline.
func (m Model) trainLines(w int) []string {
	t := m.theme
	first := " last run"
	if m.prog != nil {
		p := m.prog
		// The loss's leading zero, the stage, the loss's third digit
		// and then the loss itself (the status line and the sparkline
		// keep it) give way before the ETA is cut, in the small
		// sidebar: a full run's steps reach five digits, its ETA hours.
		eta := ""
		if m.run != nil {
			eta = " ETA " + formatDuration(p.StageETA)
		}
		step := fmt.Sprintf(" %d/%d", p.Step, p.Steps)
		stage := fmt.Sprintf(" s%d", p.Stage)
		loss := lossText(p.Losses.Total)
		first = t.fitFirst(w,
			stage+step+" loss "+loss+eta,
			stage+step+" loss "+compact(loss)+eta,
			step+" loss "+compact(loss)+eta,
			step+" loss "+sigFixed(p.Losses.Total, 2)+eta,
			step+eta)
	}
	spark := sparkline(m.losses, w-2)
	return []string{padRight(first, w), padRight(" "+t.paint(t.fg(colSparks), spark), w)}
}
