package prune

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// edit replaces text[start:end] with repl.
type edit struct {
	start, end int
	repl       string
}

// text is a file with its line offsets, for turning node positions into
// byte offsets.
type text struct {
	b     []byte
	lines []int // byte offset of each line's start; lines[0] is line 1
}

func newText(b []byte) *text {
	t := &text{b: b, lines: []int{0}}
	for i, c := range b {
		if c == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	return t
}

// line returns line n (1-based) without its newline.
func (t *text) line(n int) []byte {
	if n < 1 || n > len(t.lines) {
		return nil
	}
	start := t.lines[n-1]
	end := len(t.b)
	if n < len(t.lines) {
		end = t.lines[n] - 1
	}
	return bytes.TrimSuffix(t.b[start:end], []byte("\r"))
}

// lineStart is the offset of line n, or len(b) past the end.
func (t *text) lineStart(n int) int {
	if n < 1 {
		return 0
	}
	if n > len(t.lines) {
		return len(t.b)
	}
	return t.lines[n-1]
}

// offset converts a node position (1-based line, 1-based column counted in
// characters) to a byte offset.
func (t *text) offset(line, col int) int {
	off := t.lineStart(line)
	l := t.line(line)
	for i := 1; i < col && len(l) > 0; i++ {
		_, size := utf8.DecodeRune(l)
		l = l[size:]
		off += size
	}
	return off
}

// indent is the column (1-based) of the first non-blank character of line
// n, or 0 for a blank line.
func (t *text) indent(n int) int {
	l := t.line(n)
	for i, c := range l {
		if c != ' ' && c != '\t' {
			return i + 1
		}
	}
	return 0
}

func (t *text) isComment(n int) bool {
	l := bytes.TrimSpace(t.line(n))
	return len(l) > 0 && l[0] == '#'
}

// maxLine is the last line any node of the subtree starts on.
func maxLine(n *yaml.Node) int {
	m := n.Line
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x.Line > m {
			m = x.Line
		}
		stack = append(stack, x.Content...)
	}
	return m
}

// entrySpan is the text of a block mapping entry: its head comment lines,
// the key's line and every following line that belongs to the value (more
// indented than the key, or blank between such lines).
func (t *text) entrySpan(k, v *yaml.Node) (start, end int, keyFirst bool) {
	keyFirst = t.indent(k.Line) == k.Column
	startLine := k.Line
	if keyFirst {
		for l := k.Line - 1; l >= 1 && t.isComment(l) && t.indent(l) == k.Column; l-- {
			startLine = l
		}
		start = t.lineStart(startLine)
	} else {
		start = t.offset(k.Line, k.Column)
	}
	last := maxLine(v)
	if k.Line > last {
		last = k.Line
	}
	for l := last + 1; l <= len(t.lines); l++ {
		ind := t.indent(l)
		if ind == 0 {
			continue // blank: belongs to whatever comes next
		}
		if ind <= k.Column {
			break
		}
		last = l
	}
	return start, t.lineStart(last + 1), keyFirst
}

// flowSpan is the text of a flow collection: from its opening bracket to
// the matching closing one, skipping quoted strings.
func (t *text) flowSpan(n *yaml.Node) (int, int, error) {
	start := t.offset(n.Line, n.Column)
	depth := 0
	for i := start; i < len(t.b); i++ {
		switch c := t.b[i]; c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return start, i + 1, nil
			}
		case '"':
			for i++; i < len(t.b) && t.b[i] != '"'; i++ {
				if t.b[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(t.b); i++ {
				if t.b[i] == '\'' {
					if i+1 < len(t.b) && t.b[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		case '#':
			if i > 0 && (t.b[i-1] == ' ' || t.b[i-1] == '\t') {
				for i < len(t.b) && t.b[i] != '\n' {
					i++
				}
			}
		}
	}
	return 0, 0, fmt.Errorf("line %d: unterminated flow collection", n.Line)
}

// colonAfter is the offset just past the ':' that ends key k.
func (t *text) colonAfter(k *yaml.Node) (int, error) {
	i := t.offset(k.Line, k.Column)
	switch {
	case i < len(t.b) && (t.b[i] == '"' || t.b[i] == '\''):
		q := t.b[i]
		for i++; i < len(t.b) && t.b[i] != q; i++ {
			if q == '"' && t.b[i] == '\\' {
				i++
			}
		}
		i++
	default:
		i += len(k.Value)
	}
	for ; i < len(t.b) && t.b[i] != '\n'; i++ {
		if t.b[i] == ':' {
			return i + 1, nil
		}
	}
	return 0, fmt.Errorf("line %d: cannot find the ':' after key %q", k.Line, k.Value)
}

// flowText renders a node in flow style on one line.
func flowText(n *yaml.Node) (string, error) {
	c := *n
	setFlow(&c)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&c); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style |= yaml.FlowStyle
	}
	// Comments cannot be kept inside a one-line flow collection.
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	// A fresh slice: the copy must not write into the original's children,
	// which aliases and later edits still point at.
	n.Content = append([]*yaml.Node(nil), n.Content...)
	for i, c := range n.Content {
		cc := *c
		setFlow(&cc)
		n.Content[i] = &cc
	}
}

// apply applies non-overlapping edits.
func apply(b []byte, edits []edit) ([]byte, error) {
	// At one offset: insertions before a removal that starts there, and
	// deeper insertions first, so that a nested mapping's new keys stay
	// inside it when its parent gets new keys at the same place.
	sort.SliceStable(edits, func(i, j int) bool {
		a, b := edits[i], edits[j]
		if a.start != b.start {
			return a.start < b.start
		}
		ai, bi := a.start == a.end, b.start == b.end
		if ai != bi {
			return ai
		}
		return indentOf(a.repl) > indentOf(b.repl)
	})
	var out bytes.Buffer
	pos := 0
	for _, e := range edits {
		if e.start < pos {
			return nil, fmt.Errorf("internal error: overlapping edits at byte %d", e.start)
		}
		out.Write(b[pos:e.start])
		out.WriteString(e.repl)
		pos = e.end
	}
	out.Write(b[pos:])
	return out.Bytes(), nil
}

func indentOf(s string) int {
	s = strings.TrimPrefix(s, "\n")
	return len(s) - len(strings.TrimLeft(s, " "))
}
