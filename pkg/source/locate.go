package source

import (
	"strconv"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"
)

// Segment is one step of a field path: a name (".name") or a bracket
// ("[x]", a sequence index or a mapping key).
type Segment struct {
	Name    string
	Bracket bool
}

// ParsePath splits a path in the server's notation
// (spec.versions[0].schema.openAPIV3Schema.properties[spec].type) into
// segments. "<nil>" and "" are the root. Brackets nest for keys such as
// "[a[0]]"; an unbalanced bracket runs to the end of the path.
func ParsePath(p string) []Segment {
	if p == "<nil>" || p == "" {
		return nil
	}
	var segs []Segment
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			i++
		case '[':
			depth, j := 0, i
			for ; j < len(p); j++ {
				if p[j] == '[' {
					depth++
				} else if p[j] == ']' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			segs = append(segs, Segment{Name: p[i+1 : min(j, len(p))], Bracket: true})
			i = j + 1
		default:
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			segs = append(segs, Segment{Name: p[i:j]})
			i = j
		}
	}
	return segs
}

// Locate maps a field path in the server's notation to a position in the
// file. exact is false when the field is absent and pos is the key of its
// nearest existing ancestor (the document's first key for the root).
//
// A field resolves to its key node, a sequence item to the item. Names that
// do not match a key are tried joined with the names after them, because
// the strict decoder spells map keys that contain dots without brackets
// (properties.example.com/x).
func (d *Document) Locate(path string) (pos Pos, exact bool) {
	return locate(d.Root, ParsePath(path), &d.keys)
}

// keyIndex finds keys in large mappings without scanning them: a document
// with thousands of findings in one mapping of thousands of keys (unknown
// fields, say) would otherwise cost their product.
type keyIndex struct {
	mu sync.Mutex
	// pairs maps a mapping to the index in its Content of the last key of
	// each name; nil for a mapping with merge keys, which lookupPair
	// resolves.
	pairs map[*yaml.Node]map[string]int
}

// indexFrom is the number of pairs from which a mapping is indexed.
const indexFrom = 64

// lookupPair is lookupPair(m, key, 0), through the index for a large
// mapping.
func (x *keyIndex) lookupPair(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m = deref(m); m == nil || x == nil || m.Kind != yaml.MappingNode || len(m.Content) < 2*indexFrom {
		return lookupPair(m, key, 0)
	}
	x.mu.Lock()
	idx, ok := x.pairs[m]
	if !ok {
		idx = make(map[string]int, len(m.Content)/2)
		for i := 0; i+1 < len(m.Content); i += 2 {
			if isMerge(m.Content[i]) {
				idx = nil
				break
			}
			idx[keyString(m.Content[i])] = i
		}
		if x.pairs == nil {
			x.pairs = map[*yaml.Node]map[string]int{}
		}
		x.pairs[m] = idx
	}
	x.mu.Unlock()
	if idx == nil {
		return lookupPair(m, key, 0)
	}
	if i, ok := idx[key]; ok {
		return m.Content[i], m.Content[i+1]
	}
	return nil, nil
}

func locate(root *yaml.Node, segs []Segment, keys *keyIndex) (Pos, bool) {
	node := deref(root)
	at := Pos{Line: node.Line, Column: node.Column}
	for i := 0; i < len(segs); i++ {
		s := segs[i]
		switch node.Kind {
		case yaml.SequenceNode:
			n, err := strconv.Atoi(s.Name)
			if !s.Bracket || err != nil || n < 0 || n >= len(node.Content) {
				return at, false
			}
			item := node.Content[n]
			node = deref(item)
			at = Pos{Line: item.Line, Column: item.Column}
		case yaml.MappingNode:
			k, v := keys.lookupPair(node, s.Name)
			if k == nil && !s.Bracket {
				// Try "a.b", "a.b.c", ... for keys with dots.
				name := s.Name
				for j := i + 1; j < len(segs) && !segs[j].Bracket; j++ {
					name += "." + segs[j].Name
					if k, v = keys.lookupPair(node, name); k != nil {
						i = j
						break
					}
				}
			}
			if k == nil {
				return at, false
			}
			node = deref(v)
			at = Pos{Line: k.Line, Column: k.Column}
		default:
			return at, false
		}
		if node == nil {
			return at, false
		}
	}
	return at, true
}

// JoinPath renders segments back in the server's notation.
func JoinPath(segs []Segment) string {
	var b strings.Builder
	for i, s := range segs {
		switch {
		case s.Bracket:
			b.WriteString("[" + s.Name + "]")
		case i > 0:
			b.WriteString("." + s.Name)
		default:
			b.WriteString(s.Name)
		}
	}
	return b.String()
}
