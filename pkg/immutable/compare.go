package immutable

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Violation is one breach of a marker by an update.
type Violation struct {
	// Path is the field path of the value in the API server's notation for
	// custom resource validation: object fields and map keys joined by
	// dots (spec.foo, spec.labels.a), list items by their index in brackets
	// (spec.foo[1]); for list items the index is the one in the new object,
	// or in the old object for a removed item. "<root>" for the root.
	Path string
	// Rule is the extension breached: MutabilityExtension or
	// KeyMutabilityExtension.
	Rule string
	// Value is the marker value: Immutable, AddOnly or RemoveOnly.
	Value string
	// Message says what happened, e.g. "field is immutable" or
	// `keys may only be added: key "a" was removed`.
	Message string
}

// String renders the violation in the style of the API server's
// field.Error: "spec.foo: Forbidden: field is immutable".
func (v Violation) String() string {
	return v.Path + ": " + field.Forbidden(nil, v.Message).ErrorBody()
}

// Compare judges an update from old to new, both the whole object as the
// server stores it (decoded JSON: map[string]any, []any, string, int64,
// float64, bool, nil; already pruned and defaulted), against the markers of
// s. It returns the violations in a deterministic order (schema walk,
// object keys sorted, list items in order). See docs/immutability.md for
// the semantics. Marker values other than Immutable, AddOnly and
// RemoveOnly are ignored (ValidatePlacement reports them).
func Compare(s *Schema, old, new any) []Violation {
	c := &comparer{}
	c.slot(s, nil, old, true, new, true, false)
	return c.vs
}

type comparer struct{ vs []Violation }

func (c *comparer) add(p *field.Path, rule, value, msg string) {
	c.vs = append(c.vs, Violation{Path: pathString(p), Rule: rule, Value: value, Message: msg})
}

// slot judges one position (an object field, a list item, a map value)
// whose parent exists in both revisions. oldOK/newOK tell whether it is
// present in the old/new object. item is set for list items and map
// values: their presence is governed by the x-kubernetes-key-mutability of
// their list or map, so their own x-kubernetes-mutability only forbids
// changing the value of a key present in both revisions.
func (c *comparer) slot(s *Schema, p *field.Path, old any, oldOK bool, new any, newOK bool, item bool) {
	if s == nil || (!oldOK && !newOK) {
		return
	}
	if m := s.Mutability; s.HasMutability && !s.MutabilityNotString && supported(m) {
		switch {
		case oldOK && newOK:
			// Recursive scope: the whole value is compared, so every
			// field below is immutable too, whatever its own markers.
			if d := firstDiff(old, new, p); d != nil {
				c.add(p, MutabilityExtension, m, changedMessage(m, p, d))
			}
			return
		case newOK && !item && m != AddOnly:
			c.add(p, MutabilityExtension, m, addedMessage(m))
			return
		case oldOK && !item && m != RemoveOnly:
			c.add(p, MutabilityExtension, m, removedMessage(m))
			return
		}
	}
	if m := s.KeyMutability; s.HasKeyMutability && !s.KeyMutabilityNotString && supported(m) {
		c.keys(s, p, m, old, oldOK, new, newOK)
	}
	if oldOK && newOK {
		c.children(s, p, old, new)
	}
}

func changedMessage(m string, p, d *field.Path) string {
	var msg string
	switch m {
	case Immutable:
		msg = "field is immutable"
	case AddOnly:
		msg = "field may only be added, not removed or changed: value changed"
	default:
		msg = "field may only be removed, not added or changed: value changed"
	}
	if d != p && d != rootDiff {
		msg += " (first difference at " + d.String() + ")"
	}
	return msg
}

func addedMessage(m string) string {
	if m == Immutable {
		return "field is immutable: must not be added after creation"
	}
	return "field may only be removed, not added or changed: field was added"
}

func removedMessage(m string) string {
	if m == Immutable {
		return "field is immutable: must not be removed"
	}
	return "field may only be added, not removed or changed: field was removed"
}

// children walks into a value present in both revisions.
func (c *comparer) children(s *Schema, p *field.Path, old, new any) {
	switch o := old.(type) {
	case map[string]any:
		n, ok := new.(map[string]any)
		if !ok {
			return // replaced by a value of another type: all new
		}
		keys := sortedKeys(o)
		for k := range n {
			if _, ok := o[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			cs, item := s.Properties[k], false
			if cs == nil {
				cs, item = s.AdditionalProperties, true
			}
			if cs == nil {
				continue
			}
			ov, ook := o[k]
			nv, nok := n[k]
			c.slot(cs, child(p, k), ov, ook, nv, nok, item)
		}
	case []any:
		n, ok := new.([]any)
		if !ok || s.Items == nil {
			return
		}
		switch s.ListType {
		case "map", "set":
			c.keyedItems(s, p, o, n)
		default:
			for i := 0; i < len(o) || i < len(n); i++ {
				var ov, nv any
				if i < len(o) {
					ov = o[i]
				}
				if i < len(n) {
					nv = n[i]
				}
				c.slot(s.Items, index(p, i), ov, i < len(o), nv, i < len(n), true)
			}
		}
	}
}

// keyedItems matches the items of a list-map or a set by key (the j-th
// item with a key matches the j-th old item with that key, should keys
// repeat) and judges them by their index in the new list, or in the old
// one for removed items.
func (c *comparer) keyedItems(s *Schema, p *field.Path, o, n []any) {
	oldIdx := map[string]int{}
	seen := map[string]int{}
	for i, it := range o {
		id := itemKey(s, it).id
		oldIdx[fmt.Sprintf("%s#%d", id, seen[id])] = i
		seen[id]++
	}
	matched := make([]bool, len(o))
	seen = map[string]int{}
	for i, it := range n {
		id := itemKey(s, it).id
		occ := fmt.Sprintf("%s#%d", id, seen[id])
		seen[id]++
		if j, ok := oldIdx[occ]; ok {
			matched[j] = true
			c.slot(s.Items, index(p, i), o[j], true, it, true, true)
		} else {
			c.slot(s.Items, index(p, i), nil, false, it, true, true)
		}
	}
	for j, it := range o {
		if !matched[j] {
			c.slot(s.Items, index(p, j), it, true, nil, false, true)
		}
	}
}

// key identifies a list item or map entry; desc names it in messages.
type key struct {
	id, desc string
}

// itemKey is the key of an item of a list-map (its list-map-key values)
// or of a set (the whole item).
func itemKey(s *Schema, it any) key {
	if s.ListType == "set" {
		c := canonical(it)
		return key{id: c, desc: c}
	}
	m, ok := it.(map[string]any)
	if !ok {
		c := canonical(it)
		return key{id: "!" + c, desc: c}
	}
	var ids, descs []string
	for _, k := range s.ListMapKeys {
		v, ok := m[k]
		val := "<missing>"
		if ok {
			val = canonical(v)
		}
		ids = append(ids, val)
		descs = append(descs, k+"="+val)
	}
	desc := strings.Join(descs, ",")
	if len(descs) > 1 {
		desc = "(" + strings.Join(descs, ", ") + ")"
	}
	return key{id: strings.Join(ids, "\x00"), desc: desc}
}

// keySet returns the keys of a list or map value, and the nouns naming
// them. An absent value, null or a value of another kind has no keys.
func keySet(s *Schema, v any, ok bool) (keys []key, one, many string) {
	one, many = "key", "keys"
	if !ok {
		return nil, one, many
	}
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			keys = append(keys, key{id: k, desc: fmt.Sprintf("%q", k)})
		}
	case []any:
		switch s.ListType {
		case "map", "set":
			if s.ListType == "set" {
				one, many = "item", "items"
			}
			for _, it := range t {
				keys = append(keys, itemKey(s, it))
			}
		default:
			one, many = "index", "indices"
			for i := range t {
				keys = append(keys, key{id: fmt.Sprint(i), desc: fmt.Sprint(i)})
			}
		}
	}
	return keys, one, many
}

// keys judges x-kubernetes-key-mutability m: the set of keys of the list or
// map is immutable, add-only or remove-only; an absent field has no keys.
func (c *comparer) keys(s *Schema, p *field.Path, m string, old any, oldOK bool, new any, newOK bool) {
	ok, one, many := keySet(s, old, oldOK)
	nk, one2, many2 := keySet(s, new, newOK)
	if len(ok) == 0 {
		one, many = one2, many2
	}
	in := func(ks []key) map[string]bool {
		r := map[string]bool{}
		for _, k := range ks {
			r[k.id] = true
		}
		return r
	}
	oldSet, newSet := in(ok), in(nk)
	var added, removed []string
	done := map[string]bool{}
	for _, k := range nk {
		if !oldSet[k.id] && !done[k.id] {
			added = append(added, k.desc)
			done[k.id] = true
		}
	}
	for _, k := range ok {
		if !newSet[k.id] && !done[k.id] {
			removed = append(removed, k.desc)
			done[k.id] = true
		}
	}
	var parts []string
	if m != AddOnly && len(added) > 0 {
		parts = append(parts, listKeys(added, one, many, "added"))
	}
	if m != RemoveOnly && len(removed) > 0 {
		parts = append(parts, listKeys(removed, one, many, "removed"))
	}
	if len(parts) == 0 {
		return
	}
	prefix := map[string]string{
		Immutable:  "keys are immutable",
		AddOnly:    "keys may only be added",
		RemoveOnly: "keys may only be removed",
	}[m]
	c.add(p, KeyMutabilityExtension, m, prefix+": "+strings.Join(parts, "; "))
}

const maxListed = 5

func listKeys(descs []string, one, many, verb string) string {
	if len(descs) == 1 {
		return one + " " + descs[0] + " was " + verb
	}
	shown := descs
	more := ""
	if len(descs) > maxListed {
		shown = descs[:maxListed]
		more = fmt.Sprintf(" and %d more", len(descs)-maxListed)
	}
	return many + " " + strings.Join(shown, ", ") + more + " were " + verb
}
