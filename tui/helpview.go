package tui

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"apic/core"
	"apic/sims"
)

// fullHelp is the help view of ?, h lines tall: the help from line
// m.helpTop on, and when it does not fit, a last line saying how to see
// the rest. msgCut says the status line cuts the message (headerCut).
func (m Model) fullHelp(w, h int, msgCut bool) []string {
	lines := m.helpLines(w, msgCut)
	if len(lines) <= h {
		return block(lines, w, h)
	}
	top := min(max(m.helpTop, 0), len(lines)-(h-1))
	more := m.keyText(fmt.Sprintf("↑/↓ scroll, pgup/pgdn a screen · lines %d–%d of %d", top+1, top+h-1, len(lines)))
	out := append(lines[top:top+h-1:top+h-1], m.theme.paint(m.theme.dim, more))
	return block(out, w, h)
}

// scrollHelp moves the help view a line (↑, ↓) or a screen (pgup,
// pgdn: the lines shown less one, kept in sight) up or down, within its
// length.
func (m *Model) scrollHelp(k tea.KeyPressMsg) {
	header, msgCut := m.headerCut()
	h := m.height - len(header) - 1 // the lines the help view gets
	n := len(m.helpLines(m.width, msgCut))
	if n <= h {
		m.helpTop = 0
		return
	}
	screen := max(h-2, 1) // h-1 lines of help under the scroll line
	switch {
	case key.Matches(k, m.keys.Up):
		m.helpTop--
	case key.Matches(k, m.keys.Down):
		m.helpTop++
	case key.Matches(k, m.keys.HelpPageUp):
		m.helpTop -= screen
	case key.Matches(k, m.keys.HelpPageDown):
		m.helpTop += screen
	}
	m.helpTop = min(max(m.helpTop, 0), n-(h-1))
}

// helpLines is the whole help of ?: every key, the controls and what the
// panels show, at width w; first the message in full when the status
// line cuts it (msgCut).
func (m Model) helpLines(w int, msgCut bool) []string {
	t := m.theme
	var lines []string
	if msgCut {
		lines = m.wholeMsg(w)
	}
	lines = append(lines, m.helpKeyLines(w)...)
	lines = append(lines, m.helpControlLines()...)
	lines = append(lines, m.helpPanelLines()...)
	lines = append(lines, "", t.paint(t.bold, "metrics")+"  (on the targets: the realization's points not in context)")
	return append(lines, metricsHelp...)
}

// helpKeyLines is the keys section of the help, at width w.
func (m Model) helpKeyLines(w int) []string {
	t := m.theme
	hm := m.help
	hm.SetWidth(w)
	lines := []string{t.paint(t.bold, "keys") + "  (? or esc closes this help; a key below closes it and acts)"}
	if m.opts.ASCII {
		lines = append(lines, asciiHelp...)
	}
	k := m.keysNow()
	// The full help lists the training keys even when they do nothing
	// yet, so that they can be found before the first run.
	k.Train.SetEnabled(true)
	k.Cancel = m.keys.Cancel // the footer's names only what it stops now
	k.Undo.SetEnabled(true)
	k.Save.SetEnabled(true)
	// Two blocks of columns, not three side by side, which would not fit
	// an 80-column terminal: the help model drops what overflows.
	groups := k.FullHelp()
	lines = append(lines, strings.Split(hm.FullHelpView(groups[:2]), "\n")...)
	lines = append(lines, "")
	train := groups[2]
	half := (len(train) + 1) / 2
	lines = append(lines, strings.Split(hm.FullHelpView([][]key.Binding{train[:half], train[half:]}), "\n")...)
	lines = append(lines,
		"a key that shows another system or backbone, or o (open), while a run trains",
		"  (another system or o while baselines fit) asks first: press it again to go on.")
	lines = append(lines, quitSaveHelp...)
	if m.run != nil {
		// The footer leaves them out meanwhile.
		lines = append(lines, "s and u wait for this run to end (esc stops it): its weights still change.")
	}
	return lines
}

// helpControlLines is the controls section of the help: the sliders,
// the training box, the sidebar's averages, A and d.
func (m Model) helpControlLines() []string {
	t := m.theme
	n := m.realizations() // explore --tasks
	lines := []string{"",
		t.paint(t.bold, "controls") + m.keyText("  (↑/↓ select, wrapping round; ←/→ change)"),
		"context and noise σ re-infer at once on the same realization;",
		"λθ, λδ, regulariser: the value's atlas model (lnp, fewer steps), else t trains;",
		"  stage 2 minimises −ELBO + λθ·L_θ + λδ·L_δ: L_θ the θ loss on draws with",
		"  known θ, L_δ the regulariser on δ̂: l1, l2 its size; orthogonal z_δ against",
		"  z_θ; spectral f_ψ's largest singular values; gradpen its roughness; spread",
		"  how it differs across realizations (docs/model.md, Training);",
	}
	lines = append(lines, m.thetaRowsHelp()...)
	lines = append(lines,
		"train mode: fine-tune the current weights, scratch (brief), or full budget.",
		"training box: s1/s2 the stage (1: L_θ on nominal data alone; 2: as above),",
		"  step/steps, loss and the stage's ETA; under it, the loss over the run,",
		"  low ▁ to high █ on its own scale.",
		fmt.Sprintf("mean±95%%/%d: the same %d realizations at any header seed, those of", n, n),
		fmt.Sprintf("  apic eval --tasks %d --seed %d --samples %d at the sliders' settings:", n, avgSeed, samplesFor(m.sys())),
		"  their mean ± a 95% confidence interval of it (eval's ± is their sd).",
		"  An interval cut where a metric ends (an error at 0, a coverage at 1)",
		"  reads mean [lo,hi]; short of room, mean ≤hi or mean ≥lo, the uncut end.",
		"  recon ECE is per realization, then averaged: one realization's errors",
		"  move together, so even a calibrated band scores high where it is wide (few",
		"  context points); d's reliability pools realizations (docs/uncertainty.md).")
	if fewRealizations(n) {
		lines = append(lines, fmt.Sprintf("  (few): under %d realizations the interval is rough (explore --tasks).", avgFew))
	}
	lines = append(lines,
		"A: metrics over "+ablAxesText()+" (else the last shown)",
		"  each point the mean ± 95% confidence interval, as the sidebar's",
		fmt.Sprintf("d: apic diagnose --tasks %d --seed %d --samples %d at the sliders' settings;", n, diagSeed, samplesFor(m.sys())),
		"  while training, of the weights before the run (recomputed when it ends).",
		"  Its verdict: θ's cover95 against 0.95 ± 2 s.e., then the SBC test at 5%.",
		t.dots("  max|·|: a reliability row's largest gap over the 19 levels .05, .10 … .95;"),
		"  per θ: cover95, the share of true θ in its 95% interval; contraction,",
		"  the median 1 − σ²/prior variance (1: data pin θ, 0: the prior alone);",
		"  z = (θ̂ − θ)/σ, z̃ its median, |z|>2 the share past 2σ; SBC ranks, a",
		"  histogram of θ's rank among the draws, flat when calibrated (χ² p).")
	if asked, drawn := samplesFor(m.sys()), samplesDrawn(m.sys(), m.backbone.value()); drawn != asked {
		lines = append(lines, fmt.Sprintf("  (a %s draws %s whatever --samples asks: it is deterministic)", m.backbone.value(), core.Count(drawn, "sample")))
	}
	if n := int(m.ctxSteps[m.sys().Name()].value()); n >= m.sys().Grid().Points() {
		// Every grid point is context: both commands refuse it.
		lines = append(lines, fmt.Sprintf("  (both commands need a context that leaves targets: %d leaves none)", n))
	}
	return lines
}

// helpPanelLines is the panels section of the help: what each panel
// draws, for the heatmaps or the curves on screen.
func (m Model) helpPanelLines() []string {
	t := m.theme
	lines := []string{"", t.paint(t.bold, "panels")}
	// The panels' titles use these letters without saying what they are.
	lines = append(lines, termsHelp...)
	if m.is2D() && m.heat {
		lines = append(lines,
			"1 ground truth G(t, x); t runs down, x across",
			"2 corrected prediction, on the same colour scale",
			"3 learned discrepancy δ̂, on a scale symmetric about zero",
			"4 |truth − prediction| on its own colour scale (see its bar)",
			"c: baselines; 4 then shows the ▸ slice ([ ] move it): truth, prediction",
			"  and "+baseMarks()+"; θ̂ and time by θ; c again clears",
			baseLongNames,
		)
		lines = append(append(lines, baseBudgetHelp()...), baseEdgeHelp)
	} else {
		lines = append(lines,
			"1 simulator F(x; θ̂) at the estimated parameters, with the context points",
			"2 learned discrepancy δ̂ with its 95% band against the true δ = G − F(x; θ)",
			"3 corrected prediction with its 95% band and the context points",
			truthHelp(t),
			"(95% band: the calibrated band's 95.4% interval, μ ± 2σ' with σ' the band",
			"  shape's deviation, often wider than 2 × the model's σ: docs/uncertainty.md)",
			"  a band thinner than a row lies under its curve: its legend then adds"+thinBand,
			"(ranges stay fixed per realization, on advdiff per time slice; context points",
			"  beyond sit on the edge as ↑ ↓; curves and bands beyond run flat along it)",
			"c: baselines on 2 and 3 as "+baseMarks()+"; θ̂ and time by θ",
			baseLongNames,
		)
		lines = append(append(lines, baseBudgetHelp()...), baseEdgeHelp)
		if m.sys().Name() == "spring" {
			lines = append(lines, "  On spring koh-gp's θ̂ often runs to the prior's edge: its GP absorbs",
				"  the damping, the failure the paper reports (docs/baselines.md).")
		}
	}
	return lines
}

// thetaRowsHelp explains the θ rows, with the samples the backbone on
// screen draws: a cnp draws one whatever is asked, and the system's
// budget (16) would claim a spread over samples that were never drawn.
func (m Model) thetaRowsHelp() []string {
	const hand = "set by hand to see what δ must absorb (a: auto)."
	// The parenthesised σ (thetaFigures) is read nowhere else.
	const paren = "  θ̂ to σ's leading digit; short of room, σ in θ̂'s last digit: 1.13990(9) ±.00009"
	n := samplesDrawn(m.sys(), m.backbone.value())
	if n == samplesFor(m.sys()) {
		return []string{fmt.Sprintf("θ rows: θ̂±1σ over %s; %s", core.Count(n, "sample"), hand), paren, priorStdHelp(m.sys()), nearPriorHelp}
	}
	return []string{
		fmt.Sprintf("θ rows: θ̂ ± 1σ from the %s's single deterministic pass (%s);", m.backbone.value(), core.Count(n, "sample")),
		"  " + hand,
		paren,
		priorStdHelp(m.sys()),
		nearPriorHelp,
	}
}

// priorStdHelp says where a θ row's σ stops: at its uniform prior's own
// deviation, (hi − lo)/√12, the σ of knowing nothing but the prior box.
// Without it a sparse context's "5.48±1.44" beside a truth of 5.47 reads
// as a fair interval, where 1.44 is spring's cap and says that the
// points pinned ω no better than the prior did. Parameters with the same
// prior share one figure ("α β η γ .289").
func priorStdHelp(sys sims.System) string {
	var order []string
	names := map[string][]string{}
	for _, p := range sys.Params() {
		sd := compact(sig3((p.Hi - p.Lo) / math.Sqrt(12)))
		if names[sd] == nil {
			order = append(order, sd)
		}
		names[sd] = append(names[sd], cmp.Or(p.Symbol, p.Name))
	}
	parts := make([]string, len(order))
	for i, sd := range order {
		parts[i] = strings.Join(names[sd], " ") + " " + sd
	}
	return "  σ ≤ its prior's, (hi − lo)/√12, " + strings.Join(parts, ", ") + ": near it, data barely pin θ"
}

// metricsHelp says what the sidebar's metrics measure and which way
// each is better: the names alone (recon ECE, recon LL) say neither.
var metricsHelp = []string{
	"  recon MAE: mean |G − prediction|; δ MAE: mean |δ − δ̂|; θ MAE: mean |θ − θ̂|;",
	"    all errors: 0 is perfect, lower is better",
	"  recon LL: mean log-density of G under N(prediction, σ²); higher is better",
	"  recon ECE: calibration error of the band's intervals, 0 is perfect",
	"  one pass: the encoder's amortized guess; refined (N LM steps): then N",
	"    Levenberg–Marquardt steps fitting θ̂ and δ̂ to the context",
}

// baseMarks lists the baselines as their plot marks and names, the
// names the status line, sidebar and legends use: "k koh-gp, b bcpi, …".
func baseMarks() string {
	parts := make([]string, len(baseStyles))
	for i, s := range baseStyles {
		parts[i] = s.mark + " " + s.name
	}
	return strings.Join(parts, ", ")
}

// termsHelp names the letters the panels and the sidebar use, for a
// reader who meets calibration here first.
var termsHelp = []string{
	"F: the simulator; G: the process that made the data; δ = G − F, what F misses;",
	"  θ: F's parameters, θ̂ their estimate; context: the observed points of G",
}

// baseLongNames spells out the short names once, for a reader who knows
// the methods from the paper rather than from apic compare --methods.
const baseLongNames = "  (koh-gp: Kennedy–O'Hagan GP; cpinn: Correction-PINN)"

// baseBudgetHelp reads the heading of the θ readout's baseline rows
// (baseBudgetTitle), whose "3×500" and "4×1k" the screen explains
// nowhere else.
func baseBudgetHelp() []string {
	return []string{
		fmt.Sprintf("  their rows' heading: bcpi %d starts × %d MCMC steps, cpinn %d members ×", baseBCPIStarts, baseBCPISteps, basePINNMembers),
		fmt.Sprintf("  %d steps each, far below the paper's, to come back in seconds", basePINNSteps),
	}
}

// wholeMsg is the message the status line cuts, wrapped to width w
// under a heading, with a blank line after it: the help is where a long
// error's elided middle can be read.
func (m Model) wholeMsg(w int) []string {
	t := m.theme
	msg, kind := m.shownMsg()
	lines := []string{t.paint(t.bold, "message") + "  (in full; the status line cuts it)"}
	for _, l := range wrapLines(msg, w) {
		lines = append(lines, t.paint(t.msgStyle(kind), l))
	}
	return append(lines, "")
}
