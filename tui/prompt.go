package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// promptKind is what a path prompt is for.
type promptKind int

const (
	promptNone promptKind = iota
	promptSave
	promptOpen
)

// prompt is the one-line path prompt of s (save) and o (open): typing
// edits at the end, backspace deletes, alt+backspace or ctrl+w deletes
// the last path element, ctrl+u clears, tab completes a file
// name, enter accepts and esc cancels. (bubbles' textinput would pull a
// clipboard dependency for no gain here.)
type prompt struct {
	kind  promptKind
	value []rune
	// placeholder shows, dimmed after the cursor, while the value is
	// empty: the open's example path, or the save's suggested file
	// name (suggested), which enter then takes as it is shown.
	placeholder string
	suggested   bool
	// matches are the names a tab left to choose from (more than one),
	// shown until the next key: at most maxShownMatches of them, of
	// matchCount in all.
	matches    []string
	matchCount int
	// completing is the number of the tab whose directory read is
	// still under way (completeCmd), 0 when none: an edit sets it to 0,
	// so that the read's answer, made for the value before the edit, is
	// dropped.
	completing int
}

// newPrompt opens a prompt prefilled with value.
func newPrompt(kind promptKind, value, placeholder string) prompt {
	return prompt{kind: kind, value: []rune(value), placeholder: placeholder}
}

// newSuggestingPrompt opens an empty prompt that offers suggestion in
// place of its value: enter takes it, typing or a paste replaces it,
// tab or → puts it in the value to edit. Prefilled as the value, a name
// typed after s was appended to it ("apic-spring-lnp-1.safetensorsmine").
func newSuggestingPrompt(kind promptKind, suggestion string) prompt {
	return prompt{kind: kind, placeholder: suggestion, suggested: true}
}

func (p prompt) active() bool { return p.kind != promptNone }

// edit applies an editing key; tab is tab's (which may read a
// directory).
func (p prompt) edit(k tea.KeyPressMsg) prompt {
	p.matches, p.matchCount, p.completing = nil, 0, 0
	switch k.String() {
	case "backspace":
		if len(p.value) > 0 {
			p.value = p.value[:len(p.value)-1]
		}
	case "alt+backspace", "ctrl+w":
		p.value = p.value[:lastElementStart(p.value)]
	case "ctrl+u":
		p.value = nil
	case "right":
		p = p.takeSuggestion()
	default:
		if k.Text != "" && k.Mod&^tea.ModShift == 0 {
			p.value = append(p.value, []rune(k.Text)...)
		}
	}
	return p
}

// lastElementStart is where the last element of path begins: after
// the slash or blank before it, its own trailing slashes counted in, so
// that deleting from there turns "runs/lv/a.safetensors" into "runs/lv/"
// and that into "runs/".
func lastElementStart(path []rune) int {
	i := len(path)
	for i > 0 && path[i-1] == '/' {
		i--
	}
	for i > 0 && path[i-1] != '/' && path[i-1] != ' ' {
		i--
	}
	return i
}

// takeSuggestion puts the suggestion, while it shows, in the value,
// for the keys to edit.
func (p prompt) takeSuggestion() prompt {
	if len(p.value) == 0 && p.suggested {
		p.value = []rune(p.placeholder)
	}
	return p
}

// paste appends pasted text (without a trailing line break) to the
// value; like any edit, it clears the matches of the last tab. Control
// characters (a line break inside, an escape sequence) are dropped: a
// path has none, and printed on the prompt line they would move the
// cursor or restyle the terminal. A path quoted for a shell, as a file
// dropped on a terminal window arrives ('/data/my runs/a.safetensors'
// in quotes, or /data/my\ runs/a.safetensors), is taken unquoted:
// opened as it came, it named no file.
func (p prompt) paste(text string) prompt {
	p.matches, p.matchCount, p.completing = nil, 0, 0
	for _, r := range shellUnquote(strings.TrimRight(text, "\r\n")) {
		if !unicode.IsControl(r) {
			p.value = append(p.value, r)
		}
	}
	return p
}

// shellUnquote is text without the quotes a shell would take away
// from a path pasted or dropped whole: one pair of ' or " around it,
// else, where its blanks are escaped, the backslash before each blank
// or other character a shell reads (\( \' \&, as a terminal escapes a
// dropped "run (1).safetensors"). Spaces after it (a dropped file's) go
// first. Anything else is left as it came.
func shellUnquote(text string) string {
	t := strings.TrimRight(text, " ")
	if len(t) >= 2 && (t[0] == '\'' || t[0] == '"') && t[len(t)-1] == t[0] && !strings.ContainsRune(t[1:len(t)-1], rune(t[0])) {
		return t[1 : len(t)-1]
	}
	var b strings.Builder
	escaped := false
	for i := 0; i < len(t); i++ {
		if t[i] == '\\' && i+1 < len(t) && strings.IndexByte(shellSpecial, t[i+1]) >= 0 {
			i, escaped = i+1, true
		}
		b.WriteByte(t[i])
	}
	if !escaped {
		return text // a path with other backslashes comes as it is
	}
	return b.String()
}

// shellSpecial are the characters a shell reads, which a terminal
// escapes with a backslash in a dropped file's path.
const shellSpecial = " \t()&;|<>'\"`$!*?[]{}#~\\"

// path is the entered path, or the suggestion where none is, with a
// leading ~/ expanded.
func (p prompt) path() string {
	v := strings.TrimSpace(string(p.value))
	if v == "" && p.suggested {
		v = p.placeholder
	}
	return expandHome(v)
}

// view is the prompt line: a label, the value with a block cursor, and
// the keys.
func (p prompt) view(w int, t theme) string {
	label := "save as: "
	if p.kind == promptOpen {
		label = "open checkpoint: "
	}
	hint := "   enter ok · esc cancel · tab complete"
	switch {
	case p.completing != 0:
		// A directory of many files, or on a slow disk, takes a while:
		// the keys still type meanwhile.
		hint = t.dots("   tab: reading the folder…")
	case len(p.matches) > 0:
		hint = fmt.Sprintf("   %d matches: %s", p.matchCount, strings.Join(p.matches, "  "))
		if p.matchCount > len(p.matches) {
			hint += "  " + t.ellipsis
		}
		// The matches may take the room of the hint, not the value's.
		hint = t.truncate(hint, max(20, w-ansi.StringWidth(label)-ansi.StringWidth(string(p.value))-2))
	}
	room := max(8, w-ansi.StringWidth(label)-ansi.StringWidth(hint)-1)
	v := string(p.value)
	if ansi.StringWidth(v) > room-1 {
		// Cut by display width, whole grapheme clusters only: a wide
		// character takes two cells and a combining mark none, so a cut
		// by rune count would overrun the line or slice out of range.
		v = t.ellipsis + tailOfWidth(v, room-1-ansi.StringWidth(t.ellipsis))
	}
	body := v + "█"
	if len(p.value) == 0 && p.placeholder != "" {
		// An example path too long beside the hint shows its file name
		// ("checkpoint.safetensors"): the hint says how to go on.
		ph := p.placeholder
		switch {
		case ansi.StringWidth(ph) <= room-1:
		case p.suggested:
			// Cut as a typed value is: its end, the file name, shows.
			ph = t.ellipsis + tailOfWidth(ph, room-1-ansi.StringWidth(t.ellipsis))
		default:
			eg := ""
			rest, ok := strings.CutPrefix(ph, "e.g. ")
			if ok {
				eg = "e.g. " // kept: without it the name reads as a default
			}
			ph = t.truncate(eg+filepath.Base(rest), room-1)
		}
		body = "█" + t.paint(t.dim, ph)
	}
	return padRight(t.paint(t.accent, label)+body+t.paint(t.label, hint), w)
}

// tailOfWidth is the longest end of s, in whole grapheme clusters, that
// takes at most w cells.
func tailOfWidth(s string, w int) string {
	var starts, widths []int
	for i := 0; i < len(s); {
		cluster, cw := ansi.FirstGraphemeCluster(s[i:], ansi.GraphemeWidth)
		if cluster == "" { // never for valid input; guards the loop
			break
		}
		starts, widths = append(starts, i), append(widths, cw)
		i += len(cluster)
	}
	cut, used := len(s), 0
	for k := len(starts) - 1; k >= 0 && used+widths[k] <= w; k-- {
		used += widths[k]
		cut = starts[k]
	}
	return s[cut:]
}

// expandHome is path with a leading ~/ as the home directory.
func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}
