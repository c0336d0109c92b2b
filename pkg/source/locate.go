package source

import (
	"strconv"
	"sync"

	yaml "go.yaml.in/yaml/v3"
)

// Resolved is a field path found in a document's tree.
type Resolved struct {
	// Segments are the path's steps, as the document's keys cut them
	// ("spec.labels.edge.harbor.dev/canary" is three, the last a key
	// with dots); a part the document lacks is cut as ParsePath cuts it.
	Segments []Segment
	// At is the field's key (a list item's own position; the document's
	// first key for the root), or, when the document lacks the field, the
	// key of its nearest existing ancestor.
	At Pos
	// Value is the position of the field's value (an item's own position,
	// an alias where it is written), At when the field is absent.
	Value Pos
	// Exact says the document has the field.
	Exact bool
}

// Field is the path in the one notation (JoinPath).
func (r Resolved) Field() string { return JoinPath(r.Segments) }

// Locate maps a field path to a position in the file: see Resolve.
func (d *Document) Locate(path string) (pos Pos, exact bool) {
	r := d.Resolve(path)
	return r.At, r.Exact
}

// Resolve finds a field path in the document. The path may be in the one
// notation (JoinPath) or in any spelling of the server's libraries, whose
// keys are raw: field.Path's "[key]" (a key may hold "." or "]"), and the
// dotted paths of the strict decoder, the pruner and kube-openapi, which
// join map keys with "." like names (properties.example.com/x). Which
// dots and brackets separate segments is decided by the keys the
// document has: of several readings, the first that reaches the end of
// the path wins (shorter keys first), else the one that gets furthest.
// Segments keep the spelling of the path ("[key]" or ".name"); JoinPath
// quotes those that need it.
func (d *Document) Resolve(path string) Resolved {
	if path == "<nil>" {
		path = ""
	}
	root := deref(d.Root)
	rootPos := Pos{}
	if root != nil {
		rootPos = Pos{Line: root.Line, Column: root.Column}
	}
	r := resolver{path: path, keys: &d.keys}
	m := r.walk(root, 0)
	out := Resolved{At: rootPos, Value: rootPos, Exact: m.end == len(path)}
	for l := m.segs; l != nil; l = l.next {
		out.Segments = append(out.Segments, l.seg)
	}
	if m.segs != nil {
		out.At, out.Value = m.key, m.value
	}
	if !out.Exact {
		out.Value = out.At
		out.Segments = append(out.Segments, ParsePath(path[m.end:])...)
	}
	return out
}

// resolver reads one path against one tree; memo, made once a reading
// fails and another is tried, keeps the walk polynomial where keys with
// separators make several readings possible.
type resolver struct {
	path string
	keys *keyIndex
	memo map[memoKey]match
}

// segList is a reading's segments, first first: readings share their
// tails.
type segList struct {
	seg  Segment
	next *segList
}

type memoKey struct {
	n *yaml.Node
	i int
}

// match is a reading of path[start:end] below a node: its segments and
// the positions of the last one's key and value.
type match struct {
	segs       *segList
	end        int
	key, value Pos
}

// walk reads as much of path[i:] as it can below node (dereferenced).
func (r *resolver) walk(node *yaml.Node, i int) match {
	best := match{end: i}
	if i == len(r.path) || node == nil {
		return best
	}
	k := memoKey{node, i}
	if m, ok := r.memo[k]; ok {
		return m
	}
	// try descends through one segment that ends at next, and says
	// whether the rest of the path was read.
	try := func(seg Segment, key, value *yaml.Node, next int) bool {
		sub := r.walk(deref(value), next)
		if sub.end == len(r.path) || sub.end > best.end {
			m := match{segs: &segList{seg, sub.segs}, end: sub.end, key: pos(key), value: pos(value)}
			if sub.segs != nil {
				m.key, m.value = sub.key, sub.value
			}
			best = m
		}
		if best.end == len(r.path) {
			return true
		}
		if r.memo == nil {
			// Another reading will be tried: remember this one's.
			r.memo = map[memoKey]match{}
		}
		return false
	}
	p := r.path
	switch {
	case p[i] == '[':
		switch node.Kind {
		case yaml.SequenceNode:
			j := i + 1
			for j < len(p) && p[j] >= '0' && p[j] <= '9' {
				j++
			}
			if j == i+1 || j == len(p) || p[j] != ']' {
				break
			}
			n, err := strconv.Atoi(p[i+1 : j])
			if err != nil || n >= len(node.Content) {
				break
			}
			item := node.Content[n]
			try(Segment{Name: strconv.Itoa(n), Bracket: true}, item, item, j+1)
		case yaml.MappingNode:
			if seg, next, err := parseBracket(p, i); err == nil && p[i+1] == '"' && separates(p, next) {
				if kn, vn := r.keys.lookupPair(node, seg.Name); kn != nil && try(seg, kn, vn, next) {
					break
				}
			}
			// A raw key ends at a "]" that ends the path or is followed
			// by a separator.
			for j := i + 1; j < len(p); j++ {
				if p[j] != ']' || !separates(p, j+1) {
					continue
				}
				if kn, vn := r.keys.lookupPair(node, p[i+1:j]); kn != nil && try(Segment{Name: p[i+1 : j], Bracket: true}, kn, vn, j+1) {
					break
				}
			}
		}
	case node.Kind == yaml.MappingNode:
		start := i
		if i > 0 {
			if p[i] != '.' {
				break
			}
			start++
		}
		// A dotted name ends at any separator: try each, shortest (the
		// empty key the pruner writes as "..") first.
		for j := start; j <= len(p); j++ {
			if !separates(p, j) {
				continue
			}
			if kn, vn := r.keys.lookupPair(node, p[start:j]); kn != nil && try(Segment{Name: p[start:j]}, kn, vn, j) {
				break
			}
		}
	}
	if r.memo != nil {
		r.memo[k] = best
	}
	return best
}

// separates reports whether a segment may end at p[j]: at the end of the
// path or before "." or "[".
func separates(p string, j int) bool {
	return j == len(p) || p[j] == '.' || p[j] == '['
}

func pos(n *yaml.Node) Pos { return Pos{Line: n.Line, Column: n.Column} }

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
