package prune

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// planner computes the text edits that turn a document's YAML into the
// object the server would store, touching nothing else.
type planner struct {
	t     *text
	edits []edit
	// gone holds the nodes of pruned text, to find the aliases kept
	// elsewhere whose anchor goes with it.
	gone map[*yaml.Node]bool
}

// ctx says where a mapping sits, for the edits that need its parent.
type ctx struct {
	parentKey *yaml.Node // the key whose value this is, or nil
	seqItem   bool       // a block sequence item ("- " before it)
	shared    bool       // inside an anchor or reached through an alias
	// have is the node's value as kubectl decodes it (from the document's
	// JSON): re-encoding a node to decode it again is not exact for every
	// scalar style (folded block scalars with more-indented lines).
	have   any
	haveOK bool
}

// current is the node's value as kubectl reads it.
func (c ctx) current(n *yaml.Node) (any, error) {
	if c.haveOK {
		return c.have, nil
	}
	return value(n)
}

// SharedError is a change the tool will not make because the text is
// shared through a YAML anchor, merge key or alias: editing it in one place
// would change every place that uses it.
type SharedError struct {
	Line int
	What string
}

func (e *SharedError) Error() string {
	return fmt.Sprintf("line %d: %s; expand the anchor to prune here", e.Line, e.What)
}

// keyOf is a key as the JSON kubectl sends spells it.
func keyOf(k *yaml.Node) string { return source.KeyString(k) }

// value decodes a node with kubectl's YAML 1.1 rules, as JSON values.
func value(n *yaml.Node) (any, error) {
	b, err := yaml.Marshal(n)
	if err != nil {
		return nil, err
	}
	js, err := sigsyaml.YAMLToJSON(b)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// equalJSON compares two values by their JSON form (int64 and float64
// alike).
func equalJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var x, y any
	_ = json.Unmarshal(ja, &x)
	_ = json.Unmarshal(jb, &y)
	return reflect.DeepEqual(x, y)
}

func (p *planner) walk(n *yaml.Node, want any, c ctx) error {
	if n.Anchor != "" {
		c.shared = true
	}
	if n.Kind == yaml.AliasNode {
		c.shared = true
		if n.Alias == nil {
			return nil
		}
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		m, ok := want.(map[string]any)
		if !ok {
			return p.replace(n, want, c)
		}
		if n.Style&yaml.FlowStyle != 0 {
			return p.flow(n, want, c)
		}
		return p.mapping(n, m, c)
	case yaml.SequenceNode:
		l, ok := want.([]any)
		if !ok || len(l) != len(n.Content) {
			return p.replace(n, want, c)
		}
		if n.Style&yaml.FlowStyle != 0 {
			return p.flow(n, want, c)
		}
		hl, hok := c.have.([]any)
		for i, item := range n.Content {
			ic := ctx{seqItem: true, shared: c.shared}
			if c.haveOK && hok && i < len(hl) {
				ic.have, ic.haveOK = hl[i], true
			}
			if err := p.walk(item, l[i], ic); err != nil {
				return err
			}
		}
		return nil
	default:
		return p.replace(n, want, c)
	}
}

// replace rewrites a node whose value changed (a null the server defaulted).
func (p *planner) replace(n *yaml.Node, want any, c ctx) error {
	have, err := c.current(n)
	if err != nil {
		return err
	}
	if equalJSON(have, want) {
		return nil
	}
	if c.shared {
		return &SharedError{n.Line, "the value changes inside shared text"}
	}
	nn, err := nodeOf(want)
	if err != nil {
		return err
	}
	repl, err := flowText(nn)
	if err != nil {
		return err
	}
	switch {
	case n.Kind == yaml.ScalarNode && n.Style == 0 && n.Value != "":
		start := p.t.offset(n.Line, n.Column)
		p.edits = append(p.edits, edit{start, start + len(n.Value), repl})
	case n.Kind == yaml.ScalarNode && n.Value == "" && c.parentKey != nil:
		at, err := p.t.colonAfter(c.parentKey)
		if err != nil {
			return err
		}
		p.edits = append(p.edits, edit{at, at, " " + repl})
	case n.Style&yaml.FlowStyle != 0:
		start, end, err := p.t.flowSpan(n)
		if err != nil {
			return err
		}
		p.edits = append(p.edits, edit{start, end, repl})
	default:
		return fmt.Errorf("line %d: cannot rewrite this value in place", n.Line)
	}
	return nil
}

// flow rewrites a flow collection as a whole when anything in it changes.
func (p *planner) flow(n *yaml.Node, want any, c ctx) error {
	have, err := c.current(n)
	if err != nil {
		return err
	}
	if equalJSON(have, want) {
		return nil
	}
	if c.shared {
		return &SharedError{n.Line, "fields would be pruned inside shared text"}
	}
	nn, err := rebuild(n, want)
	if err != nil {
		return err
	}
	p.cutExcept(n, nn)
	repl, err := flowText(nn)
	if err != nil {
		return err
	}
	start, end, err := p.t.flowSpan(n)
	if err != nil {
		return err
	}
	p.edits = append(p.edits, edit{start, end, repl})
	return nil
}

func (p *planner) mapping(n *yaml.Node, want map[string]any, c ctx) error {
	type entry struct{ k, v *yaml.Node }
	var kept, removed []entry
	have := map[string]bool{}
	last := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		last[keyOf(n.Content[i])] = i
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag == "!!merge" {
			return p.merged(n, want, c)
		}
		name := keyOf(k)
		if _, ok := want[name]; last[name] != i && ok {
			// An earlier duplicate of a kept key: kubectl sends only the
			// last value, so the server never sees this one; it stays as
			// written. Duplicates of a pruned key all go.
			continue
		}
		have[name] = true
		if _, ok := want[name]; ok {
			kept = append(kept, entry{k, v})
		} else {
			removed = append(removed, entry{k, v})
		}
	}
	var added []string
	for k := range want {
		if !have[k] {
			added = append(added, k)
		}
	}
	sort.Strings(added)
	if (len(removed) > 0 || len(added) > 0) && c.shared {
		return &SharedError{n.Line, "fields would be pruned inside shared text"}
	}
	if len(kept) == 0 && len(added) == 0 && len(removed) > 0 {
		return p.emptied(n, c)
	}
	for i, e := range removed {
		p.cut(e.k)
		p.cut(e.v)
		start, end, keyFirst := p.t.entrySpan(e.k, e.v)
		if keyFirst && c.seqItem && e.k == n.Content[0] {
			// "- # comment" above the item's first key is that key's
			// head comment: it goes with the key, the "-" stays.
			p.dashComment(start)
		}
		repl := ""
		if !keyFirst {
			if !c.seqItem || i > 0 || e.k != n.Content[0] {
				return fmt.Errorf("line %d: cannot remove %q here without reformatting", e.k.Line, e.k.Value)
			}
			// "- key: v" with other keys below: keep "-", let the
			// mapping start on the next line.
			for start > 0 && p.t.b[start-1] == ' ' {
				start--
			}
			repl = "\n"
		}
		p.edits = append(p.edits, edit{start, end, repl})
	}
	if len(added) > 0 {
		last := n.Content[len(n.Content)-2]
		_, at, _ := p.t.entrySpan(last, n.Content[len(n.Content)-1])
		indent := strings.Repeat(" ", n.Content[0].Column-1)
		var b strings.Builder
		for _, k := range added {
			kn, err := nodeOf(k)
			if err != nil {
				return err
			}
			vn, err := nodeOf(want[k])
			if err != nil {
				return err
			}
			ks, _ := flowText(kn)
			vs, err := flowText(vn)
			if err != nil {
				return err
			}
			b.WriteString(indent + ks + ": " + vs + "\n")
		}
		text := b.String()
		if at == len(p.t.b) && len(p.t.b) > 0 && p.t.b[len(p.t.b)-1] != '\n' {
			// The file ends without a newline: keep it that way.
			text = "\n" + strings.TrimSuffix(text, "\n")
		}
		p.edits = append(p.edits, edit{at, at, text})
	}
	hm, hok := c.have.(map[string]any)
	for _, e := range kept {
		name := keyOf(e.k)
		kc := ctx{parentKey: e.k, shared: c.shared}
		if c.haveOK && hok {
			kc.have, kc.haveOK = hm[name]
		}
		if err := p.walk(e.v, want[name], kc); err != nil {
			return err
		}
	}
	return nil
}

// dashComment removes a comment that sits after the "-" of a sequence
// item on the line above the item's first key (start is where the key's
// text, head comments included, starts).
func (p *planner) dashComment(start int) {
	line := 0
	for l := 1; l <= len(p.t.lines); l++ {
		if p.t.lineStart(l) == start {
			line = l - 1
			break
		}
	}
	if line < 1 {
		return
	}
	text := p.t.line(line)
	// Only dashes and blanks may come before the comment ("- - # c").
	i, dashes := 0, 0
	for i < len(text) && (text[i] == ' ' || text[i] == '-') {
		if text[i] == '-' {
			dashes++
		}
		i++
	}
	if dashes == 0 || i >= len(text) || text[i] != '#' {
		return
	}
	end := i
	for end > 0 && text[end-1] == ' ' {
		end--
	}
	p.edits = append(p.edits, edit{p.t.lineStart(line) + end, p.t.lineStart(line) + len(text), ""})
}

// emptied writes {} for a block mapping whose every field is pruned: with
// nothing left the value would read as null.
func (p *planner) emptied(n *yaml.Node, c ctx) error {
	for _, e := range n.Content {
		p.cut(e)
	}
	first, lastK, lastV := n.Content[0], n.Content[len(n.Content)-2], n.Content[len(n.Content)-1]
	_, end, _ := p.t.entrySpan(lastK, lastV)
	switch {
	case c.parentKey != nil:
		at, err := p.t.colonAfter(c.parentKey)
		if err != nil {
			return err
		}
		start, _, keyFirst := p.t.entrySpan(first, n.Content[1])
		if !keyFirst || start < p.t.lineStart(c.parentKey.Line+1) {
			return fmt.Errorf("line %d: cannot empty this mapping without reformatting", n.Line)
		}
		p.edits = append(p.edits, edit{at, at, " {}"}, edit{start, end, ""})
	case c.seqItem:
		start := p.t.offset(first.Line, first.Column)
		if p.t.indent(first.Line) == first.Column {
			hs, _, _ := p.t.entrySpan(first, n.Content[1])
			p.dashComment(hs)
		}
		p.edits = append(p.edits, edit{start, end, "{}\n"})
	default:
		return fmt.Errorf("line %d: every field of the document would be pruned", n.Line)
	}
	return nil
}

// merged handles a mapping with a merge key: fine when nothing in it
// changes; refused otherwise, as the merged fields live in shared text.
func (p *planner) merged(n *yaml.Node, want map[string]any, c ctx) error {
	have, err := c.current(n)
	if err != nil {
		return err
	}
	if equalJSON(have, want) {
		return nil
	}
	return &SharedError{n.Line, "fields would be pruned from a mapping with a merge key (<<)"}
}

// cut marks a pruned node and everything under it (not what its aliases
// point at: that text stays).
func (p *planner) cut(n *yaml.Node) {
	if p.gone == nil {
		p.gone = map[*yaml.Node]bool{}
	}
	p.gone[n] = true
	for _, c := range n.Content {
		p.cut(c)
	}
}

// cutExcept marks what of old a rebuilt flow collection no longer holds.
func (p *planner) cutExcept(old, rebuilt *yaml.Node) {
	kept := map[*yaml.Node]bool{}
	var keep func(n *yaml.Node)
	keep = func(n *yaml.Node) {
		kept[n] = true
		for _, c := range n.Content {
			keep(c)
		}
	}
	keep(rebuilt)
	var visit func(n *yaml.Node)
	visit = func(n *yaml.Node) {
		if !kept[n] {
			p.cut(n)
			return
		}
		for _, c := range n.Content {
			visit(c)
		}
	}
	for _, c := range old.Content {
		visit(c)
	}
}

// expandAliases rewrites each alias left in the text whose anchor went
// with a pruned field as the value it stands for: "*j" would otherwise
// name an anchor the file no longer has, and the document would not parse.
func (p *planner) expandAliases(root *yaml.Node) error {
	if len(p.gone) == 0 {
		return nil
	}
	var err error
	var visit func(n *yaml.Node)
	visit = func(n *yaml.Node) {
		if err != nil || p.gone[n] {
			return
		}
		if n.Kind == yaml.AliasNode {
			if n.Alias != nil && p.gone[n.Alias] {
				err = p.expand(n)
			}
			return
		}
		for _, c := range n.Content {
			visit(c)
		}
	}
	visit(root)
	return err
}

func (p *planner) expand(alias *yaml.Node) error {
	start := p.t.offset(alias.Line, alias.Column)
	for _, e := range p.edits {
		if start >= e.start && start < e.end {
			return nil // rewritten with its flow collection, value and all
		}
	}
	end := start + 1 + len(alias.Value)
	if end > len(p.t.b) || string(p.t.b[start:end]) != "*"+alias.Value {
		return fmt.Errorf("line %d: cannot find the alias *%s", alias.Line, alias.Value)
	}
	target := *alias.Alias
	target.Anchor = ""
	if sharesMore(&target) {
		return &SharedError{alias.Line, fmt.Sprintf("the alias *%s stands for a pruned field that holds anchors or aliases itself", alias.Value)}
	}
	text, err := flowText(&target)
	if err != nil {
		return err
	}
	p.edits = append(p.edits, edit{start, end, text})
	return nil
}

// sharesMore says whether anything under n is an anchor or an alias.
func sharesMore(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Anchor != "" || c.Kind == yaml.AliasNode || sharesMore(c) {
			return true
		}
	}
	return false
}

// nodeOf encodes a JSON value as a YAML node.
func nodeOf(v any) (*yaml.Node, error) {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return &n, nil
}

// rebuild returns a copy of n with the shape of want, keeping n's key
// order and scalars that did not change.
func rebuild(n *yaml.Node, want any) (*yaml.Node, error) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch w := want.(type) {
	case map[string]any:
		if n.Kind != yaml.MappingNode {
			return nodeOf(want)
		}
		out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: n.Style}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			name := keyOf(n.Content[i])
			if v, ok := w[name]; ok && !seen[name] {
				seen[name] = true
				vn, err := rebuild(n.Content[i+1], v)
				if err != nil {
					return nil, err
				}
				out.Content = append(out.Content, n.Content[i], vn)
			}
		}
		var rest []string
		for k := range w {
			if !seen[k] {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		for _, k := range rest {
			kn, _ := nodeOf(k)
			vn, err := nodeOf(w[k])
			if err != nil {
				return nil, err
			}
			out.Content = append(out.Content, kn, vn)
		}
		return out, nil
	case []any:
		if n.Kind != yaml.SequenceNode || len(n.Content) != len(w) {
			return nodeOf(want)
		}
		out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: n.Style}
		for i, item := range n.Content {
			vn, err := rebuild(item, w[i])
			if err != nil {
				return nil, err
			}
			out.Content = append(out.Content, vn)
		}
		return out, nil
	}
	have, err := value(n)
	if err == nil && equalJSON(have, want) {
		return n, nil
	}
	return nodeOf(want)
}
