package cmd

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// progress shows, on a terminal, how far a run that takes longer than
// progressAfter has come: files and documents done. It writes to stderr
// only, so that output meant for scripts is never mixed with it.
type progress struct {
	w            io.Writer
	total        int
	files, ndocs atomic.Int64
	quit, done   chan struct{}
	shown        bool
}

const progressAfter = 2 * time.Second

// newProgress starts a progress line on w when on is set and w is a
// terminal; otherwise its methods do nothing.
func newProgress(w io.Writer, on bool, total int) *progress {
	p := &progress{w: w, total: total}
	if !on || !isTerminal(w) {
		return p
	}
	p.quit, p.done = make(chan struct{}), make(chan struct{})
	go p.run()
	return p
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

// file counts a file done and its documents.
func (p *progress) file(docs int) {
	p.files.Add(1)
	p.ndocs.Add(int64(docs))
}

// docs counts documents of a file read a document at a time.
func (p *progress) docs(n int) { p.ndocs.Add(int64(n)) }

// stop clears the line.
func (p *progress) stop() {
	if p.quit != nil {
		close(p.quit)
		<-p.done
	}
}
