package compare

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
)

// walker compares one schema of OLD with one of NEW, node by node.
type walker struct {
	opts Options
	// version is NEW's version, oldVersion OLD's: different only for
	// the storage version pair.
	version, oldVersion string
	out                 []Change
}

// loc is where a pair of nodes is.
type loc struct {
	op, np *field.Path // the node in OLD and in NEW
	data   DataPath
	// present says the value at the node exists whenever the object
	// does: the root, spec, and fields required all the way up to them.
	present bool
	root    bool
	// item says the node is a list's items.
	item bool
}

func (w *walker) add(ch Change) {
	ch.Severity = severity[ch.Rule]
	ch.Version, ch.OldVersion = w.version, w.oldVersion
	w.out = append(w.out, ch)
}

// change starts a change at a keyword of the node (the node itself for
// ""), in NEW, or in OLD when inOld.
func (l loc) change(rule, key string, inOld bool) Change {
	p := l.np
	if inOld {
		p = l.op
	}
	if key != "" {
		p = p.Child(key)
	}
	return Change{Rule: rule, Path: p.String(), InOld: inOld, Field: l.data}
}

// node compares a pair of schema nodes and their children.
func (w *walker) node(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	if o == nil || n == nil {
		return
	}
	if !w.types(o, n, l) {
		// The value's kind changed: what is below no longer compares.
		// A node that took any value (preserving unknown fields) may
		// lose those fields too, which the type change does not say.
		if o.Type == "" && !o.XIntOrString && n.Type == "object" {
			w.flags(o, n, l)
		}
		return
	}
	w.flags(o, n, l)
	w.format(o, n, l)
	w.pattern(o, n, l)
	w.enum(o, n, l)
	w.bounds(o, n, l)
	w.multipleOf(o, n, l)
	w.defaults(o, n, l)
	w.lists(o, n, l)
	w.cel(o.XValidations, n.XValidations, l)
	w.junctors(o, n, l)
	w.required(o, n, l)
	w.children(o, n, l)
}

// types compares type and x-kubernetes-int-or-string, and returns false
// when the type changed so that the children do not compare.
func (w *walker) types(o, n *apiextensionsv1.JSONSchemaProps, l loc) bool {
	if o.XIntOrString != n.XIntOrString {
		switch {
		case n.XIntOrString && (o.Type == "integer" || o.Type == "string"):
			ch := l.change(RuleTypeWidened, "x-kubernetes-int-or-string", false)
			ch.Old, ch.New = o.Type, "int-or-string"
			ch.Message = fmt.Sprintf("type widened from %s to int-or-string: the server accepts more, clients decoding %s may fail on the other type", js(o.Type), js(o.Type))
			w.add(ch)
		case n.XIntOrString:
			ch := l.change(RuleTypeChanged, "x-kubernetes-int-or-string", false)
			ch.Old, ch.New = typeName(o), "int-or-string"
			ch.Message = fmt.Sprintf("type changed from %s to int-or-string: stored values of other types are refused", js(typeName(o)))
			w.add(ch)
			return false
		case n.Type == "":
			ch := l.change(RuleTypeWidened, "x-kubernetes-int-or-string", true)
			ch.Old = "int-or-string"
			ch.Message = "x-kubernetes-int-or-string removed without a type: the server accepts any value, clients decoding int-or-string may fail"
			w.add(ch)
		default:
			ch := l.change(RuleIntOrStringRemoved, "type", false)
			ch.Old, ch.New = "int-or-string", n.Type
			ch.Message = fmt.Sprintf("type changed from int-or-string to %s: stored values of the other type are refused", js(n.Type))
			w.add(ch)
		}
		return true
	}
	if o.Type == n.Type {
		return true
	}
	switch {
	case n.Type == "" && o.Type != "":
		ch := l.change(RuleTypeWidened, "type", true)
		ch.Old = o.Type
		ch.Message = fmt.Sprintf("type %s removed: the server accepts any type here, clients decoding %s may fail", js(o.Type), js(o.Type))
		w.add(ch)
		return true
	case o.Type == "integer" && n.Type == "number":
		ch := l.change(RuleTypeWidened, "type", false)
		ch.Old, ch.New = o.Type, n.Type
		ch.Message = `type widened from "integer" to "number": the server accepts fractions, clients decoding integers may fail`
		w.add(ch)
		return true
	}
	ch := l.change(RuleTypeChanged, "type", false)
	ch.New = n.Type
	if o.Type != "" {
		ch.Old = o.Type
		ch.Message = fmt.Sprintf("type changed from %s to %s: stored values of the old type are refused", js(o.Type), js(n.Type))
	} else {
		ch.Message = fmt.Sprintf("type %s set where any type was allowed: stored values of other types are refused", js(n.Type))
	}
	w.add(ch)
	return false
}

func typeName(s *apiextensionsv1.JSONSchemaProps) string {
	if s.XIntOrString {
		return "int-or-string"
	}
	if s.Type == "" {
		return "any"
	}
	return s.Type
}

func isTrue(b *bool) bool { return b != nil && *b }

// preserves says a node keeps fields its schema does not list.
func preserves(s *apiextensionsv1.JSONSchemaProps) bool {
	return isTrue(s.XPreserveUnknownFields) || s.AdditionalProperties != nil
}

func (w *walker) flags(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	if isTrue(o.XPreserveUnknownFields) && !preserves(n) {
		ch := l.change(RulePreserveUnknownRemoved, "x-kubernetes-preserve-unknown-fields", true)
		ch.Old = true
		ch.Message = "x-kubernetes-preserve-unknown-fields removed: fields the schema does not list are pruned on the next write, and stored ones are lost"
		w.add(ch)
	}
	if o.XEmbeddedResource != n.XEmbeddedResource {
		ch := l.change(RuleEmbeddedChanged, "x-kubernetes-embedded-resource", !n.XEmbeddedResource)
		ch.Old, ch.New = o.XEmbeddedResource, n.XEmbeddedResource
		if n.XEmbeddedResource {
			ch.Message = "x-kubernetes-embedded-resource added: apiVersion, kind and metadata become required and validated, values without them are refused"
		} else {
			ch.Message = "x-kubernetes-embedded-resource removed: apiVersion, kind and metadata are no longer kept unless the schema lists them"
		}
		w.add(ch)
	}
	if o.Nullable && !n.Nullable {
		ch := l.change(RuleNullableRemoved, "nullable", true)
		ch.Old, ch.New = true, false
		if l.item {
			ch.Message = "nullable removed: null items are refused"
		} else {
			ch.Message = "nullable removed: null values are dropped from stored objects on the next write (replaced by the default, where there is one)"
		}
		w.add(ch)
	}
}

// validatedFormat says the server checks values against the format: only
// strings are checked, and only in the formats it recognizes.
func validatedFormat(s *apiextensionsv1.JSONSchemaProps) bool {
	if s.Format == "" || (s.Type != "" && s.Type != "string") {
		return false
	}
	return len(engine.UnrecognizedFormats(s.Format, s.Type)) == 0
}

func (w *walker) format(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	if o.Format == n.Format || !validatedFormat(n) {
		return
	}
	ch := l.change(RuleFormatChanged, "format", false)
	ch.New = n.Format
	if o.Format != "" {
		ch.Old = o.Format
		ch.Message = fmt.Sprintf("format changed from %s to %s: values OLD accepted may be refused", js(o.Format), js(n.Format))
	} else {
		ch.Message = fmt.Sprintf("format %s added: strings that are not valid %s are refused", js(n.Format), js(n.Format))
	}
	w.add(ch)
}

func (w *walker) pattern(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	if n.Pattern == "" || o.Pattern == n.Pattern {
		return
	}
	ch := l.change(RulePatternChanged, "pattern", false)
	ch.New = n.Pattern
	if o.Pattern != "" {
		ch.Old = o.Pattern
		ch.Message = fmt.Sprintf("pattern changed from %s to %s: values OLD accepted may be refused", js(o.Pattern), js(n.Pattern))
	} else {
		ch.Message = fmt.Sprintf("pattern %s added: values that do not match are refused", js(n.Pattern))
	}
	w.add(ch)
}

func (w *walker) enum(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	if len(n.Enum) == 0 {
		return
	}
	if len(o.Enum) == 0 {
		ch := l.change(RuleEnumAdded, "enum", false)
		ch.New = jsonValues(n.Enum)
		ch.Message = fmt.Sprintf("enum %s added: every other value is refused", jsList(n.Enum))
		w.add(ch)
		return
	}
	have := map[string]bool{}
	for _, v := range n.Enum {
		have[canonical(v)] = true
	}
	var gone []apiextensionsv1.JSON
	for _, v := range o.Enum {
		if !have[canonical(v)] {
			gone = append(gone, v)
		}
	}
	if len(gone) == 0 {
		return
	}
	ch := l.change(RuleEnumRemoved, "enum", false)
	ch.Old, ch.New = jsonValues(gone), jsonValues(n.Enum)
	word, them := "value", "it"
	if len(gone) > 1 {
		word, them = "values", "them"
	}
	ch.Message = fmt.Sprintf("enum %s %s removed: objects holding %s are refused", word, jsList(gone), them)
	w.add(ch)
}

// bounds compares the numeric, length, items and properties bounds.
func (w *walker) bounds(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	// minimum and maximum, with their exclusive flags.
	for _, b := range []struct {
		key, excl        string
		old, new         *float64
		oldExcl, newExcl bool
		upper            bool
	}{
		{"minimum", "exclusiveMinimum", o.Minimum, n.Minimum, o.ExclusiveMinimum, n.ExclusiveMinimum, false},
		{"maximum", "exclusiveMaximum", o.Maximum, n.Maximum, o.ExclusiveMaximum, n.ExclusiveMaximum, true},
	} {
		if b.new == nil {
			continue
		}
		nv := *b.new
		switch {
		case b.old == nil:
			ch := l.change(RuleBoundTightened, b.key, false)
			ch.New = nv
			ch.Message = fmt.Sprintf("%s %s added: values %s are refused", b.key, js(nv), outside(b.upper, b.newExcl, nv))
			w.add(ch)
		case (b.upper && nv < *b.old) || (!b.upper && nv > *b.old):
			ch := l.change(RuleBoundTightened, b.key, false)
			ch.Old, ch.New = *b.old, nv
			ch.Message = fmt.Sprintf("%s tightened from %s to %s: values %s are refused", b.key, js(*b.old), js(nv), outside(b.upper, b.newExcl, nv))
			w.add(ch)
		case nv == *b.old && b.newExcl && !b.oldExcl:
			ch := l.change(RuleBoundTightened, b.excl, false)
			ch.Old, ch.New = false, true
			ch.Message = fmt.Sprintf("%s made exclusive: the value %s itself is refused", b.key, js(nv))
			w.add(ch)
		}
	}
	for _, b := range []struct {
		key      string
		old, new *int64
		upper    bool
		what     string
	}{
		{"minLength", o.MinLength, n.MinLength, false, "strings shorter than"},
		{"maxLength", o.MaxLength, n.MaxLength, true, "strings longer than"},
		{"minItems", o.MinItems, n.MinItems, false, "lists with fewer items than"},
		{"maxItems", o.MaxItems, n.MaxItems, true, "lists with more items than"},
		{"minProperties", o.MinProperties, n.MinProperties, false, "objects with fewer properties than"},
		{"maxProperties", o.MaxProperties, n.MaxProperties, true, "objects with more properties than"},
	} {
		if b.new == nil {
			continue
		}
		nv := *b.new
		var tight bool
		switch {
		case b.old == nil:
			// No lower bound is 0; no upper bound is none.
			tight = b.upper || nv > 0
		case b.upper:
			tight = nv < *b.old
		default:
			tight = nv > *b.old
		}
		if !tight {
			continue
		}
		ch := l.change(RuleBoundTightened, b.key, false)
		ch.New = float64(nv)
		if b.old != nil {
			ch.Old = float64(*b.old)
			ch.Message = fmt.Sprintf("%s tightened from %d to %d: %s %d are refused", b.key, *b.old, nv, b.what, nv)
		} else {
			ch.Message = fmt.Sprintf("%s %d added: %s %d are refused", b.key, nv, b.what, nv)
		}
		w.add(ch)
	}
}

// outside says which numbers a bound refuses.
func outside(upper, exclusive bool, v float64) string {
	switch {
	case upper && exclusive:
		return "from " + js(v) + " up"
	case upper:
		return "above " + js(v)
	case exclusive:
		return "from " + js(v) + " down"
	default:
		return "below " + js(v)
	}
}

func (w *walker) multipleOf(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	if n.MultipleOf == nil || *n.MultipleOf == 0 {
		return
	}
	nv := *n.MultipleOf
	if o.MultipleOf != nil && *o.MultipleOf != 0 {
		// Every multiple of OLD's is one of NEW's when NEW's divides it.
		r := *o.MultipleOf / nv
		if !math.IsInf(r, 0) && r == math.Trunc(r) {
			return
		}
	}
	ch := l.change(RuleMultipleOfChanged, "multipleOf", false)
	ch.New = nv
	if o.MultipleOf != nil {
		ch.Old = *o.MultipleOf
		ch.Message = fmt.Sprintf("multipleOf changed from %s to %s: multiples of %s that are not multiples of %s are refused", js(*o.MultipleOf), js(nv), js(*o.MultipleOf), js(nv))
	} else {
		ch.Message = fmt.Sprintf("multipleOf %s added: values that are not multiples of %s are refused", js(nv), js(nv))
	}
	w.add(ch)
}

func (w *walker) defaults(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	switch {
	case o.Default == nil && n.Default == nil:
		return
	case o.Default == nil:
		ch := l.change(RuleDefaultChanged, "default", false)
		ch.New = value(n.Default)
		ch.Message = fmt.Sprintf("default %s added: objects without the field get it when read or created", js(ch.New))
		w.add(ch)
	case n.Default == nil:
		ch := l.change(RuleDefaultChanged, "default", true)
		ch.Old = value(o.Default)
		ch.Message = fmt.Sprintf("default %s removed: objects created without the field no longer get it", js(ch.Old))
		w.add(ch)
	default:
		ov, nv := value(o.Default), value(n.Default)
		if reflect.DeepEqual(ov, nv) {
			return
		}
		ch := l.change(RuleDefaultChanged, "default", false)
		ch.Old, ch.New = ov, nv
		ch.Message = fmt.Sprintf("default changed from %s to %s: objects created without the field get the new value", js(ov), js(nv))
		w.add(ch)
	}
}

// lists compares x-kubernetes-list-type, -list-map-keys and -map-type.
func (w *walker) lists(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	if n.Type == "array" {
		ot, nt := listType(o), listType(n)
		switch {
		case ot != nt && ((ot == "atomic" && nt != "atomic") || (ot == "set" && nt == "map")):
			ch := l.change(RuleListTypeChanged, "x-kubernetes-list-type", false)
			ch.Old, ch.New = ot, nt
			ch.Message = fmt.Sprintf("list type changed from %s to %s: lists with duplicate %s are refused", js(ot), js(nt), map[string]string{"set": "items", "map": "keys"}[nt])
			w.add(ch)
		case ot != nt:
			ch := l.change(RuleMergeStrategyChanged, "x-kubernetes-list-type", n.XListType == nil)
			ch.Old, ch.New = ot, nt
			ch.Message = fmt.Sprintf("list type changed from %s to %s: server-side apply merges and owns the list differently", js(ot), js(nt))
			w.add(ch)
		case nt == "map" && !slices.Equal(sorted(o.XListMapKeys), sorted(n.XListMapKeys)):
			removed := slices.ContainsFunc(o.XListMapKeys, func(k string) bool { return !slices.Contains(n.XListMapKeys, k) })
			rule := RuleMergeStrategyChanged
			msg := "server-side apply merges items by other keys"
			if removed {
				rule, msg = RuleListTypeChanged, "lists with items that were distinct but share the new keys are refused"
			}
			ch := l.change(rule, "x-kubernetes-list-map-keys", false)
			ch.Old, ch.New = stringsAny(o.XListMapKeys), stringsAny(n.XListMapKeys)
			ch.Message = fmt.Sprintf("list map keys changed from %s to %s: %s", js(o.XListMapKeys), js(n.XListMapKeys), msg)
			w.add(ch)
		}
	}
	if n.Type == "object" {
		om, nm := mapType(o), mapType(n)
		if om != nm {
			ch := l.change(RuleMergeStrategyChanged, "x-kubernetes-map-type", n.XMapType == nil)
			ch.Old, ch.New = om, nm
			ch.Message = fmt.Sprintf("map type changed from %s to %s: server-side apply merges and owns the object differently", js(om), js(nm))
			w.add(ch)
		}
	}
}

func listType(s *apiextensionsv1.JSONSchemaProps) string {
	if s.XListType == nil || *s.XListType == "" {
		return "atomic"
	}
	return *s.XListType
}

func mapType(s *apiextensionsv1.JSONSchemaProps) string {
	if s.XMapType == nil || *s.XMapType == "" {
		return "granular"
	}
	return *s.XMapType
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// junctors reports added or changed allOf, anyOf, oneOf and not: whether
// they refuse more is not decided here. Removing one only loosens.
func (w *walker) junctors(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	type junctor struct {
		key      string
		old, new any
		empty    bool
	}
	list := []junctor{
		{"allOf", o.AllOf, n.AllOf, len(n.AllOf) == 0},
		{"oneOf", o.OneOf, n.OneOf, len(n.OneOf) == 0},
		{"not", o.Not, n.Not, n.Not == nil},
	}
	if o.XIntOrString == n.XIntOrString {
		// int-or-string's own anyOf changed with it (types reported it).
		list = append(list, junctor{"anyOf", o.AnyOf, n.AnyOf, len(n.AnyOf) == 0})
	}
	for _, j := range list {
		// Equal as they are is the common case; only a difference is
		// looked at again without documentation (which copies).
		if j.empty || reflect.DeepEqual(j.old, j.new) || reflect.DeepEqual(stripDocs(j.old), stripDocs(j.new)) {
			continue
		}
		ch := l.change(RuleJunctorChanged, j.key, false)
		ch.Message = j.key + " added or changed: values OLD accepted may be refused (tightens or unknown without objects)"
		w.add(ch)
	}
}

// required reports fields newly required. A field with a default in NEW
// is left out: the server defaults it before validating, on create and
// when reading stored objects.
func (w *walker) required(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	for i, name := range n.Required {
		if slices.Contains(o.Required, name) || slices.Contains(n.Required[:i], name) {
			continue
		}
		if p, ok := n.Properties[name]; ok && p.Default != nil {
			continue
		}
		inObjects := !l.present && w.opts.Present != nil && w.opts.Present(w.oldVersion, l.data)
		ch := Change{Path: l.np.Child("required").Index(i).String(), Field: l.data.child(name), New: name}
		switch {
		case l.present:
			ch.Rule = RuleRequiredAdded
			ch.Message = fmt.Sprintf("field %s is now required: objects without it are refused on create", js(name))
		case inObjects:
			ch.Rule = RuleRequiredAdded
			ch.Message = fmt.Sprintf("field %s is now required under the optional %s, which existing objects set: objects setting it without the field are refused on create", js(name), l.data)
		default:
			ch.Rule = RuleRequiredAddedOptional
			where := "the parent"
			if len(l.data) > 0 {
				where = l.data.String()
			}
			ch.Message = fmt.Sprintf("field %s is now required under the optional %s: objects that set %s without it are refused on create", js(name), where, where)
		}
		w.add(ch)
	}
}

// children compares properties, items and additionalProperties.
func (w *walker) children(o, n *apiextensionsv1.JSONSchemaProps, l loc) {
	names := make([]string, 0, len(o.Properties))
	for k := range o.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	keepsMeta := l.root || n.XEmbeddedResource
	for _, name := range names {
		op := o.Properties[name]
		cl := loc{
			op:      l.op.Child("properties").Key(name),
			np:      l.np.Child("properties").Key(name),
			data:    l.data.child(name),
			present: l.present && (slices.Contains(n.Required, name) || (l.root && name == "spec")),
		}
		if np, ok := n.Properties[name]; ok {
			w.node(&op, &np, cl)
			continue
		}
		switch {
		case keepsMeta && (name == "apiVersion" || name == "kind" || name == "metadata"):
			// The server keeps these whatever the schema says.
		case isTrue(n.XPreserveUnknownFields):
			// Kept as an unknown field.
		case n.AdditionalProperties != nil:
			// Kept as a map entry: the map's schema now judges it.
			if s := n.AdditionalProperties.Schema; s != nil {
				cl.np = l.np.Child("additionalProperties")
				cl.present = false
				w.node(&op, s, cl)
			}
		default:
			ch := Change{Rule: RuleFieldRemoved, Path: cl.op.String(), InOld: true, Field: cl.data,
				Message: fmt.Sprintf("field %s removed: stored values are pruned on the next write, and clients setting it lose it", js(name))}
			w.add(ch)
		}
	}
	if o.Items != nil && n.Items != nil && o.Items.Schema != nil && n.Items.Schema != nil {
		w.node(o.Items.Schema, n.Items.Schema, loc{
			op: l.op.Child("items"), np: l.np.Child("items"), data: l.data.child(Any),
			present: l.present && n.MinItems != nil && *n.MinItems > 0, item: true,
		})
	}
	oa, na := o.AdditionalProperties, n.AdditionalProperties
	switch {
	case oa == nil:
	case na != nil && oa.Schema != nil && na.Schema != nil:
		w.node(oa.Schema, na.Schema, loc{op: l.op.Child("additionalProperties"), np: l.np.Child("additionalProperties"), data: l.data.child(Any)})
	case na == nil && !isTrue(n.XPreserveUnknownFields) && (oa.Schema != nil || oa.Allows):
		msg := "additionalProperties removed: every key of the map is pruned on the next write"
		if len(n.Properties) > 0 {
			msg = "additionalProperties removed: keys that are not among the new properties are pruned on the next write"
		}
		w.add(Change{Rule: RuleFieldRemoved, Path: l.op.Child("additionalProperties").String(), InOld: true, Field: l.data.child(Any), Message: msg})
	}
}

// stripDocs returns a copy of a schema value (a node, a slice of nodes)
// without what only documents it, for comparisons that must ignore it.
func stripDocs(v any) any {
	switch s := v.(type) {
	case *apiextensionsv1.JSONSchemaProps:
		if s == nil {
			return s
		}
		c := s.DeepCopy()
		clearDocs(c)
		return c
	case []apiextensionsv1.JSONSchemaProps:
		out := make([]apiextensionsv1.JSONSchemaProps, len(s))
		for i := range s {
			out[i] = *s[i].DeepCopy()
			clearDocs(&out[i])
		}
		return out
	}
	return v
}

func clearDocs(s *apiextensionsv1.JSONSchemaProps) {
	if s == nil {
		return
	}
	s.Description, s.Title, s.Example, s.ExternalDocs = "", "", nil, nil
	for k, p := range s.Properties {
		clearDocs(&p)
		s.Properties[k] = p
	}
	for k, p := range s.PatternProperties {
		clearDocs(&p)
		s.PatternProperties[k] = p
	}
	for k, p := range s.Definitions {
		clearDocs(&p)
		s.Definitions[k] = p
	}
	for _, l := range [][]apiextensionsv1.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			clearDocs(&l[i])
		}
	}
	clearDocs(s.Not)
	if s.Items != nil {
		clearDocs(s.Items.Schema)
		for i := range s.Items.JSONSchemas {
			clearDocs(&s.Items.JSONSchemas[i])
		}
	}
	if s.AdditionalProperties != nil {
		clearDocs(s.AdditionalProperties.Schema)
	}
	if s.AdditionalItems != nil {
		clearDocs(s.AdditionalItems.Schema)
	}
}
