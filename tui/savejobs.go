package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// saveJobs follows the saves (s) for the end of the session. A SIGTERM
// or a closed SSH session ends the program at once, while a save may be
// writing its file, and before its answer (savedMsg) reaches the model:
// apic then exited with the file half written (its temporary file left
// behind), and keepUnsaved, seeing weights not marked saved, saved them
// a second time. Once the program has ended, finish waits for the saves
// still writing and hands over the answers the model never took. It is
// shared by every copy of the Model.
type saveJobs struct {
	mu      sync.Mutex
	ended   *sync.Cond // signalled when a save ends
	next    int
	running int
	closed  bool             // finish has run: a save not begun yet writes nothing
	asked   map[int]string   // the file each save writes (savedName), its answer not taken yet
	weights map[int]*entry   // the weights each of them writes
	answers map[int]savedMsg // the answers of the saves that ended, not taken
}

func newSaveJobs() *saveJobs {
	j := &saveJobs{asked: map[int]string{}, weights: map[int]*entry{}, answers: map[int]savedMsg{}}
	j.ended = sync.NewCond(&j.mu)
	return j
}

// errSaveNotBegun is the answer of a save whose command had not begun
// when the program ended.
var errSaveNotBegun = errors.New("the explorer ended before the file was begun")

// track numbers a save of e to path, whose command is save, and
// returns the command that runs it for the model: its answer carries
// the number (savedMsg.job), which taken then clears.
func (j *saveJobs) track(path string, e *entry, save tea.Cmd) tea.Cmd {
	j.mu.Lock()
	j.next++
	id := j.next
	j.asked[id], j.weights[id] = path, e
	j.mu.Unlock()
	return func() tea.Msg {
		j.mu.Lock()
		if j.closed {
			j.mu.Unlock()
			return nil // finish answered for it
		}
		j.running++
		j.mu.Unlock()
		msg, _ := save().(savedMsg)
		msg.job = id
		j.mu.Lock()
		j.running--
		j.answers[id] = msg
		j.ended.Broadcast()
		j.mu.Unlock()
		return msg
	}
}

// taken records that the model took save id's answer.
func (j *saveJobs) taken(id int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.asked, id)
	delete(j.weights, id)
	delete(j.answers, id)
}

// pending is the number of saves whose answer the model has not taken:
// writing their files, or written and not reported yet.
func (j *saveJobs) pending() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.asked)
}

// writing reports whether a save of e is under way: asked for, its
// answer not taken yet.
func (j *saveJobs) writing(e *entry) bool {
	_, ok := j.writingTo(e)
	return ok
}

// writingTo is the file the newest save of e under way writes
// (savedName), and whether one is under way.
func (j *saveJobs) writingTo(e *entry) (path string, ok bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	newest := 0
	for id, w := range j.weights {
		if w == e && id > newest {
			newest = id
		}
	}
	return j.asked[newest], newest > 0
}

// finish waits for the saves still writing their files, after the
// program has ended, and returns the answers the model did not take, in
// the order the saves were asked for; a save whose command had not
// begun writes nothing, and its answer says so. The weights of a save
// that wrote its file are marked saved there, so that keepUnsaved does
// not save them again.
func (j *saveJobs) finish() []savedMsg {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	for j.running > 0 {
		j.ended.Wait()
	}
	ids := make([]int, 0, len(j.asked))
	for id := range j.asked {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []savedMsg
	for _, id := range ids {
		msg, ok := j.answers[id]
		if !ok {
			msg = savedMsg{job: id, path: j.asked[id], err: errSaveNotBegun}
		}
		if msg.err == nil && msg.entry != nil {
			msg.entry.saved = msg.path
		}
		out = append(out, msg)
	}
	j.asked, j.weights, j.answers = map[int]string{}, map[int]*entry{}, map[int]savedMsg{}
	return out
}

// unseenSavesText is what became of the saves whose answers the model
// did not take (finish), as the sentences the command line prints after
// "interrupted"; "" when there were none.
func unseenSavesText(answers []savedMsg) string {
	var parts []string
	for _, a := range answers {
		if a.err == nil {
			parts = append(parts, "the save in progress wrote "+a.path)
			continue
		}
		parts = append(parts, fmt.Sprintf("the save to %s failed: %s", a.path, saveErrorText(a)))
	}
	return strings.Join(parts, "; ")
}
