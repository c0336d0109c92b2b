package source

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
)

// parseJSON adds a value of a JSON stream to f: raw is the value as
// kubectl's decoder returned it (never null), at is where it starts. It
// returns where the value ends.
//
// The document's JSON is what kubectl sends: the value as its
// unstructured decoder reads it (repeated keys collapsed, the last
// winning; integers as int64, other numbers as float64), encoded again,
// so that 1e3 is sent as 1000. Repeats are duplicate-field findings, as
// for YAML.
func (f *File) parseJSON(raw []byte, at cursor) cursor {
	count.Parses.Add(1)
	root, end := jsonTree(raw, at)
	index := f.Base + f.Count
	f.Count++
	f.Texts = append(f.Texts, raw)
	keys := keyFindings(root, f.Path, index)
	js := raw
	var v any
	if utiljson.Unmarshal(raw, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			js = b
		}
	}
	var obj map[string]any
	if m, ok := v.(map[string]any); ok {
		// The object the server decodes from js.
		obj = m
		serverNumbers(obj)
	}
	f.addDocument(root, js, obj, index, keys, raw)
	return end
}

// serverNumbers changes, in place, the float64s of v that encoding/json
// prints without a fraction into what the server's decoder reads from
// that text (serverNumber): 1e3 is sent as 1000, an integer.
func serverNumbers(v any) {
	stack := []any{v}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if f, ok := e.(float64); ok {
					x[k] = serverNumber(f)
				} else {
					stack = append(stack, e)
				}
			}
		case []any:
			for i, e := range x {
				if f, ok := e.(float64); ok {
					x[i] = serverNumber(f)
				} else {
					stack = append(stack, e)
				}
			}
		}
	}
}

// jsonTree builds the node tree of raw, a JSON value that encoding/json
// has accepted, with file positions from at: nodes as go.yaml.in/yaml/v3
// makes of JSON (flow collections, double-quoted strings, tagged
// scalars), keys decoded as encoding/json decodes them. It does not
// recurse, so no nesting the decoder accepts can exhaust the stack.
func jsonTree(raw []byte, at cursor) (*yaml.Node, cursor) {
	var (
		root  *yaml.Node
		stack []*yaml.Node
		line  = at.line
		col   = at.col
	)
	add := func(n *yaml.Node) {
		n.Line, n.Column = line, col+1
		if len(stack) == 0 {
			if root == nil {
				root = n
			}
			return
		}
		p := stack[len(stack)-1]
		p.Content = append(p.Content, n)
	}
	for i := 0; i < len(raw); {
		switch b := raw[i]; b {
		case '\n':
			line, col = line+1, 0
			i++
		case ' ', '\t', '\r', ',', ':':
			col++
			i++
		case '{', '[':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
			if b == '[' {
				n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
			}
			add(n)
			stack = append(stack, n)
			col++
			i++
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			col++
			i++
		case '"':
			j := stringEnd(raw, i)
			tok := raw[i:j]
			add(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: unquoteJSON(tok)})
			col += utf8.RuneCount(tok)
			i = j
		default:
			j := i + 1
			for j < len(raw) && !isJSONDelim(raw[j]) {
				j++
			}
			tok := string(raw[i:j])
			add(&yaml.Node{Kind: yaml.ScalarNode, Tag: literalTag(tok), Value: tok})
			col += utf8.RuneCountInString(tok)
			i = j
		}
	}
	if root == nil {
		root = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: at.line, Column: at.col + 1}
	}
	return root, cursor{off: at.off + int64(len(raw)), line: line, col: col}
}

func isJSONDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return false
}

// stringEnd returns the index just past the string that starts at
// raw[i].
func stringEnd(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(raw)
}

// unquoteJSON is the string a JSON string token decodes to, as
// encoding/json decodes it (invalid UTF-8 and lone surrogates become
// U+FFFD).
func unquoteJSON(tok []byte) string {
	if len(tok) >= 2 && bytes.IndexByte(tok, '\\') < 0 && utf8.Valid(tok) {
		return string(tok[1 : len(tok)-1])
	}
	var s string
	if json.Unmarshal(tok, &s) != nil {
		return string(bytes.Trim(tok, `"`))
	}
	return s
}

// literalTag is the tag go.yaml.in/yaml/v3 gives a JSON literal.
func literalTag(tok string) string {
	switch tok {
	case "true", "false":
		return "!!bool"
	case "null":
		return "!!null"
	}
	for i := 0; i < len(tok); i++ {
		switch tok[i] {
		case '.', 'e', 'E':
			return "!!float"
		}
	}
	return "!!int"
}
