package tui

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"apic/checkpoints"
)

// Tab completion in the path prompt. A shipped checkpoint's name after
// embedded: completes at once, from memory; a file's name needs its
// directory read, which runs in a command (completeCmd), off the UI
// goroutine: read in Update, a directory of a few hundred thousand
// files, or one on a slow network disk, froze the explorer until the
// read was done, keys and redraws with it.

// maxShownMatches bounds the names a tab leaves to choose from that the
// prompt keeps: the line shows a few of them at most, and a directory
// of many files would have every frame join them all.
const maxShownMatches = 64

// completedMsg is the answer of tab number id: the value completed and
// the names it matched.
type completedMsg struct {
	id    int
	value string
	names []string
}

// tab is the prompt after tab, and the command that reads the directory
// where a file's name is to complete (nil where the completion needed
// none): id numbers this tab, so that an answer is taken only by the
// prompt that asked, unedited since (completed). A tab while a read is
// under way for the same value asks nothing more.
func (p prompt) tab(id int) (prompt, tea.Cmd) {
	switch {
	case len(p.value) == 0 && p.suggested:
		p.matches, p.matchCount = nil, 0
		return p.takeSuggestion(), nil
	case p.completing != 0:
		return p, nil
	}
	v := string(p.value)
	if name, ok := strings.CutPrefix(v, checkpoints.Prefix); ok && p.kind == promptOpen {
		done, names := completeName(name, embeddedNames(name))
		return p.completed(completedMsg{value: checkpoints.Prefix + done, names: names}), nil
	}
	p.matches, p.matchCount, p.completing = nil, 0, id
	return p, func() tea.Msg {
		done, names := complete(v)
		return completedMsg{id: id, value: done, names: names}
	}
}

// completed takes a completion's answer: msg.id is the tab's number,
// which must still be the one the prompt waits for (0 for an answer
// made at once). An answer to a prompt since edited, closed or opened
// anew is dropped: it completed a value no longer there.
func (p prompt) completed(msg completedMsg) prompt {
	if msg.id != p.completing {
		return p
	}
	p.completing = 0
	p.value = []rune(msg.value)
	p.matches, p.matchCount = nil, 0
	if len(msg.names) > 1 {
		p.matches, p.matchCount = msg.names[:min(len(msg.names), maxShownMatches)], len(msg.names)
	}
	return p
}

// embeddedNames are the names embedded:NAME takes that could complete
// name: the shipped checkpoints and the atlas folder, or, once name
// is in the folder, the atlas's files in it.
func embeddedNames(name string) []string {
	if strings.HasPrefix(name, checkpoints.AtlasPrefix) {
		var out []string
		for _, c := range checkpoints.Atlas() {
			out = append(out, c.Name())
		}
		return out
	}
	return append(checkpoints.List(), checkpoints.AtlasPrefix)
}

// completeName extends name to the longest common prefix of those of
// names it starts, and returns them.
func completeName(name string, names []string) (string, []string) {
	var matches []string
	for _, n := range names {
		if strings.HasPrefix(n, name) {
			matches = append(matches, n)
		}
	}
	if len(matches) == 0 {
		return name, nil
	}
	return commonPrefix(matches), matches
}

// complete extends a path to the longest common prefix of the matching
// entries of its directory (directories get a trailing separator), and
// returns the matching names.
func complete(v string) (string, []string) {
	dir, base := filepath.Split(v)
	// The directory is read where enter would look: a leading ~/ is the
	// home directory there (path), and the value keeps the ~ as typed.
	lookIn := expandHome(dir)
	if lookIn == "" {
		lookIn = "."
	}
	ents, err := os.ReadDir(lookIn)
	if err != nil {
		return v, nil
	}
	var names []string
	for _, e := range ents {
		// A name with a control character (a line break, an escape
		// sequence) is none to offer: listed or completed into the
		// prompt, it broke the line, or restyled the terminal; and it
		// could not be typed, as a paste drops such characters.
		if !strings.HasPrefix(e.Name(), base) || strings.IndexFunc(e.Name(), unicode.IsControl) >= 0 {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			// A link to a folder of runs is a folder to complete into.
			st, err := os.Stat(filepath.Join(lookIn, e.Name()))
			isDir = err == nil && st.IsDir()
		}
		switch {
		case isDir:
			names = append(names, e.Name()+string(filepath.Separator))
		case strings.HasSuffix(e.Name(), ".safetensors"):
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return v, nil
	}
	return dir + commonPrefix(names), names
}

// commonPrefix is the longest prefix of every one of names (at least
// one), whole characters only: names that part inside one (é and è
// share their first byte) keep none of it, which cut there left
// invalid UTF-8 in the prompt, read back as U+FFFD, a name no file has.
func commonPrefix(names []string) string {
	prefix := []rune(names[0])
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, string(prefix)) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	return string(prefix)
}
