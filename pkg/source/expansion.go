package source

import (
	"bytes"
	"encoding/json"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// The budget for what a document's aliases may add once expanded. The
// YAML libraries bound alias expansion by the ratio of decoding steps
// that go through aliases (go.yaml.in/yaml/v2 and v3 allowedAliasRatio),
// which catches the classic "billion laughs" but not a large string
// aliased many times: 10,000 aliases of a 1 MB string are half of the
// decoding steps and 10 GB of JSON. Real manifests rarely use aliases:
// no document of the whole shared corpus (123 CRDs, 3,101 custom
// resources) has one, and the API server takes no request body over 3
// MiB, so these bounds sit far above any real use and far below what
// hurts (refusing costs one walk of the unexpanded tree).
const (
	// MaxAliasNodes bounds the nodes that expanding a document's aliases
	// adds: each alias counts the nodes of what it stands for.
	MaxAliasNodes = 1_000_000
	// MaxAliasBytes bounds the scalar bytes (keys and values, plus one per
	// node) that expanding a document's aliases adds.
	MaxAliasBytes = 16 << 20
)

// maxJSONDepth is the nesting that the JSON decoders of kubectl
// (encoding/json) and the API server (sigs.k8s.io/json) accept:
// maxNestingDepth, containers counted from 1 at the root.
const maxJSONDepth = 10000

// limitError is a document refused for its expansion or depth, before
// anything expands it.
type limitError struct {
	node *yaml.Node
	rule string
	msg  string
}

func (e *limitError) Error() string { return e.msg }

// extent is what a node stands for once its aliases are expanded.
type extent struct {
	nodes, bytes int64
	// height counts nested mappings and sequences, the node's included.
	height int
}

// saturation keeps extents of alias bombs from overflowing: anything
// that large is over every bound.
const saturation = 1 << 52

func (e *extent) add(o extent) {
	e.nodes = min(e.nodes+o.nodes, saturation)
	e.bytes = min(e.bytes+o.bytes, saturation)
}

// shape is what measure finds in a document.
type shape struct {
	// over is the first alias, in document order, at which the aliases
	// so far add more than the budget; added is what they add there.
	over  *yaml.Node
	added extent
	// total is what all the aliases add.
	total extent
	// deep is the first node, in document order, at which the expanded
	// document nests deeper than the JSON decoders accept.
	deep *yaml.Node
}

// measure walks a document's tree once, without expanding it: each alias
// counts the extent of its anchor, computed once. An alias inside its
// own anchor (a cycle) counts nothing; go.yaml.in/yaml/v2 refuses it.
func measure(doc *yaml.Node) shape {
	type frame struct {
		n     *yaml.Node
		next  int
		acc   extent
		depth int
	}
	var s shape
	memo := map[*yaml.Node]extent{}
	open := map[*yaml.Node]bool{}
	stack := []frame{{n: doc}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.n.Content) {
			c := top.n.Content[top.next]
			top.next++
			switch c.Kind {
			case yaml.AliasNode:
				e, ok := memo[c.Alias]
				if !ok || open[c.Alias] {
					continue
				}
				top.acc.add(e)
				top.acc.height = max(top.acc.height, e.height)
				s.total.add(e)
				if s.over == nil && (s.total.nodes > MaxAliasNodes || s.total.bytes > MaxAliasBytes) {
					s.over, s.added = c, s.total
				}
				if s.deep == nil && top.depth+e.height > maxJSONDepth {
					s.deep = c
				}
			case yaml.MappingNode, yaml.SequenceNode, yaml.DocumentNode:
				d := top.depth
				if c.Kind != yaml.DocumentNode {
					d++
				}
				if s.deep == nil && d > maxJSONDepth {
					s.deep = c
				}
				if c.Anchor != "" {
					open[c] = true
				}
				stack = append(stack, frame{n: c, depth: d})
			default:
				e := extent{nodes: 1, bytes: int64(len(c.Value)) + 1}
				if c.Anchor != "" {
					memo[c] = e
				}
				top.acc.add(e)
			}
			continue
		}
		e := top.acc
		e.add(extent{nodes: 1, bytes: 1})
		if top.n.Kind == yaml.MappingNode || top.n.Kind == yaml.SequenceNode {
			e.height++
		}
		if top.n.Anchor != "" {
			memo[top.n] = e
			delete(open, top.n)
		}
		stack = stack[:len(stack)-1]
		if len(stack) > 0 {
			p := &stack[len(stack)-1]
			p.acc.add(e)
			p.acc.height = max(p.acc.height, e.height)
		}
	}
	return s
}

// aliasError refuses, before anything expands it, a document whose
// aliases go over the budget, at the first alias that does. The message
// compares what went over with its own bound (nodes with nodes, bytes
// with bytes), then says what all the aliases would add, in both.
func (s shape) aliasError() error {
	if s.over == nil {
		return nil
	}
	over := fmt.Sprintf("%s nodes, over the %s nodes", thousands(s.added.nodes), thousands(MaxAliasNodes))
	if s.added.nodes <= MaxAliasNodes {
		over = fmt.Sprintf("%s, over the %s", aliasBytes(s.added.bytes), aliasBytes(MaxAliasBytes))
	}
	return &limitError{node: s.over, rule: RuleAliasBudget, msg: fmt.Sprintf(
		"yaml: document contains excessive aliasing: its aliases up to this one add %s crdlint expands (all of them would add %s nodes and %s)",
		over, thousands(s.total.nodes), aliasBytes(s.total.bytes))}
}

// aliasBytes prints an expansion's size, in MiB or, past 1 GiB, in GiB.
func aliasBytes(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	}
	return mib(n)
}

// depthError is kubectl's error for a document nested deeper than its
// JSON decoder accepts: sigs.k8s.io/yaml converts the YAML, then
// encoding/json refuses the JSON. js is that JSON.
func (s shape) depthError(js []byte) error {
	if s.deep == nil {
		return nil
	}
	err := json.NewDecoder(bytes.NewReader(js)).Decode(new(json.RawMessage))
	if err == nil {
		// A merge key brings its mapping's keys one level up: the
		// estimate was one too deep.
		return nil
	}
	return &limitError{node: s.deep, rule: RuleSyntax, msg: "error unmarshaling JSON: while decoding JSON: " + err.Error()}
}
