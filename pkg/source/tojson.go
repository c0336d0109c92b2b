package source

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// toJSON is sigsyaml.YAMLToJSON(c.text), the JSON kubectl sends, computed
// from the chunk's go.yaml.in/yaml/v3 tree when that is sure to give the
// same bytes: parsing the text a second time with go.yaml.in/yaml/v2 is
// as costly as the first parse. n is the document node as parsed, before
// its positions are relocated.
//
// When it can, it also returns the object the API server decodes from
// that JSON (k8s.io/apimachinery/pkg/util/json: integers as int64, other
// numbers as float64), so that custom resources are not decoded again.
// fast reports that the tree was used, which also tells that no mapping
// of the document repeats a key.
//
// The fast path expands no alias and nests at most maxNodeDepth deep;
// before the slow one, a document whose aliases would expand beyond the
// budget, or that nests deeper than the JSON decoders accept, is refused
// with a *limitError.
func toJSON(c chunk, n *yaml.Node) (js []byte, obj map[string]any, fast bool, err error) {
	if js, obj, ok := nodeJSON(c, n); ok {
		return js, obj, true, nil
	}
	s := measure(n)
	if err := s.aliasError(); err != nil {
		return nil, nil, false, err
	}
	js, err = sigsyaml.YAMLToJSON(c.text)
	if err == nil {
		if err := s.depthError(js); err != nil {
			return nil, nil, false, err
		}
	}
	return js, nil, false, err
}

// nodeJSON builds, from the v3 tree, the value go.yaml.in/yaml/v2 decodes
// into (as sigs.k8s.io/yaml converts it) and marshals it as
// sigs.k8s.io/yaml does. It gives up (false) on everything where the two
// libraries may disagree or where kubectl's reading needs more than plain
// YAML 1.1 scalar resolution: tags (even "!"), anchors, aliases, merge
// keys, keys that are not strings or repeat, infinities and NaN, and texts
// whose line breaks YAML counts differently from editors.
// TestNodeJSON and FuzzNodeJSON compare it with sigs.k8s.io/yaml.
//
// Numbers are built as the server's decoder reads them back from that JSON
// (a float printed without a fraction is an int64), which marshals to the
// same bytes; obj is that value when nothing in it would read back
// differently (integers beyond int64, strings that are not UTF-8), for
// a mapping root.
func nodeJSON(c chunk, n *yaml.Node) (js []byte, obj map[string]any, ok bool) {
	// A text with a byte order mark (a later document of a stream can
	// start with one: kubectl drops only the file's first) goes the slow
	// way: yaml.v3 drops or transcodes it, so offsets into c.text would
	// no longer find tags.
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 || c.starts != nil || hasBOM(c.text) {
		return nil, nil, false
	}
	b := nodeBuilder{text: c.text, checkTags: bytes.IndexByte(c.text, '!') >= 0}
	v, ok := b.value(n.Content[0], 0)
	if !ok {
		return nil, nil, false
	}
	js, err := json.Marshal(v)
	if err != nil {
		return nil, nil, false
	}
	if m, isMap := v.(map[string]any); isMap && !b.notServer {
		obj = m
	}
	return js, obj, true
}

type nodeBuilder struct {
	text []byte
	// checkTags is set when the text has a "!": v3 does not record the
	// non-specific tag "!" in its tree, so a node's text is looked at.
	checkTags  bool
	lineStarts []int
	// at is the last position offset found: nodes come in document
	// order, so the next is found from there, not from its line's start
	// (a long flow-style line would make that quadratic).
	at struct{ line, col, off int }
	// notServer is set when a value would not read back from the JSON as
	// built (integers beyond int64, strings that are not UTF-8).
	notServer bool
}

// maxNodeDepth bounds the recursion; deeper documents take the slow path.
const maxNodeDepth = 1000

func (b *nodeBuilder) value(n *yaml.Node, depth int) (any, bool) {
	if depth > maxNodeDepth || n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 || !b.untagged(n) {
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, ok := b.key(n.Content[i])
			if !ok {
				return nil, false
			}
			if !utf8.ValidString(k) {
				b.notServer = true
			}
			if _, dup := m[k]; dup {
				return nil, false
			}
			v, ok := b.value(n.Content[i+1], depth+1)
			if !ok {
				return nil, false
			}
			m[k] = v
		}
		return m, true
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, e := range n.Content {
			v, ok := b.value(e, depth+1)
			if !ok {
				return nil, false
			}
			s[i] = v
		}
		return s, true
	case yaml.ScalarNode:
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			if !utf8.ValidString(n.Value) {
				b.notServer = true
			}
			return n.Value, true
		}
		if n.Style != 0 {
			return nil, false
		}
		v, ok := resolvePlain(n.Value)
		switch x := v.(type) {
		case string:
			if !utf8.ValidString(x) {
				b.notServer = true
			}
		case uint64:
			b.notServer = true
		case float64:
			if x == 0 && math.Signbit(x) {
				// Printed "-0", read back as the int64 0.
				b.notServer = true
			} else {
				v = serverNumber(x)
			}
		}
		return v, ok
	}
	return nil, false
}

// key is a mapping key that v2 decodes to a string.
func (b *nodeBuilder) key(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 || !b.untagged(n) {
		return "", false
	}
	if n.Style != 0 {
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return n.Value, true
		}
		return "", false
	}
	if n.Value == "<<" {
		return "", false
	}
	v, ok := resolvePlain(n.Value)
	s, isString := v.(string)
	return s, ok && isString
}

// untagged reports whether the node's text starts with no property: a
// node with a tag or an anchor starts at it ("!", "&"); an alias is "*".
func (b *nodeBuilder) untagged(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return false
	}
	if !b.checkTags {
		return true
	}
	off, ok := b.offset(n.Line, n.Column)
	if !ok {
		return false
	}
	if off >= len(b.text) {
		return true
	}
	switch b.text[off] {
	case '!', '&', '*':
		return false
	}
	return true
}

// offset turns a 1-based line and column (in characters) of the chunk
// into a byte offset.
func (b *nodeBuilder) offset(line, col int) (int, bool) {
	if b.lineStarts == nil {
		b.lineStarts = []int{0}
		for i, c := range b.text {
			if c == '\n' {
				b.lineStarts = append(b.lineStarts, i+1)
			}
		}
	}
	if line < 1 || line > len(b.lineStarts) || col < 1 {
		return 0, false
	}
	off, i := b.lineStarts[line-1], 1
	if b.at.line == line && b.at.col <= col {
		off, i = b.at.off, b.at.col
	}
	for ; i < col; i++ {
		if off >= len(b.text) || b.text[off] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(b.text[off:])
		off += size
	}
	b.at.line, b.at.col, b.at.off = line, col, off
	return off, true
}

// resolvePlain is go.yaml.in/yaml/v2's resolve for an untagged plain
// scalar (v2.4.4, resolve.go), as decoded into an interface{}: YAML 1.1
// booleans and nulls, ints (octal, hex, binary, underscores) and floats;
// timestamps stay strings. Infinities and NaN, which JSON cannot hold,
// give up.
func resolvePlain(in string) (any, bool) {
	hint := byte('N')
	if in != "" {
		hint = v2ResolveTable[in[0]]
	}
	if hint == 0 {
		return in, true
	}
	switch in {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true, true
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return false, true
	case "", "~", "null", "Null", "NULL":
		return nil, true
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", "<<":
		return nil, false
	}
	switch hint {
	case '.':
		if f, err := strconv.ParseFloat(in, 64); err == nil {
			return f, true
		}
	case 'D', 'S':
		if isV2Timestamp(in) {
			return in, true
		}
		plain := strings.ReplaceAll(in, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return i, true
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return u, true
		}
		if v2StyleFloat.MatchString(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return f, true
			}
		}
		if strings.HasPrefix(plain, "0b") {
			if i, err := strconv.ParseInt(plain[2:], 2, 64); err == nil {
				return i, true
			}
			if u, err := strconv.ParseUint(plain[2:], 2, 64); err == nil {
				return u, true
			}
		} else if strings.HasPrefix(plain, "-0b") {
			if i, err := strconv.ParseInt("-"+plain[3:], 2, 64); err == nil {
				return i, true
			}
		}
	}
	return in, true
}

var v2ResolveTable = func() [256]byte {
	var t [256]byte
	t['+'], t['-'] = 'S', 'S'
	for _, c := range "0123456789" {
		t[c] = 'D'
	}
	for _, c := range "yYnNtTfFoO~" {
		t[c] = 'M'
	}
	t['.'] = '.'
	return t
}()

var v2StyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// isV2Timestamp is v2's parseTimestamp: such scalars decode into an
// interface{} as their text.
func isV2Timestamp(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, format := range []string{
		"2006-1-2T15:4:5.999999999Z07:00",
		"2006-1-2t15:4:5.999999999Z07:00",
		"2006-1-2 15:4:5.999999999",
		"2006-1-2",
	} {
		if _, err := time.Parse(format, s); err == nil {
			return true
		}
	}
	return false
}

// serverNumber is what the server's JSON decoder makes of f as
// encoding/json prints it: an int64 when the text has no "." and fits
// (1000 for 1e3), else the float64, which reads back exactly.
func serverNumber(f float64) any {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	s := strconv.FormatFloat(f, format, -1, 64)
	if !strings.Contains(s, ".") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
	}
	return f
}
