package suppress

import (
	"bytes"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// chunk is one document's text, cut as kubectl's reader cuts a file: a
// line starting with "---" ends the document before it.
type chunk struct {
	start, end int // byte offsets in the file
	firstLine  int // 1-based file line of start
	lastLine   int
}

// chunks cuts data into documents. Unlike kubectl it keeps empty ones:
// the caller skips what does not parse to anything.
func chunks(data []byte) []chunk {
	var out []chunk
	start, first, line := 0, 1, 1
	for off := 0; off < len(data); line++ {
		next := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		if bytes.HasPrefix(data[off:next], []byte("---")) {
			if off > start {
				out = append(out, chunk{start: start, end: off, firstLine: first, lastLine: line - 1})
			}
			// The separator line opens the next document: a comment on it
			// is that document's.
			start, first = off, line
		}
		off = next
	}
	if start < len(data) {
		out = append(out, chunk{start: start, end: len(data), firstLine: first, lastLine: line - 1})
	}
	return out
}

// yamlLines are where the YAML parser's lines start in a chunk: libyaml
// breaks lines at CR, LF, CRLF, NEL, LS and PS, editors only at LF, so
// node positions are converted through this, not counted in "\n".
type yamlLines struct {
	text   []byte
	starts []int // byte offset of each YAML line
	file   []int // file line of each YAML line
	// The last position offset converted: nodes come in text order, so
	// the next one is usually further on the same line (a one-line JSON
	// document has all its scalars on one line).
	curLine, curCol, curOff int
}

func newYAMLLines(text []byte, firstLine int) *yamlLines {
	y := &yamlLines{text: text, starts: []int{0}, file: []int{firstLine}}
	fileLine := firstLine
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		brk := false
		switch {
		case r == '\n':
			brk, fileLine = true, fileLine+1
		case r == '\r' && i+1 < len(text) && text[i+1] == '\n':
			size, brk, fileLine = 2, true, fileLine+1
		case r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029':
			brk = true
		}
		i += size
		if brk {
			y.starts = append(y.starts, i)
			y.file = append(y.file, fileLine)
		}
	}
	return y
}

// offset is the byte offset in the chunk of a node position (1-based
// line, 1-based column in characters).
func (y *yamlLines) offset(line, col int) int {
	if line < 1 || line > len(y.starts) {
		return len(y.text)
	}
	off, c := y.starts[line-1], 1
	if y.curLine == line && y.curCol <= col {
		off, c = y.curOff, y.curCol
	}
	for ; c < col && off < len(y.text); c++ {
		_, size := utf8.DecodeRune(y.text[off:])
		off += size
	}
	y.curLine, y.curCol, y.curOff = line, c, off
	return off
}

// fileLine is the file line of a YAML line.
func (y *yamlLines) fileLine(line int) int {
	if line < 1 {
		return y.file[0]
	}
	if line > len(y.file) {
		return y.file[len(y.file)-1]
	}
	return y.file[line-1]
}

// lineOf is the YAML line holding byte offset off.
func (y *yamlLines) lineOf(off int) int {
	lo, hi := 0, len(y.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if y.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1
}

// span is a range of bytes [from, to) in a chunk.
type span struct{ from, to int }

// entry is a mapping pair or a sequence item: what a suppression on its
// first line covers, down to its last line (file lines).
type entry struct{ first, last int }

// tree is what the scanner needs of a chunk's YAML: where scalars that
// may hold "#" lie (quoted and block scalars), and the entries.
type tree struct {
	masks   []span
	entries []entry
}

// walk collects masks and entries. It returns the last YAML line of n.
func (t *tree) walk(y *yamlLines, n *yaml.Node, depth int) int {
	if n == nil || depth > 10000 {
		return 0
	}
	last := n.Line
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			last = max(last, t.walk(y, c, depth+1))
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			kl := t.walk(y, k, depth+1)
			vl := t.walk(y, v, depth+1)
			end := max(kl, vl)
			t.entries = append(t.entries, entry{first: k.Line, last: end})
			last = max(last, end)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			end := t.walk(y, c, depth+1)
			t.entries = append(t.entries, entry{first: c.Line, last: end})
			last = max(last, end)
		}
	case yaml.ScalarNode:
		last = max(last, t.scalar(y, n))
	}
	return last
}

// scalar masks a quoted or block scalar and returns its last YAML line.
func (t *tree) scalar(y *yamlLines, n *yaml.Node) int {
	text := y.text
	switch {
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		start := y.offset(n.Line, n.Column)
		// The node may start at a tag or anchor: the scalar is at the quote.
		q := byte('"')
		if n.Style&yaml.SingleQuotedStyle != 0 {
			q = '\''
		}
		i := bytes.IndexByte(text[start:], q)
		if i < 0 {
			return n.Line
		}
		i += start
		end := len(text)
		for j := i + 1; j < len(text); j++ {
			if q == '"' && text[j] == '\\' {
				j++
				continue
			}
			if text[j] == q {
				if q == '\'' && j+1 < len(text) && text[j+1] == '\'' {
					j++
					continue
				}
				end = j + 1
				break
			}
		}
		t.masks = append(t.masks, span{i, end})
		return y.lineOf(max(end-1, i))
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return t.block(y, n, y.offset(n.Line, n.Column))
	}
	return n.Line
}

// block masks the content lines of a literal or folded scalar whose node
// starts at byte start, and returns its last YAML line. Content ends at
// the first non-blank line indented less than the first content line;
// with an explicit indentation indicator, which that rule could misread,
// at the first non-blank line not indented more than the indicator's
// line (masking more than needed only hides a directive, never invents
// one).
func (t *tree) block(y *yamlLines, n *yaml.Node, start int) int {
	text := y.text
	line := n.Line
	if line < 1 || line > len(y.starts) {
		// The parser counted lines this scanner does not see (a UTF-16
		// text, which it transcodes first): nothing to mask.
		return line
	}
	lineStart := y.starts[line-1]
	indicatorIndent := indentOf(text[lineStart:])
	explicit := false
	if i := bytes.IndexAny(text[start:y.lineEnd(line)], "|>"); i >= 0 {
		for j := start + i + 1; j < len(text) && (text[j] >= '1' && text[j] <= '9' || text[j] == '+' || text[j] == '-'); j++ {
			if text[j] >= '1' && text[j] <= '9' {
				explicit = true
			}
		}
	}
	contentIndent := -1
	last := line
	for l := line + 1; l <= len(y.starts); l++ {
		s := y.starts[l-1]
		body := text[s:y.lineEnd(l)]
		if isBlank(body) {
			continue
		}
		ind := indentOf(body)
		if explicit {
			if ind <= indicatorIndent {
				break
			}
		} else {
			if contentIndent < 0 {
				if ind <= indicatorIndent {
					break // an empty block
				}
				contentIndent = ind
			}
			if ind < contentIndent {
				break
			}
		}
		last = l
	}
	if last > line {
		t.masks = append(t.masks, span{y.starts[line], y.lineEnd(last)})
	}
	return last
}

// lineEnd is the byte offset where YAML line l's content ends (before its
// line break).
func (y *yamlLines) lineEnd(l int) int {
	end := len(y.text)
	if l < len(y.starts) {
		end = y.starts[l]
	}
	s := y.starts[l-1]
	for end > s {
		r, size := utf8.DecodeLastRune(y.text[s:end])
		if r != '\n' && r != '\r' && r != '\u0085' && r != '\u2028' && r != '\u2029' {
			break
		}
		end -= size
	}
	return end
}

func indentOf(b []byte) int {
	n := 0
	for n < len(b) && b[n] == ' ' {
		n++
	}
	return n
}

func isBlank(b []byte) bool {
	return len(bytes.Trim(b, " \t\r\n")) == 0
}

// comment is a comment found in the text.
type comment struct {
	line, col int // file line, 1-based column in characters of "#"
	text      string
	ownLine   bool // nothing but blanks before it
}

// comments finds the real comments of a chunk: "#" at the start of a line
// or after a blank, outside the masked scalars. masks must be sorted.
func comments(data []byte, c chunk, masks []span) []comment {
	var out []comment
	line := c.firstLine
	for off := c.start; off < c.end; line++ {
		next := c.end
		if i := bytes.IndexByte(data[off:c.end], '\n'); i >= 0 {
			next = off + i + 1
		}
		l := data[off:next]
		for i := 0; i < len(l); i++ {
			if l[i] != '#' || i > 0 && l[i-1] != ' ' && l[i-1] != '\t' {
				continue
			}
			if masked(masks, off+i-c.start) {
				continue
			}
			text := string(bytes.TrimRight(l[i+1:], "\r\n"))
			out = append(out, comment{
				line:    line,
				col:     utf8.RuneCount(l[:i]) + 1,
				text:    text,
				ownLine: len(bytes.Trim(l[:i], " \t")) == 0,
			})
			break
		}
		off = next
	}
	return out
}

func masked(masks []span, off int) bool {
	lo, hi := 0, len(masks)
	for lo < hi {
		mid := (lo + hi) / 2
		if masks[mid].to <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for i := lo; i < len(masks) && masks[i].from <= off; i++ {
		if off < masks[i].to {
			return true
		}
	}
	return false
}
