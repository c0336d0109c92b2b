package kustomize

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// maxAliasDepth bounds alias chains, which a malicious file can make
// cyclic.
const maxAliasDepth = 32

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxAliasDepth; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// mapping returns the key and value nodes of key in a mapping node, the
// last of repeated keys winning as in sigs.k8s.io/yaml; nils when absent.
// Merge keys ("<<") are not followed: kustomizations and patches do not
// use them, and a miss only costs exactness.
func mapping(m *yaml.Node, key string) (k, v *yaml.Node) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == key {
			k, v = m.Content[i], deref(m.Content[i+1])
		}
	}
	return k, v
}

// step is one resolved step of a field path: a mapping key or a
// sequence index, and for an index the item's "name", when it has one,
// which strategic merge patches match list items by.
type step struct {
	key   string
	index int // -1 for a key
	name  string
}

// resolve follows a field path in the server's notation through a JSON
// value (the rendered object), returning the steps as they are in the
// value (keys with dots joined, as source.Document.Locate joins them)
// and the value there. ok is false when the path leaves the value.
func resolve(v any, path string) (steps []step, val any, ok bool) {
	segs := source.ParsePath(path)
	for i := 0; i < len(segs); i++ {
		s := segs[i]
		switch x := v.(type) {
		case map[string]any:
			e, found := x[s.Name]
			key := s.Name
			if !found && !s.Bracket {
				// Try "a.b", "a.b.c", ... for keys with dots.
				name := s.Name
				for j := i + 1; j < len(segs) && !segs[j].Bracket; j++ {
					name += "." + segs[j].Name
					if e, found = x[name]; found {
						key, i = name, j
						break
					}
				}
			}
			if !found {
				return nil, nil, false
			}
			steps = append(steps, step{key: key, index: -1})
			v = e
		case []any:
			n, err := strconv.Atoi(s.Name)
			if err != nil || n < 0 || n >= len(x) {
				return nil, nil, false
			}
			st := step{index: n}
			if m, ok := x[n].(map[string]any); ok {
				st.name, _ = m["name"].(string)
			}
			steps = append(steps, st)
			v = x[n]
		default:
			return nil, nil, false
		}
	}
	return steps, v, true
}

// nodeAt follows resolved steps through a node tree (a patch, a
// generator entry). A list item is matched by its name when the rendered
// item has one, as a strategic merge patch matches it, else by index. It
// returns the node that names the field (the key of a mapping entry, or
// the item) and its value; nils when the tree lacks it.
func nodeAt(root *yaml.Node, steps []step) (at, val *yaml.Node) {
	val = deref(root)
	at = val
	for _, s := range steps {
		if val == nil {
			return nil, nil
		}
		switch {
		case s.index < 0:
			at, val = mapping(val, s.key)
			if at == nil {
				return nil, nil
			}
		case val.Kind == yaml.SequenceNode:
			item := byName(val, s.name)
			if item == nil && s.index < len(val.Content) {
				item = val.Content[s.index]
			}
			if item == nil {
				return nil, nil
			}
			at, val = item, deref(item)
		default:
			return nil, nil
		}
	}
	return at, val
}

func byName(seq *yaml.Node, name string) *yaml.Node {
	if name == "" {
		return nil
	}
	for _, item := range seq.Content {
		if _, n := mapping(item, "name"); n != nil && n.Kind == yaml.ScalarNode && n.Value == name {
			return item
		}
	}
	return nil
}

// nodeValue is a node's value as kubectl reads it: through
// sigs.k8s.io/yaml (YAML 1.1: "yes" is true) to JSON.
func nodeValue(n *yaml.Node) (any, bool) {
	if n == nil {
		return nil, false
	}
	text, err := yaml.Marshal(n)
	if err != nil {
		return nil, false
	}
	js, err := sigsyaml.YAMLToJSON(text)
	if err != nil {
		return nil, false
	}
	var v any
	if json.Unmarshal(js, &v) != nil {
		return nil, false
	}
	return v, true
}

// sameValue says whether a node holds the rendered value.
func sameValue(n *yaml.Node, rendered any) bool {
	v, ok := nodeValue(n)
	return ok && reflect.DeepEqual(v, rendered)
}

// pointer parses a JSON pointer (RFC 6901) into its tokens; ok is false
// for anything else.
func pointer(p string) ([]string, bool) {
	if p == "" {
		return nil, true
	}
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks, true
}

// prefixOf says whether the pointer's tokens lead to steps[:len(toks)].
func prefixOf(toks []string, steps []step) bool {
	if len(toks) > len(steps) {
		return false
	}
	for i, t := range toks {
		s := steps[i]
		if s.index < 0 && t != s.key || s.index >= 0 && t != strconv.Itoa(s.index) {
			return false
		}
	}
	return true
}
