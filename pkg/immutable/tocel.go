package immutable

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
)

// ToCEL rewrites a CRD (raw JSON, as written) so that real API servers
// enforce its markers: every x-kubernetes-mutability /
// x-kubernetes-key-mutability is removed and replaced by equivalent
// x-kubernetes-validations transition rules with clear messages. It
// returns the new CRD as JSON, or an error naming each marker (by field
// path) that CEL cannot express exactly — never a silently weaker rule.
//
// The rules reproduce Compare (see docs/immutability.md):
//
//   - x-kubernetes-mutability on a property f of an object: a rule on the
//     object, so that adding and removing f can be judged
//     (has(self.f) / has(oldSelf.f)); the object's own transition rule only
//     runs when the object exists in both revisions, which is the
//     parent-exists rule.
//   - x-kubernetes-mutability on list items and map values: the value of a
//     key present in both revisions must not change: a rule self == oldSelf
//     on the items of a list-map and on map values (both correlatable by
//     key); for unset/atomic lists a rule on the list comparing the common
//     indices (a two-variable comprehension, Kubernetes >= 1.32); nothing
//     for set items (the key is the whole item: nothing can change).
//   - x-kubernetes-key-mutability on a property f: a rule on the object
//     comparing the key sets, an absent field having no keys: map keys,
//     list-map key tuples, set items, or the length of unset/atomic lists.
//   - Markers below the items of unset/atomic lists (uncorrelatable for the
//     server) are lifted to the nearest correlatable ancestor with
//     index-aware comprehensions; markers below set items have no effect
//     in Compare (a set item can only be added or removed) and are dropped.
//
// Equality: CEL's == ignores the order of lists with x-kubernetes-list-type
// set or map, while Compare is order-sensitive; where such a list is inside
// a compared value the rule adds an element-by-element check. Numbers:
// integer and number fields are typed by the schema; int-or-string and
// preserve-unknown-fields values are compared with CEL's heterogeneous
// equality, under which 1 == 1.0 as in Compare (covered by the tests).
//
// Refused (the error names the marker): markers misplaced according to
// ValidatePlacement; x-kubernetes-key-mutability on list items or map
// values (their presence is governed by the enclosing key set); key
// mutability on nullable lists and maps; property names CEL cannot
// address; markers in a v1beta1 spec.validation schema; and rules whose
// static cost exceeds the server's budget (the error names the unbounded
// lists, maps and strings whose maxItems / maxProperties / maxLength would
// bound it).
func ToCEL(crdJSON []byte) ([]byte, error) {
	j, err := yaml.YAMLToJSON(crdJSON)
	if err != nil {
		return nil, fmt.Errorf("decoding CRD: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var crd map[string]any
	if err := d.Decode(&crd); err != nil || crd == nil {
		return nil, fmt.Errorf("decoding CRD: not a JSON object (%v)", err)
	}
	spec, _ := crd["spec"].(map[string]any)
	if spec == nil {
		return nil, fmt.Errorf("CRD has no spec")
	}
	t := &translator{}
	if val, _ := spec["validation"].(map[string]any); val != nil {
		if o, ok := val["openAPIV3Schema"].(map[string]any); ok && hasMarkers(o) {
			t.refuse("spec.validation.openAPIV3Schema", "markers in a v1beta1 spec.validation schema are not translated: move the schema to spec.versions[*].schema")
		}
	}
	versions, _ := spec["versions"].([]any)
	for i, v := range versions {
		vm, _ := v.(map[string]any)
		sch, _ := vm["schema"].(map[string]any)
		root, _ := sch["openAPIV3Schema"].(map[string]any)
		if root == nil || !hasMarkers(root) {
			continue
		}
		path := fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema", i)
		s, err := ParseSchema(root)
		if err != nil {
			return nil, err
		}
		if ps := ValidatePlacement(s, path); len(ps) > 0 {
			for _, p := range ps {
				t.refuse(p.Path, "misplaced or invalid marker: "+p.Message)
			}
			continue
		}
		t.version = i
		t.walk(root, path, "", ctx{target: root, targetPath: path, lift: identity}, true)
	}
	if len(t.errs) > 0 {
		return nil, t.err()
	}
	out, err := json.Marshal(crd)
	if err != nil {
		return nil, err
	}
	if err := t.checkServer(j, out); err != nil {
		return nil, err
	}
	return out, nil
}

// exprFn builds a boolean expression from the expressions of a node's new
// and old value.
type exprFn func(s, o string) string

func identity(r exprFn) exprFn { return r }

// ctx tells where the rules of a node go: the nearest correlatable node
// (target), and how to turn a rule on the node into a rule on the target.
type ctx struct {
	target     map[string]any
	targetPath string
	lift       func(exprFn) exprFn
	lifted     bool
	// bounds names the unbounded lists and maps from the root to the
	// node: they multiply the cost of the node's rules.
	bounds []string
}

type celRule struct {
	path      string   // schema path of the extension
	version   int      // index in spec.versions
	rulePath  string   // schema path of the x-kubernetes-validations[i]
	unbounded []string // nodes without a size bound the rule depends on
}

type translator struct {
	errs    []string
	version int
	n       int // counter for comprehension variables
	rules   []celRule
}

func (t *translator) refuse(path, why string) {
	t.errs = append(t.errs, path+": "+why)
}

func (t *translator) err() error {
	return fmt.Errorf("cannot translate to CEL exactly:\n\t%s", strings.Join(t.errs, "\n\t"))
}

func (t *translator) v(prefix string) string {
	t.n++
	return fmt.Sprintf("%s%d", prefix, t.n)
}

func hasMarkers(raw map[string]any) bool {
	found := false
	var rec func(v any)
	rec = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == MutabilityExtension || k == KeyMutabilityExtension {
					found = true
				}
				rec(e)
			}
		case []any:
			for _, e := range x {
				rec(e)
			}
		}
	}
	rec(raw)
	return found
}

func str(raw map[string]any, k string) string { s, _ := raw[k].(string); return s }

func isArray(raw map[string]any) bool {
	_, items := raw["items"].(map[string]any)
	return str(raw, "type") == "array" || (str(raw, "type") == "" && items)
}

func isMap(raw map[string]any) bool {
	if t := str(raw, "type"); t != "object" && t != "" {
		return false
	}
	switch ap := raw["additionalProperties"].(type) {
	case map[string]any:
		return true
	case bool:
		return ap
	}
	return false
}

func listMapKeys(raw map[string]any) []string {
	var ks []string
	l, _ := raw["x-kubernetes-list-map-keys"].([]any)
	for _, k := range l {
		s, _ := k.(string)
		ks = append(ks, s)
	}
	return ks
}

// keyed reports whether raw or anything below it (its compared subtree) is
// a list of type set or map, whose CEL equality ignores order.
func keyed(raw map[string]any) bool {
	if raw == nil {
		return false
	}
	if isArray(raw) {
		if lt := str(raw, "x-kubernetes-list-type"); lt == "set" || lt == "map" {
			return true
		}
	}
	if it, _ := raw["items"].(map[string]any); keyed(it) {
		return true
	}
	if ap, _ := raw["additionalProperties"].(map[string]any); keyed(ap) {
		return true
	}
	props, _ := raw["properties"].(map[string]any)
	for _, p := range props {
		if pm, _ := p.(map[string]any); keyed(pm) {
			return true
		}
	}
	return false
}

// field returns the CEL selection of property name, or an error.
func celField(name string) (string, error) {
	e, ok := engine.EscapeProperty(name)
	if !ok {
		return "", fmt.Errorf("property name %q cannot be addressed in CEL", name)
	}
	return "." + e, nil
}

// strict is Compare's equality of a and b (values of schema raw) in CEL:
// == plus element order for set and map lists anywhere inside.
func (t *translator) strict(a, b string, raw map[string]any) (string, error) {
	if p := nonScalarSet(raw, ""); p != "" {
		// The server's CEL compares x-kubernetes-list-type: set lists as
		// sets, which it supports only for scalar items: == on such a
		// value fails at run time on every update.
		return "", fmt.Errorf("CEL cannot compare a value containing a set of objects or arrays (x-kubernetes-list-type: set at %s); make that list atomic or a list-type map", p)
	}
	if !keyed(raw) {
		return a + " == " + b, nil
	}
	r, err := t.refine(a, b, raw)
	if err != nil {
		return "", err
	}
	return "(" + a + " == " + b + " && " + r + ")", nil
}

// refine checks, given a == b in CEL, that a and b are also equal in
// order.
func (t *translator) refine(a, b string, raw map[string]any) (string, error) {
	var parts []string
	if isArray(raw) {
		items, _ := raw["items"].(map[string]any)
		i, x := t.v("i"), t.v("x")
		var cond string
		lt := str(raw, "x-kubernetes-list-type")
		switch {
		case lt == "set" || lt == "map":
			c, err := t.strict(x, b+"["+i+"]", items)
			if err != nil {
				return "", err
			}
			cond = c
		case keyed(items):
			c, err := t.refine(x, b+"["+i+"]", items)
			if err != nil {
				return "", err
			}
			cond = c
		}
		if cond != "" {
			parts = append(parts, fmt.Sprintf("%s.all(%s, %s, %s)", a, i, x, cond))
		}
	}
	if ap, _ := raw["additionalProperties"].(map[string]any); keyed(ap) {
		k := t.v("k")
		c, err := t.refine(a+"["+k+"]", b+"["+k+"]", ap)
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("%s.all(%s, %s)", a, k, c))
	}
	props, _ := raw["properties"].(map[string]any)
	for _, name := range sortedKeys(props) {
		pm, _ := props[name].(map[string]any)
		if !keyed(pm) {
			continue
		}
		f, err := celField(name)
		if err != nil {
			return "", err
		}
		c, err := t.refine(a+f, b+f, pm)
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("(!has(%s%s) || %s)", a, f, c))
	}
	if len(parts) == 0 {
		return "true", nil
	}
	return strings.Join(parts, " && "), nil
}

// walk visits a schema node. c is the node's own rule context; parent
// rules (for properties) are emitted by the parent. droppable tells
// whether markers here have an effect (false below set items).
func (t *translator) walk(raw map[string]any, path, data string, c ctx, effective bool) {
	props, _ := raw["properties"].(map[string]any)
	for _, name := range sortedKeys(props) {
		pm, _ := props[name].(map[string]any)
		if pm == nil {
			continue
		}
		pp := path + ".properties[" + name + "]"
		pd := join(data, name)
		if effective {
			t.propertyMarkers(raw, name, pm, pp, pd, c)
		}
		delete(pm, MutabilityExtension)
		delete(pm, KeyMutabilityExtension)
		cc := c
		if c.lifted {
			f, err := celField(name)
			if err != nil {
				if hasMarkers(pm) {
					t.refuse(pp, err.Error()+" (needed to lift the rules of markers below it)")
				}
				continue
			}
			outer := c.lift
			cc = ctx{target: c.target, targetPath: c.targetPath, lifted: true, bounds: c.bounds, lift: func(r exprFn) exprFn {
				return outer(func(s, o string) string {
					return fmt.Sprintf("(!has(%s%s) || !has(%s%s) || (%s))", s, f, o, f, r(s+f, o+f))
				})
			}}
		} else {
			cc = ctx{target: pm, targetPath: pp, lift: identity, bounds: c.bounds}
		}
		t.walk(pm, pp, pd, cc, effective)
	}
	if items, _ := raw["items"].(map[string]any); items != nil {
		ip := path + ".items"
		id := data + "[*]"
		lt := str(raw, "x-kubernetes-list-type")
		eff := effective && lt != "set"
		cc := t.itemCtx(raw, items, lt, c, ip)
		cc.bounds = append(append([]string{}, c.bounds...), unboundedAt(raw, data)...)
		if eff {
			t.itemMarkers(items, ip, id, cc)
		}
		delete(items, MutabilityExtension)
		delete(items, KeyMutabilityExtension)
		t.walk(items, ip, id, cc, eff)
	}
	if ap, _ := raw["additionalProperties"].(map[string]any); ap != nil {
		app := path + ".additionalProperties"
		ad := data + "[*]"
		var cc ctx
		if c.lifted {
			outer := c.lift
			k := t.v("k")
			cc = ctx{target: c.target, targetPath: c.targetPath, lifted: true, lift: func(r exprFn) exprFn {
				return outer(func(s, o string) string {
					return fmt.Sprintf("%s.all(%s, !(%s in %s) || (%s))", s, k, k, o, r(s+"["+k+"]", o+"["+k+"]"))
				})
			}}
		} else {
			cc = ctx{target: ap, targetPath: app, lift: identity}
		}
		cc.bounds = append(append([]string{}, c.bounds...), unboundedAt(raw, data)...)
		if effective {
			t.itemMarkers(ap, app, ad, cc)
		}
		delete(ap, MutabilityExtension)
		delete(ap, KeyMutabilityExtension)
		t.walk(ap, app, ad, cc, effective)
	}
}

// itemCtx is the rule context of the items of list raw.
func (t *translator) itemCtx(raw, items map[string]any, lt string, c ctx, ip string) ctx {
	if lt == "map" {
		if !c.lifted {
			return ctx{target: items, targetPath: ip, lift: identity}
		}
		keq := t.keyEq(listMapKeys(raw))
		outer := c.lift
		x, y := t.v("x"), t.v("y")
		return ctx{target: c.target, targetPath: c.targetPath, lifted: true, lift: func(r exprFn) exprFn {
			return outer(func(s, o string) string {
				return fmt.Sprintf("%s.all(%s, %s.all(%s, !(%s) || (%s)))", s, x, o, y, keq(x, y), r(x, y))
			})
		}}
	}
	outer := c.lift
	i, x := t.v("i"), t.v("x")
	return ctx{target: c.target, targetPath: c.targetPath, lifted: true, lift: func(r exprFn) exprFn {
		return outer(func(s, o string) string {
			return fmt.Sprintf("%s.all(%s, %s, %s >= size(%s) || (%s))", s, i, x, i, o, r(x, o+"["+i+"]"))
		})
	}}
}

// keyEq compares the list-map keys of two items.
func (t *translator) keyEq(keys []string) func(x, y string) string {
	return func(x, y string) string {
		var parts []string
		for _, k := range keys {
			f, err := celField(k)
			if err != nil {
				f = ".<invalid>"
			}
			parts = append(parts, x+f+" == "+y+f)
		}
		if len(parts) == 0 {
			return "true"
		}
		return strings.Join(parts, " && ")
	}
}

// add appends a rule built by r on the node governed by c.
func (t *translator) add(c ctx, r exprFn, msg, markerPath string, unbounded []string) {
	rule := c.lift(r)("self", "oldSelf")
	l, _ := c.target["x-kubernetes-validations"].([]any)
	c.target["x-kubernetes-validations"] = append(l, map[string]any{"rule": rule, "message": msg})
	t.rules = append(t.rules, celRule{
		path:      markerPath,
		version:   t.version,
		rulePath:  fmt.Sprintf("%s.x-kubernetes-validations[%d]", c.targetPath, len(l)),
		unbounded: append(append([]string{}, c.bounds...), unbounded...),
	})
}

func markerValue(raw map[string]any, ext string) (string, bool) {
	v, ok := raw[ext].(string)
	return v, ok && supported(v)
}

// propertyMarkers emits the rules of the markers on property name (schema
// pm) of object parent, on the parent.
func (t *translator) propertyMarkers(parent map[string]any, name string, pm map[string]any, pp, pd string, c ctx) {
	m, hasM := markerValue(pm, MutabilityExtension)
	k, hasK := markerValue(pm, KeyMutabilityExtension)
	if !hasM && !hasK {
		return
	}
	f, err := celField(name)
	if err != nil {
		t.refuse(pp, err.Error())
		return
	}
	if hasM {
		mp := pp + "." + MutabilityExtension
		probe, err := t.strict("a", "b", pm)
		if err != nil {
			t.refuse(mp, err.Error())
		} else {
			_ = probe
			r := func(s, o string) string {
				eq, _ := t.strict(s+f, o+f, pm)
				hs, ho := "has("+s+f+")", "has("+o+f+")"
				switch m {
				case Immutable:
					return fmt.Sprintf("%s == %s && (!%s || %s)", hs, ho, hs, eq)
				case AddOnly:
					return fmt.Sprintf("!%s || (%s && %s)", ho, hs, eq)
				default:
					return fmt.Sprintf("!%s || (%s && %s)", hs, ho, eq)
				}
			}
			msg := map[string]string{
				Immutable:  pd + " is immutable",
				AddOnly:    pd + " may only be added, not removed or changed",
				RemoveOnly: pd + " may only be removed, not added or changed",
			}[m]
			t.add(c, r, msg, mp, unboundedBelow(pm, pd))
		}
	}
	if hasK {
		kp := pp + "." + KeyMutabilityExtension
		if b, _ := pm["nullable"].(bool); b {
			t.refuse(kp, "nullable lists and maps are not translated (null has no keys, CEL cannot iterate it)")
			return
		}
		noAdd, noRemove, unb, err := t.keyRules(pm, f, pd)
		if err != nil {
			t.refuse(kp, err.Error())
			return
		}
		var r exprFn
		switch k {
		case Immutable:
			r = func(s, o string) string { return noAdd(s, o) + " && " + noRemove(s, o) }
		case AddOnly:
			r = noRemove
		default:
			r = noAdd
		}
		msg := map[string]string{
			Immutable:  "the keys of " + pd + " are immutable",
			AddOnly:    "keys may only be added to " + pd + ", not removed",
			RemoveOnly: "keys may only be removed from " + pd + ", not added",
		}[k]
		t.add(c, r, msg, kp, unb)
	}
}

// keyRules returns the conditions "no key added" and "no key removed" for
// the list or map property f (schema pm) of an object whose new and old
// values are s and o; an absent property has no keys.
func (t *translator) keyRules(pm map[string]any, f, pd string) (noAdd, noRemove exprFn, unbounded []string, err error) {
	// sub(a, b, x) says "the keys of a are all in b", with a and b the
	// objects, and the property possibly absent.
	var in func(a, b string) string
	unbounded = unboundedAt(pm, pd)
	switch {
	case isMap(pm):
		k := t.v("k")
		in = func(a, b string) string {
			return fmt.Sprintf("!has(%s%s) || %s%s.all(%s, has(%s%s) && %s in %s%s)", a, f, a, f, k, b, f, k, b, f)
		}
	case isArray(pm):
		items, _ := pm["items"].(map[string]any)
		switch str(pm, "x-kubernetes-list-type") {
		case "set":
			x, y := t.v("x"), t.v("y")
			eq, err := t.strict(x, y, items)
			if err != nil {
				return nil, nil, nil, err
			}
			unbounded = append(unbounded, unboundedBelow(items, pd+"[*]")...)
			in = func(a, b string) string {
				if !keyed(items) {
					return fmt.Sprintf("!has(%s%s) || %s%s.all(%s, has(%s%s) && %s in %s%s)", a, f, a, f, x, b, f, x, b, f)
				}
				return fmt.Sprintf("!has(%s%s) || %s%s.all(%s, has(%s%s) && %s%s.exists(%s, %s))", a, f, a, f, x, b, f, b, f, y, eq)
			}
		case "map":
			keys := listMapKeys(pm)
			props, _ := items["properties"].(map[string]any)
			for _, k := range keys {
				if _, err := celField(k); err != nil {
					return nil, nil, nil, err
				}
				km, _ := props[k].(map[string]any)
				unbounded = append(unbounded, unboundedAt(km, pd+"[*]."+k)...)
			}
			x, y := t.v("x"), t.v("y")
			keq := t.keyEq(keys)(x, y)
			in = func(a, b string) string {
				return fmt.Sprintf("!has(%s%s) || %s%s.all(%s, has(%s%s) && %s%s.exists(%s, %s))", a, f, a, f, x, b, f, b, f, y, keq)
			}
		default:
			// Keys are indices: only the lengths count.
			size := func(a string) string { return fmt.Sprintf("(has(%s%s) ? size(%s%s) : 0)", a, f, a, f) }
			return func(s, o string) string { return size(s) + " <= " + size(o) },
				func(s, o string) string { return size(s) + " >= " + size(o) }, nil, nil
		}
	default:
		return nil, nil, nil, fmt.Errorf("not a list or a map")
	}
	return func(s, o string) string { return "(" + in(s, o) + ")" },
		func(s, o string) string { return "(" + in(o, s) + ")" }, unbounded, nil
}

// itemMarkers emits the rules of the markers on list items or map values.
func (t *translator) itemMarkers(raw map[string]any, path, data string, c ctx) {
	if _, ok := markerValue(raw, KeyMutabilityExtension); ok {
		t.refuse(path+"."+KeyMutabilityExtension, "x-kubernetes-key-mutability on list items or map values is not translated (whether an item may come and go with its keys depends on the enclosing list's or map's key set)")
	}
	m, ok := markerValue(raw, MutabilityExtension)
	if !ok {
		return
	}
	mp := path + "." + MutabilityExtension
	if _, err := t.strict("a", "b", raw); err != nil {
		t.refuse(mp, err.Error())
		return
	}
	r := func(s, o string) string {
		eq, _ := t.strict(s, o, raw)
		return eq
	}
	msg := "the items of " + strings.TrimSuffix(data, "[*]") + " must not change (" + MutabilityExtension + ": " + m + ")"
	t.add(c, r, msg, mp, unboundedBelow(raw, data))
}

// unboundedAt names the size bound missing on raw itself.
func unboundedAt(raw map[string]any, data string) []string {
	if raw == nil {
		return nil
	}
	switch {
	case isArray(raw):
		if _, ok := raw["maxItems"]; !ok {
			return []string{data + " (maxItems)"}
		}
	case isMap(raw):
		if _, ok := raw["maxProperties"]; !ok {
			return []string{data + " (maxProperties)"}
		}
	case str(raw, "type") == "string":
		if _, ok := raw["maxLength"]; !ok {
			if _, ok := raw["enum"]; !ok {
				return []string{data + " (maxLength)"}
			}
		}
	}
	return nil
}

// unboundedBelow names the missing size bounds of raw and its subtree.
func unboundedBelow(raw map[string]any, data string) []string {
	if raw == nil {
		return nil
	}
	out := unboundedAt(raw, data)
	props, _ := raw["properties"].(map[string]any)
	for _, name := range sortedKeys(props) {
		pm, _ := props[name].(map[string]any)
		out = append(out, unboundedBelow(pm, join(data, name))...)
	}
	if it, _ := raw["items"].(map[string]any); it != nil {
		out = append(out, unboundedBelow(it, data+"[*]")...)
	}
	if ap, _ := raw["additionalProperties"].(map[string]any); ap != nil {
		out = append(out, unboundedBelow(ap, data+"[*]")...)
	}
	return out
}

// serverErrors runs the server's CRD validation (a create) on a v1 CRD.
func serverErrors(js []byte) (field.ErrorList, error) {
	v := crd.Decode(js).Verdict(nil)
	if v.DecodeError != nil {
		return nil, v.DecodeError
	}
	if v.Panic != "" {
		return nil, fmt.Errorf("the server's CRD validation panicked: %v", v.Panic)
	}
	return v.Errors, nil
}

// checkServer validates the translated CRD as the server would and maps
// the errors the translation introduced back to the markers.
func (t *translator) checkServer(in, out []byte) error {
	before, err := serverErrors(in)
	if err != nil {
		return err
	}
	after, err := serverErrors(out)
	if err != nil {
		return err
	}
	old := map[string]bool{}
	for _, e := range before {
		old[e.Error()] = true
	}
	for _, e := range after {
		if old[e.Error()] {
			continue
		}
		found := false
		for _, r := range t.rules {
			// With identical schemas in all versions the internal CRD
			// holds one spec.validation schema: map it back.
			f := e.Field
			if rest, ok := strings.CutPrefix(f, "spec.validation.openAPIV3Schema"); ok {
				f = fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema", r.version) + rest
			}
			if strings.HasPrefix(f, r.rulePath+".") || f == r.rulePath {
				if !strings.Contains(e.Detail, "contributed to") {
					t.refuse(r.path, ruleProblem(e, r.unbounded))
				}
				found = true
			}
		}
		if !found {
			var names []string
			prefix := ""
			if strings.Contains(e.Detail, "cost") {
				// The total cost of a version's schema: name every
				// marker of the version.
				prefix = "the rules of all markers together: "
				for _, r := range t.rules {
					if strings.HasPrefix(e.Field, fmt.Sprintf("spec.versions[%d]", r.version)) || strings.HasPrefix(e.Field, "spec.validation") {
						names = append(names, r.path)
					}
				}
			}
			msg := "the translated CRD is rejected by the server: " + e.Error()
			if len(names) > 0 {
				msg = prefix + e.ErrorBody() + "; markers: " + strings.Join(names, ", ") + "; bound their lists, maps and strings (maxItems, maxProperties, maxLength)"
			}
			t.refuse(e.Field, msg)
		}
	}
	if len(t.errs) > 0 {
		sort.Strings(t.errs)
		return t.err()
	}
	return nil
}

func ruleProblem(e *field.Error, unbounded []string) string {
	msg := "the generated rule is rejected by the server: " + e.ErrorBody()
	if strings.Contains(e.Detail, "cost") {
		msg = "the generated rule exceeds the server's CEL cost budget (" + e.Detail + ")"
		if len(unbounded) > 0 {
			msg += "; bound these to fix it: " + strings.Join(unbounded, ", ")
		} else {
			msg += "; bound the enclosing lists and maps (maxItems / maxProperties) to fix it"
		}
	}
	return msg
}

// nonScalarSet finds a list-type set with object or array items in a
// schema, returning its relative path ("." for the node itself).
func nonScalarSet(raw map[string]any, path string) string {
	if raw == nil {
		return ""
	}
	items, _ := raw["items"].(map[string]any)
	if isArray(raw) && str(raw, "x-kubernetes-list-type") == "set" && items != nil {
		if it := str(items, "type"); it == "object" || it == "array" {
			if path == "" {
				return "."
			}
			return path
		}
	}
	if p := nonScalarSet(items, path+"[*]"); p != "" {
		return p
	}
	if ap, _ := raw["additionalProperties"].(map[string]any); ap != nil {
		if p := nonScalarSet(ap, path+"[*]"); p != "" {
			return p
		}
	}
	props, _ := raw["properties"].(map[string]any)
	for _, name := range sortedKeys(props) {
		pm, _ := props[name].(map[string]any)
		if p := nonScalarSet(pm, path+"."+name); p != "" {
			return p
		}
	}
	return ""
}
