package cmd

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// progress shows, on a terminal, how far a run that takes longer than
// progressAfter has come: files and documents done (check.Progress). It
// writes to stderr only, so that output meant for scripts is never mixed
// with it. It is printing, not the run's work: the engine only counts.
type progress struct {
	w            io.Writer
	on           bool
	total        int
	files, ndocs atomic.Int64
	quit, done   chan struct{}
	shown        bool
}

const progressAfter = 2 * time.Second

// newProgress is a progress line on w when on is set and w is a terminal;
// otherwise its methods do nothing.
func newProgress(w io.Writer, on bool) *progress {
	return &progress{w: w, on: on}
}

// Start shows the line, of total files, once the run has taken long
// enough.
func (p *progress) Start(total int) {
	p.total = total
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
			fmt.Fprintf(p.w, "\r\033[Kchecked %d of %d files, %d documents", p.files.Load(), p.total, p.ndocs.Load())
		}
	}
}

// File counts a file done and its documents.
func (p *progress) File(docs int) {
	p.files.Add(1)
	p.ndocs.Add(int64(docs))
}

// Docs counts documents of a file read a document at a time.
func (p *progress) Docs(n int) { p.ndocs.Add(int64(n)) }

// Stop clears the line.
func (p *progress) Stop() {
	if p.quit != nil {
		close(p.quit)
		<-p.done
	}
}
