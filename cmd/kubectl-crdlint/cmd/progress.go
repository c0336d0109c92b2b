package cmd

import (
	"fmt"
	"io"
	"time"
)

// progress shows, on a terminal, how far a run that takes longer than
// progressAfter has come: files and documents done, as the run counts
// them (check.Checker.Progress), read a few times a second. It writes to
// stderr only, so that output meant for scripts is never mixed with it.
// It is printing, not the run's work: the run only counts.
type progress struct {
	w          io.Writer
	on         bool
	total      int
	count      func() (files, docs int64)
	quit, done chan struct{}
	shown      bool
}

const progressAfter = 2 * time.Second

// newProgress is a progress line on w when on is set and w is a terminal;
// otherwise its methods do nothing.
func newProgress(w io.Writer, on bool) *progress {
	return &progress{w: w, on: on}
}

// Start shows the line, of total files and what count says is done,
// once the run has taken long enough.
func (p *progress) Start(total int, count func() (files, docs int64)) {
	p.total, p.count = total, count
	if !p.on || !isTerminal(p.w) {
		return
	}
	p.quit, p.done = make(chan struct{}), make(chan struct{})
	go p.run()
}

func (p *progress) run() {
	defer close(p.done)
	start := time.Now()
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			if p.shown {
				fmt.Fprint(p.w, "\r\033[K")
			}
			return
		case now := <-t.C:
			if now.Sub(start) < progressAfter {
				continue
			}
			p.shown = true
			files, docs := p.count()
			fmt.Fprintf(p.w, "\r\033[Kchecked %d of %d files, %d documents", files, p.total, docs)
		}
	}
}

// Stop clears the line.
func (p *progress) Stop() {
	if p.quit != nil {
		close(p.quit)
		<-p.done
	}
}
