package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// DefaultMaxDocumentSize is the largest document a DocReader reads unless
// told otherwise. The API server refuses request bodies over 3 MiB, so
// a larger document is no manifest; the bound is there so that a huge or
// endless input costs a finding, not the machine.
const DefaultMaxDocumentSize = 64 << 20

// jsonPeek is how far kubectl looks for the "{" that makes a stream JSON
// (the buffer size cli-runtime gives NewYAMLOrJSONDecoder).
const jsonPeek = 4096

// headSize is how much of a line over the size bound is kept: enough to
// tell a "---" separator and quote what follows it.
const headSize = 256

type readMode int

const (
	modeStart readMode = iota
	modeYAML
	modeJSON
	modeDone
)

// DocReader cuts documents from a stream one at a time, as kubectl reads
// a file (k8s.io/apimachinery's YAMLOrJSONDecoder), and parses each as
// Parse does. Memory follows the largest document, not the stream: a
// DocReader holds one document's text and what the reader returned past
// it.
type DocReader struct {
	// MaxDocumentSize bounds one document's text in bytes: a larger
	// document is a RuleDocumentSize finding, and its text is skipped
	// without being held. NewDocReader sets DefaultMaxDocumentSize;
	// change it before the first Next.
	MaxDocumentSize int
	// NoKind says the stream's text names no kind at its top level
	// (HasKind is false): nothing in it is meant as manifests, so its
	// lists, scalars and documents that do not parse are counted as
	// skipped (File.Skipped) rather than reported. ParseInput sets it
	// from the text; a reader of an io.Reader cannot look ahead and
	// leaves it false unless told, before the first Next.
	NoKind bool
	// Input says the stream is a file a command was given rather than
	// one read exactly as kubectl reads it: a document that does not parse
	// and whose every {{ ... }} is a Go template action is counted in
	// File.Templates (a template to render first) instead of being a
	// syntax error, which kubectl would report.
	Input bool

	path string
	w    window
	mode readMode
	// cur is where w.pos is in the file, in YAML mode at a line start
	// (but after a JSON fallback, see col0 in chunk).
	cur cursor
	// count is the number of documents so far: the next one's Index.
	count int
	err   error

	// JSON mode, as YAMLOrJSONDecoder: dec reads from the window through
	// feed, decBase is the stream offset where dec started, decoded
	// counts what dec returned (nulls included: kubectl counts them).
	dec     *json.Decoder
	decBase int64
	decoded int
	// fallback is the JSON error that kubectl reports if the first YAML
	// document after it does not decode either.
	fallback *report.Finding
	// skip is set when the document over the bound that the last File
	// reported is still to be passed over: the finding comes as soon as
	// the bound is crossed, not when an endless document would end.
	// midLine is set when that happened inside a line.
	skip, midLine bool
}

// NewDocReader returns a reader of the documents of r; path names them
// in findings.
func NewDocReader(path string, r io.Reader) *DocReader {
	return &DocReader{
		MaxDocumentSize: DefaultMaxDocumentSize,
		path:            path,
		w:               window{r: kubectlReader(r)},
		cur:             cursor{line: 1},
	}
}

// newBytesReader reads data in place: texts are slices of data (of its
// decoded copy when kubectl's reading changes it, see asKubectlReads).
func newBytesReader(path string, data []byte) *DocReader {
	r := NewDocReader(path, nil)
	r.w = window{buf: asKubectlReads(data), fixed: true}
	return r
}

var kindKeys = [][]byte{[]byte("kind"), []byte(`"kind"`), []byte("'kind'")}

// HasKind reports whether a text names a kind at the top level of one of
// its documents, as a manifest does: a YAML line that starts with a kind
// key ("kind:", "\"kind\":"), a flow mapping at the start of a line, or,
// in a stream that starts with "{", kind anywhere. A text without one is not meant for
// kubectl (Hugo data, translations, JSON 6902 patches, a tool's own
// files): DocReader.NoKind. The test is on the text, not the parse, so
// that a file read a document at a time gets the same answer as one read
// whole.
func HasKind(data []byte) bool {
	data = asKubectlReads(data) // the text kubectl reads: UTF-16 transcoded, a BOM dropped
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if hasJSONPrefix(data[:min(len(data), jsonPeek)]) {
		// A JSON stream, or a YAML flow mapping kubectl reads as YAML
		// when it is no JSON.
		return bytes.Contains(data, []byte("kind"))
	}
	for rest := data; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimPrefix(line, []byte("--- "))
		switch {
		case len(line) == 0:
		case line[0] == '{' && !bytes.HasPrefix(line, []byte("{{")):
			return true // a flow mapping (or a JSON object) as a document
		default:
			for _, key := range kindKeys {
				if after, ok := bytes.CutPrefix(line, key); ok {
					if after = bytes.TrimLeft(after, " \t"); len(after) > 0 && after[0] == ':' {
						return true
					}
				}
			}
		}
	}
	return false
}

// Next returns the next document as a File of its own: Count is 1, Base
// is the document's Index in the stream, Texts holds its text (nil when
// it is over MaxDocumentSize), Documents its objects (several for a
// List, none for a skipped one) and Findings what is wrong with its
// text. A File with Count 0 carries findings between documents (a bad
// separator before an empty document). Next returns io.EOF at the end of
// the stream, and an *InputError naming the path when reading fails.
func (r *DocReader) Next() (*File, error) {
	// A line just over the bound is held whole, plus its head.
	r.w.most = r.MaxDocumentSize + headSize
	for {
		if r.err != nil {
			return nil, r.err
		}
		var f *File
		switch r.mode {
		case modeStart:
			r.start()
			continue
		case modeYAML:
			p, ok := r.cutYAML()
			if !ok {
				r.mode = modeDone
				continue
			}
			f = r.yamlFile(p)
		case modeJSON:
			f = r.nextJSON()
		case modeDone:
			if r.w.err != nil {
				r.err = &InputError{pathError(r.path, r.w.err)}
				return nil, r.err
			}
			return nil, io.EOF
		}
		if f != nil && (f.Count > 0 || len(f.Findings) > 0) {
			return f, nil
		}
	}
}

// Piece is a document cut from a stream and not yet parsed (Parse), so
// that several can be parsed at once; or, where the reader had to parse
// to cut (JSON streams, a document after a JSON error), parsed already.
type Piece struct {
	path   string
	p      piece
	max    int
	noKind bool
	input  bool
	parsed *File
}

// NextPiece is Next without the parsing of YAML documents: Parse does it,
// on any goroutine. Parsed pieces count their documents from 0 (Base 0):
// the caller, which takes them in order, knows the real indexes (each
// piece's File.Count adds to them).
func (r *DocReader) NextPiece() (*Piece, error) {
	for {
		if r.mode == modeYAML && r.fallback == nil && r.err == nil {
			p, ok := r.cutYAML()
			if !ok {
				r.mode = modeDone
				continue
			}
			if len(p.bad) > 0 || p.over {
				// Findings of the reader's own: parsed here, in order.
				f := r.yamlFile(p)
				r.count -= f.Count
				f.Base = 0
				rebaseFile(f, -r.count)
				return &Piece{parsed: f}, nil
			}
			return &Piece{path: r.path, p: p, max: r.MaxDocumentSize, noKind: r.NoKind, input: r.Input}, nil
		}
		f, err := r.Next()
		if err != nil {
			return nil, err
		}
		base := f.Base
		f.Base = 0
		r.count -= f.Count
		rebaseFile(f, -base)
		return &Piece{parsed: f}, nil
	}
}

// Parse parses the piece as Next would have: a File of one document's
// worth (none for an empty or null document), counted from 0.
func (p *Piece) Parse() *File {
	if p.parsed != nil {
		return p.parsed
	}
	f := &File{Path: p.path, Line: p.p.line, noKind: p.noKind, input: p.input}
	c := newChunk(p.p.text, p.p.line)
	c.col0 = p.p.col0
	f.parseChunk(c)
	return f
}

// rebaseFile moves the document indexes of a file's documents and
// findings by delta.
func rebaseFile(f *File, delta int) {
	if delta == 0 {
		return
	}
	for _, d := range f.Documents {
		d.Index += delta
	}
	for i := range f.Findings {
		f.Findings[i].Document += delta
	}
}

// Rebase moves a File parsed from a Piece to the index of its first
// document in the stream.
func (f *File) Rebase(base int) {
	rebaseFile(f, base-f.Base)
	f.Base = base
}

// start tells a JSON stream from YAML as kubectl does: a "{" after
// leading white space within the first 4096 bytes.
func (r *DocReader) start() {
	w := &r.w
	// A read error shows when the documents before it are read, as in
	// kubectl, whose Peek ignores it.
	for len(w.buf) < jsonPeek && w.more() {
	}
	if hasJSONPrefix(w.buf[:min(len(w.buf), jsonPeek)]) {
		r.mode = modeJSON
		return
	}
	r.mode = modeYAML
}

// hasJSONPrefix is k8s.io/apimachinery/pkg/util/yaml.IsJSONBuffer.
func hasJSONPrefix(b []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeftFunc(b, unicode.IsSpace), []byte("{"))
}

// piece is a document's text as kubectl's YAMLReader cuts it.
type piece struct {
	text []byte
	// line and col0 are where the text starts.
	line, col0 int
	// over is set when the text exceeds the bound: it is not kept, and
	// the rest of the document is still to be skipped.
	over bool
	bad  []badSeparator
}

// cutYAML cuts the next document the way kubectl's YAMLReader does: a
// line starting with "---" followed only by blanks or a comment ends the
// current document; when the current document is still empty, the
// separator line becomes part of the next one (so a leading "---" after
// comments does not start a second document once empty documents are
// dropped). A document is returned (over) as soon as it goes over the
// bound, its rest skipped by the next call: an endless one is a finding
// too. ok is false when the stream has nothing left, or when reading it
// failed before the document's end.
func (r *DocReader) cutYAML() (p piece, ok bool) {
	w := &r.w
	if r.skip {
		r.skip = false
		if p.bad, ok = r.skipYAML(); !ok {
			return p, false
		}
	}
	w.start = w.pos
	start := w.offset(w.pos)
	p.line, p.col0 = r.cur.line, r.cur.col
	for {
		ls := w.offset(w.pos)
		lineNo, lineCol := r.cur.line, r.cur.col
		line, n, whole, ended := r.nextLine(int64(r.MaxDocumentSize) - (ls - start))
		if n == 0 {
			break
		}
		r.cur.off += n
		if ended {
			r.cur.line, r.cur.col = r.cur.line+1, 0
		}
		sep := bytes.HasPrefix(line, []byte("---"))
		if sep {
			if rest := strings.TrimSpace(string(line[3:])); rest != "" && rest[0] != '#' {
				p.bad = append(p.bad, badSeparator{line: lineNo, col: lineCol + 4, rest: rest})
			}
		}
		if sep && ls > start {
			// The separator ends the document whatever its length; its
			// rest, if any, is no document's.
			p.text = r.keep(w.buf[w.index(start):w.index(ls)])
			w.start = w.pos
			if !ended {
				r.skipLine()
			}
			return p, true
		}
		if !whole {
			// The document goes over the bound with this line, which
			// does not end it: the finding now, the rest later.
			p.over, r.skip, r.midLine = true, true, !ended
			w.start = w.pos
			return p, true
		}
	}
	end := w.offset(w.pos)
	if end == start || w.err != nil {
		return p, false
	}
	p.text = r.keep(w.buf[w.index(start):w.pos])
	w.start = w.pos
	return p, true
}

// skipYAML passes over the rest of a document over the bound, up to and
// including the "---" line that ends it, holding no more than a line's
// head. ok is false when the stream ends first.
func (r *DocReader) skipYAML() (bad []badSeparator, ok bool) {
	w := &r.w
	if r.midLine {
		r.midLine = false
		r.skipLine()
	}
	for {
		w.start = w.pos
		lineNo, lineCol := r.cur.line, r.cur.col
		line, n, _, ended := r.nextLine(headSize)
		if n == 0 {
			return bad, false
		}
		r.cur.off += n
		if ended {
			r.cur.line, r.cur.col = r.cur.line+1, 0
		} else {
			r.skipLine()
		}
		if bytes.HasPrefix(line, []byte("---")) {
			if rest := strings.TrimSpace(string(line[3:])); rest != "" && rest[0] != '#' {
				bad = append(bad, badSeparator{line: lineNo, col: lineCol + 4, rest: rest})
			}
			w.start = w.pos
			return bad, true
		}
	}
}

// keep returns text that outlives the window: the caller's bytes when the
// window is fixed, else a copy.
func (r *DocReader) keep(b []byte) []byte {
	if r.w.fixed {
		return b
	}
	return bytes.Clone(b)
}

// nextLine moves past the next line, up to and including its "\n", and
// returns it as a slice of the window; ended reports that the line ended
// (at "\n" or the end of the stream). A line longer than limit bytes is
// cut short as soon as that is known (whole false, ended false unless
// its "\n" was in view): line is then a copy of its first headSize bytes
// and the caller skips the rest. n is how many bytes were passed; 0 at
// the end of the stream.
func (r *DocReader) nextLine(limit int64) (line []byte, n int64, whole, ended bool) {
	w := &r.w
	ls := w.offset(w.pos)
	for {
		i := bytes.IndexByte(w.buf[w.pos:], '\n')
		end := len(w.buf)
		if i >= 0 {
			end = w.pos + i + 1
		}
		if w.offset(end)-ls > limit {
			from := w.index(ls)
			line = bytes.Clone(w.buf[from:min(end, from+headSize)])
			w.pos = end
			return line, w.offset(end) - ls, false, i >= 0
		}
		w.pos = end
		if i >= 0 || !w.more() {
			break
		}
	}
	n = w.offset(w.pos) - ls
	return w.buf[w.index(ls):w.pos], n, true, n > 0
}

// skipLine passes over the rest of the current line without holding it.
func (r *DocReader) skipLine() {
	w := &r.w
	for {
		i := bytes.IndexByte(w.buf[w.pos:], '\n')
		if i >= 0 {
			r.cur.off += int64(i + 1)
			r.cur.line, r.cur.col = r.cur.line+1, 0
			w.pos += i + 1
			w.start = w.pos
			return
		}
		r.cur.off += int64(len(w.buf) - w.pos)
		w.pos = len(w.buf)
		w.start = w.pos
		if !w.more() {
			return
		}
	}
}

// yamlFile parses one cut YAML document.
func (r *DocReader) yamlFile(p piece) *File {
	f := &File{Path: r.path, Base: r.count, Line: p.line, noKind: r.NoKind, input: r.Input}
	for _, b := range p.bad {
		f.Findings = append(f.Findings, report.Finding{
			Rule: RuleSyntax, Severity: report.Error, File: r.path, Document: r.count, Line: b.line, Column: b.col,
			Message: "invalid Yaml document separator: " + b.rest,
		})
	}
	fallback := r.fallback
	r.fallback = nil
	if fallback != nil && len(p.bad) > 0 {
		// kubectl's YAMLReader fails on the separator, so it reports the
		// JSON decoder's error instead.
		fallback.Document = r.count
		f.Findings[0] = *fallback
		fallback = nil
	}
	switch {
	case p.over:
		f.tooLarge(Pos{Line: p.line, Column: p.col0 + 1}, r.MaxDocumentSize)
	case p.text != nil:
		c := newChunk(p.text, p.line)
		c.col0 = p.col0
		i := f.parseChunk(c)
		switch {
		case i >= 0 && fallback != nil:
			// kubectl reports the JSON decoder's error when the YAML
			// decoder fails on the same text too.
			fallback.Document = f.Findings[i].Document
			f.Findings[i] = *fallback
		case fallback != nil:
			f.readAsYAML(*fallback, r.count)
		}
	}
	r.count += f.Count
	return f
}

// RuleJSONAsYAML: a stream that starts as JSON and is not JSON from some
// point on, which kubectl reads on as YAML (since Kubernetes 1.33).
const RuleJSONAsYAML = "json-read-as-yaml"

// readAsYAML records, at the JSON decoder's error jsonErr, that kubectl
// reads the rest of the stream as YAML from the document with the given
// index: it accepts what the YAML decoder accepts (a trailing comma, a
// flow mapping of YAML, "---" after an object), where kubectl 1.32 and
// earlier, which read a stream that starts with "{" as JSON only, refuse
// the file with that error (kubernetes/kubernetes#130666).
func (f *File) readAsYAML(jsonErr report.Finding, index int) {
	x := jsonErr
	x.Rule, x.Severity, x.Document = RuleJSONAsYAML, report.Warning, index
	x.Message = "the file is not JSON from here (" + jsonErr.Message + "): kubectl reads the rest as YAML, which accepts it, but kubectl 1.32 and earlier and JSON tools refuse the file"
	// A hint about what kubectl sends, given only where it sends an
	// object: a template or data that starts with "{" is not JSON meant
	// for kubectl.
	for _, d := range f.Documents {
		if d.Index == index {
			x.Object = d.Object
			f.Findings = append(f.Findings, x)
			return
		}
	}
}

// tooLarge records a document over the size bound.
func (f *File) tooLarge(at Pos, limit int) {
	f.Findings = append(f.Findings, report.Finding{
		Rule: RuleDocumentSize, Severity: report.Error, File: f.Path, Document: f.Base + f.Count,
		Line: at.Line, Column: at.Column,
		Message: fmt.Sprintf("document is larger than the %s a document may have here: it is not read (the API server refuses request bodies over 3 MiB)",
			sizeString(int64(limit))),
	})
	f.Count++
	f.Texts = append(f.Texts, nil)
}

// sizeString prints a byte count the way people read it.
func sizeString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// errTooLarge stops the JSON decoder when a value grows over the bound.
var errTooLarge = errors.New("document over the size bound")

// feed is what the JSON decoder reads: the window, bounded.
type feed struct{ r *DocReader }

func (f feed) Read(p []byte) (int, error) {
	w := &f.r.w
	held := w.pos - w.start
	if held > f.r.MaxDocumentSize {
		return 0, errTooLarge
	}
	// Hand out no more than the bound plus one byte past the end of the
	// last value, so that a value over it stops the decoder.
	p = p[:min(len(p), f.r.MaxDocumentSize+1-held)]
	if w.pos == len(w.buf) {
		if !w.more() {
			if w.err != nil {
				return 0, w.err
			}
			if w.eof {
				return 0, io.EOF
			}
			return 0, nil
		}
	}
	n := copy(p, w.buf[w.pos:])
	w.pos += n
	return n, nil
}

// nextJSON decodes the next value of a JSON stream as YAMLOrJSONDecoder
// does: values one after the other, whatever separates them; on a value
// that does not decode, the rest of the stream is YAML from there on,
// unless two values have decoded already (then the error ends the
// stream).
func (r *DocReader) nextJSON() *File {
	w := &r.w
	f := &File{Path: r.path, Base: r.count, noKind: r.NoKind, input: r.Input}
	if r.skip {
		r.skip = false
		if !r.skipJSON() {
			r.mode = modeDone
			return f
		}
	}
	if r.dec == nil {
		r.dec = json.NewDecoder(feed{r})
		r.decBase = w.offset(w.start)
	}
	var raw json.RawMessage
	err := r.dec.Decode(&raw)
	switch {
	case err == nil:
		r.decoded++
		end := r.decBase + r.dec.InputOffset()
		r.cur.to(w, end-int64(len(raw)))
		w.start = w.index(end)
		if string(raw) == "null" {
			// kubectl drops null documents.
			r.cur.to(w, end)
			return f
		}
		r.cur = f.parseJSON(raw, r.cur)
		r.count += f.Count
		return f
	case err == io.EOF, w.err != nil && err == w.err:
		r.mode = modeDone
		return f
	case errors.Is(err, errTooLarge):
		// The finding now, at the value's start; the rest of the value
		// is skipped by the next call.
		r.dec, r.skip = nil, true
		w.pos = w.start
		for w.pos < len(w.buf) && isJSONSpace(w.buf[w.pos]) {
			w.pos++
		}
		r.cur.to(w, w.offset(w.pos))
		w.start = w.pos
		f.tooLarge(r.cur.pos(), r.MaxDocumentSize)
		r.count += f.Count
		return f
	}
	at, msg := r.jsonError(err)
	if r.decoded > 1 {
		// An unambiguous JSON stream: kubectl stops at the error.
		r.mode = modeDone
		f.decodeError(at, r.pendingText(), err.Error())
		r.count += f.Count
		return f
	}
	fallback := report.Finding{Rule: RuleSyntax, Severity: report.Error, File: r.path, Line: at.Line, Column: at.Column, Message: msg}
	r.dec = nil
	w.pos = w.start
	if !r.skipSpace() {
		// kubectl gives up on the stream with the JSON decoder's error.
		r.mode = modeDone
		f.decodeError(at, r.pendingText(), msg)
		r.count += f.Count
		return f
	}
	r.mode = modeYAML
	r.fallback = &fallback
	return f
}

// jsonError is where a JSON decoding error is, and kubectl's words for it
// when the YAML decoder fails too.
func (r *DocReader) jsonError(err error) (Pos, string) {
	w := &r.w
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := r.decBase + se.Offset - 1
		off = max(min(off, w.offset(len(w.buf))), r.cur.off)
		c := r.cur
		c.to(w, off)
		return c.pos(), fmt.Sprintf("json: offset %d: %s", r.decBase+se.Offset, se.Error())
	}
	c := r.cur
	c.to(w, w.offset(len(w.buf)))
	return c.pos(), err.Error()
}

// pendingText is what the window holds of a document that did not decode.
func (r *DocReader) pendingText() []byte {
	w := &r.w
	return r.keep(bytes.TrimLeftFunc(w.buf[w.start:], unicode.IsSpace))
}

// decodeError records a document kubectl's decoder refuses.
func (f *File) decodeError(at Pos, text []byte, msg string) {
	f.unparsed(f.Base+f.Count, at, msg, text)
	f.Count++
	f.Texts = append(f.Texts, text)
}

// skipSpace is YAMLOrJSONDecoder.consumeWhitespace from the start of the
// window: white space up to and including the first newline. Like it, it
// fails when fewer than four bytes are left to read at any step, or on a
// byte that is not UTF-8.
func (r *DocReader) skipSpace() bool {
	w := &r.w
	at := w.offset(w.start)
	for {
		for w.offset(len(w.buf))-at < 4 && w.more() {
		}
		i := w.index(at)
		if len(w.buf)-i < 4 {
			return false
		}
		c, size := utf8.DecodeRune(w.buf[i:])
		if c == utf8.RuneError {
			return false
		}
		if !unicode.IsSpace(c) {
			break
		}
		at += int64(size)
		if c == '\n' {
			break
		}
	}
	r.cur.to(w, at)
	w.start = w.index(at)
	w.pos = w.start
	return true
}

// skipJSON passes over a JSON value that is over the size bound, from
// its first byte at the window's start, without holding it. It reports
// false when the stream ends first.
func (r *DocReader) skipJSON() bool {
	w := &r.w
	var s jsonSkipper
	for !s.done {
		n := s.scan(w.buf[w.pos:])
		r.cur.advance(w.buf[w.pos : w.pos+n])
		w.pos += n
		w.start = w.pos
		if !s.done && !w.more() {
			return false
		}
	}
	return true
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// jsonSkipper finds the end of a JSON value by its brackets and strings
// alone: enough to pass over one that is too large to decode.
type jsonSkipper struct {
	depth           int
	started, done   bool
	inString, quote bool
	scalar          bool
}

// scan consumes b up to the end of the value and returns how much of b
// it took.
func (s *jsonSkipper) scan(b []byte) int {
	for i, c := range b {
		switch {
		case s.inString:
			switch {
			case s.quote:
				s.quote = false
			case c == '\\':
				s.quote = true
			case c == '"':
				s.inString = false
				if s.depth == 0 {
					s.done = true
					return i + 1
				}
			}
			continue
		case !s.started:
			s.started = true
			switch c {
			case '"':
				s.inString = true
			case '{', '[':
				s.depth++
			default:
				s.scalar = true
			}
			continue
		case s.scalar:
			if isJSONSpace(c) || strings.IndexByte(",:{}[]\"", c) >= 0 {
				s.done = true
				return i
			}
			continue
		}
		switch c {
		case '"':
			s.inString = true
		case '{', '[':
			s.depth++
		case '}', ']':
			if s.depth--; s.depth == 0 {
				s.done = true
				return i + 1
			}
		}
	}
	return len(b)
}

// readAllDocs reads every document of r into one File.
func readAllDocs(r *DocReader) (*File, error) {
	f := &File{Path: r.path}
	for {
		p, err := r.Next()
		if err == io.EOF {
			return f, nil
		}
		if err != nil {
			return f, err
		}
		f.Documents = append(f.Documents, p.Documents...)
		f.Findings = append(f.Findings, p.Findings...)
		f.Skipped += p.Skipped
		f.Templates += p.Templates
		f.Partial += p.Partial
		f.Substitutions += p.Substitutions
		f.Count += p.Count
		f.Texts = append(f.Texts, p.Texts...)
	}
}
