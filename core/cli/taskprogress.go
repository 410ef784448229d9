package cli

import (
	"fmt"
	"sync"
	"time"
)

// taskProgress prints "koh-gp 12/50 …" (compare) or "eval 75/200 …":
// a redrawn line on a terminal, a line every few seconds otherwise.
type taskProgress struct {
	env   *Env
	name  string
	unit  string // what is counted: "realizations" unless set
	start time.Time
	mu    sync.Mutex
	last  time.Time
	drawn bool
}

func newTaskProgress(env *Env, name string) *taskProgress {
	now := time.Now()
	return &taskProgress{env: env, name: name, unit: "realizations", start: now, last: now}
}

func (p *taskProgress) report(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	el := now.Sub(p.start)
	eta := time.Duration(float64(el) / float64(done) * float64(total-done))
	line := fmt.Sprintf("%s %d/%d %s, elapsed %s, ETA %s", p.name, done, total, p.unit, el.Round(100*time.Millisecond), eta.Round(time.Second))
	if p.env.StderrTerminal {
		fmt.Fprintf(p.env.Stderr, "\r\x1b[K%s", line)
		p.drawn = true
		return
	}
	if now.Sub(p.last) >= 5*time.Second || done == total {
		p.last = now
		fmt.Fprintln(p.env.Stderr, line)
	}
}

func (p *taskProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.env.Stderr)
		p.drawn = false
	}
}
