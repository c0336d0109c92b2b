package source

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// readSize is how much the window asks its reader for at a time.
const readSize = 64 << 10

// window is the part of a stream that is being cut: buf[start:] is held
// (the current document's text so far, or in JSON mode what the decoder
// may yet have to give back), buf[pos:] has not been looked at. Bytes
// before start may be dropped whenever more is read, so that memory
// follows the largest document, not the stream.
type window struct {
	r     io.Reader
	buf   []byte
	start int
	pos   int
	// base is the stream offset of buf[0].
	base int64
	eof  bool
	err  error
	// fixed is set when buf is the whole input and belongs to the caller
	// (Parse): it is never moved, so texts may be slices of it.
	fixed bool
	// empty counts reads in a row that returned nothing.
	empty int
	// most is the most the caller will hold (0: no bound known): growing
	// the buffer far beyond it would only waste memory.
	most int
}

// more reads from the stream into the window. It reports whether the
// window may have grown; false means end of stream or a read error.
func (w *window) more() bool {
	if w.eof || w.err != nil {
		return false
	}
	if w.fixed {
		w.eof = true
		return false
	}
	held := len(w.buf) - w.start
	switch {
	case cap(w.buf) > 4*readSize && held < cap(w.buf)/4:
		// A large document has gone: do not keep its buffer for small ones.
		nb := make([]byte, held, max(2*held, readSize))
		copy(nb, w.buf[w.start:])
		w.reset(nb)
	case w.start > 0 && w.start >= held:
		// Cheaper to move what is held than to grow.
		copy(w.buf, w.buf[w.start:])
		w.reset(w.buf[:held])
	}
	if len(w.buf) == cap(w.buf) {
		size := max(2*cap(w.buf), readSize)
		if w.most > 0 {
			size = min(size, max(w.most, len(w.buf))+readSize)
		}
		nb := make([]byte, len(w.buf), size)
		copy(nb, w.buf)
		w.buf = nb
	}
	n, err := w.r.Read(w.buf[len(w.buf):cap(w.buf)])
	w.buf = w.buf[:len(w.buf)+n]
	switch {
	case err == io.EOF:
		w.eof = true
	case err != nil:
		w.err = err
	case n == 0:
		// A reader that keeps returning nothing would spin the caller.
		if w.empty++; w.empty >= 100 {
			w.err = io.ErrNoProgress
		}
	}
	if n > 0 {
		w.empty = 0
	}
	return n > 0 || err == nil && w.err == nil
}

// reset makes nb, which holds buf[start:], the buffer.
func (w *window) reset(nb []byte) {
	w.base += int64(w.start)
	w.pos -= w.start
	w.start = 0
	w.buf = nb
}

// offset is the stream offset of buf[i].
func (w *window) offset(i int) int64 { return w.base + int64(i) }

// index is where the stream offset off is in buf.
func (w *window) index(off int64) int { return int(off - w.base) }

// cursor is a stream offset with its 1-based line and the characters
// before it on that line. It only moves forward, over bytes the window
// still holds.
type cursor struct {
	off       int64
	line, col int
}

// advance moves c over b, the bytes at c.off.
func (c *cursor) advance(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			c.col += utf8.RuneCount(b)
			c.off += int64(len(b))
			return
		}
		c.line++
		c.col = 0
		c.off += int64(i + 1)
		b = b[i+1:]
	}
}

// to moves c to the stream offset off, which the window holds.
func (c *cursor) to(w *window, off int64) {
	if off > c.off {
		c.advance(w.buf[w.index(c.off):w.index(off)])
	}
}

// pos is c as a 1-based file position.
func (c cursor) pos() Pos { return Pos{Line: c.line, Column: c.col + 1} }
