package immutable

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// gen builds random schemas with random marker placements and random
// objects for them.
type gen struct{ r *rand.Rand }

func (g gen) marker() (string, bool) {
	switch g.r.IntN(8) {
	case 0:
		return Immutable, true
	case 1:
		return AddOnly, true
	case 2:
		return RemoveOnly, true
	case 3:
		return "Bogus", true
	}
	return "", false
}

func (g gen) schema(depth int) *Schema {
	s := &Schema{}
	kind := g.r.IntN(10)
	if depth <= 0 {
		kind = g.r.IntN(4)
	}
	switch kind {
	case 0:
		s.Type = "string"
	case 1:
		s.Type = "integer"
	case 2:
		s.Type = "number"
	case 3:
		s.Type = "boolean"
	case 4, 5:
		s.Type = "object"
		s.Properties = map[string]*Schema{}
		for i := range 1 + g.r.IntN(3) {
			s.Properties[fmt.Sprintf("p%d", i)] = g.schema(depth - 1)
		}
		if g.r.IntN(4) == 0 {
			s.AdditionalProperties = g.schema(depth - 1)
		}
	case 6:
		s.Type = "object"
		s.AdditionalProperties = g.schema(depth - 1)
		s.MapType = []string{"", "granular", "atomic"}[g.r.IntN(3)]
	case 7:
		s.Type = "array"
		s.ListType = []string{"", "atomic"}[g.r.IntN(2)]
		s.Items = g.schema(depth - 1)
	case 8:
		s.Type = "array"
		s.ListType = "map"
		s.ListMapKeys = []string{"p0"}
		if g.r.IntN(2) == 0 {
			s.ListMapKeys = append(s.ListMapKeys, "p1")
		}
		s.Items = &Schema{Type: "object", Properties: map[string]*Schema{
			"p0": {Type: "string"}, "p1": {Type: "integer"}, "p2": g.schema(depth - 1),
		}}
	case 9:
		s.Type = "array"
		s.ListType = "set"
		s.Items = g.schema(depth - 1)
	}
	s.Mutability, s.HasMutability = g.marker()
	s.KeyMutability, s.HasKeyMutability = g.marker()
	return s
}

func (g gen) value(s *Schema, depth int) any {
	switch g.r.IntN(12) {
	case 0:
		return nil
	case 1:
		return []any{"x", int64(1)} // a value of the wrong type
	}
	switch {
	case s.Type == "string":
		return []string{"a", "b", "c"}[g.r.IntN(3)]
	case s.Type == "integer":
		return int64(g.r.IntN(3))
	case s.Type == "number":
		return []any{int64(1), float64(1), 1.5, float64(2)}[g.r.IntN(4)]
	case s.Type == "boolean":
		return g.r.IntN(2) == 0
	case s.Type == "object":
		m := map[string]any{}
		for name, p := range s.Properties {
			if g.r.IntN(3) > 0 {
				m[name] = g.value(p, depth-1)
			}
		}
		if s.AdditionalProperties != nil {
			for range g.r.IntN(3) {
				m[[]string{"x", "y", "z", "p0"}[g.r.IntN(4)]] = g.value(s.AdditionalProperties, depth-1)
			}
		}
		return m
	case s.Type == "array":
		var l []any
		for range g.r.IntN(4) {
			l = append(l, g.value(s.Items, depth-1))
		}
		if l == nil && g.r.IntN(2) == 0 {
			l = []any{}
		}
		return l
	}
	return "?"
}

func deepCopy(v any, floats bool) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopy(e, floats)
		}
		return m
	case []any:
		if t == nil {
			return t
		}
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = deepCopy(e, floats)
		}
		return l
	case int64:
		if floats {
			return float64(t)
		}
	}
	return v
}

func FuzzCompare(f *testing.F) {
	for i := range 20 {
		f.Add(uint64(i), uint64(i*7919), uint8(3))
	}
	f.Fuzz(func(t *testing.T, seed1, seed2 uint64, depth uint8) {
		g := gen{rand.New(rand.NewPCG(seed1, seed2))}
		d := int(depth % 5)
		s := &Schema{Type: "object", Properties: map[string]*Schema{"spec": g.schema(d)}}
		x := map[string]any{"spec": g.value(s.Properties["spec"], d)}
		y := map[string]any{"spec": g.value(s.Properties["spec"], d)}
		if got := Compare(s, x, x); len(got) != 0 {
			t.Fatalf("Compare(s, x, x): got %s, want none\nx=%#v", violations(got), x)
		}
		if got := Compare(s, x, deepCopy(x, false)); len(got) != 0 {
			t.Fatalf("Compare(s, x, copy of x): got %s, want none\nx=%#v", violations(got), x)
		}
		if got := Compare(s, x, deepCopy(x, true)); len(got) != 0 {
			t.Fatalf("Compare(s, x, x with float64 numbers): got %s, want none\nx=%#v", violations(got), x)
		}
		for _, v := range slices.Concat(Compare(s, x, y), Compare(s, y, x), Compare(s, nil, y), Compare(s, x, "z")) {
			if v.Rule != MutabilityExtension && v.Rule != KeyMutabilityExtension || !supported(v.Value) || v.Message == "" || v.Path == "" {
				t.Fatalf("got malformed violation %+v", v)
			}
		}
		_ = ValidatePlacement(s, "")
		if got := Compare(nil, x, y); got != nil {
			t.Fatalf("Compare(nil, ...): got %s, want none", violations(got))
		}
	})
}

// TestNoMarkersNoViolations: without markers nothing is ever refused.
func TestNoMarkersNoViolations(t *testing.T) {
	var strip func(*Schema)
	strip = func(s *Schema) {
		if s == nil {
			return
		}
		s.Mutability, s.HasMutability, s.KeyMutability, s.HasKeyMutability = "", false, "", false
		for _, p := range s.Properties {
			strip(p)
		}
		strip(s.Items)
		strip(s.AdditionalProperties)
	}
	for i := range 500 {
		g := gen{rand.New(rand.NewPCG(uint64(i), 1))}
		s := &Schema{Type: "object", Properties: map[string]*Schema{"spec": g.schema(3)}}
		strip(s)
		x := map[string]any{"spec": g.value(s.Properties["spec"], 3)}
		y := map[string]any{"spec": g.value(s.Properties["spec"], 3)}
		if got := Compare(s, x, y); len(got) != 0 {
			t.Fatalf("seed %d: got %s, want none", i, violations(got))
		}
	}
}
