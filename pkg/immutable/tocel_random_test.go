package immutable

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"sigs.k8s.io/yaml"
)

// rawSchema renders a generated Schema as CRD schema YAML, with what the
// server requires of list-map keys (required) and set items (atomic).
func rawSchema(s *Schema) map[string]any {
	m := map[string]any{"type": s.Type}
	if len(s.Properties) > 0 {
		props := map[string]any{}
		for n, p := range s.Properties {
			props[n] = rawSchema(p)
		}
		m["properties"] = props
	}
	if s.AdditionalProperties != nil {
		m["additionalProperties"] = rawSchema(s.AdditionalProperties)
	}
	if s.MapType != "" {
		m["x-kubernetes-map-type"] = s.MapType
	}
	if s.Items != nil {
		it := rawSchema(s.Items)
		if s.ListType == "set" {
			if s.Items.Type == "object" {
				it["x-kubernetes-map-type"] = "atomic"
			}
			if s.Items.Type == "array" {
				it["x-kubernetes-list-type"] = "atomic"
			}
		}
		if s.ListType == "map" {
			keys := []any{}
			for _, k := range s.ListMapKeys {
				keys = append(keys, k)
			}
			it["required"] = keys
			m["x-kubernetes-list-map-keys"] = keys
		}
		m["items"] = it
	}
	if s.ListType != "" {
		m["x-kubernetes-list-type"] = s.ListType
	}
	if s.HasMutability {
		m[MutabilityExtension] = s.Mutability
	}
	if s.HasKeyMutability {
		m[KeyMutabilityExtension] = s.KeyMutability
	}
	return m
}

// FuzzToCELRandomPlacements translates random schemas with random marker
// placements: ToCEL either refuses (naming markers, never a weaker rule)
// or produces a CRD the server accepts and that refuses exactly the
// updates Compare refuses, for random objects the server accepts.
func FuzzToCELRandomPlacements(f *testing.F) {
	for i := uint64(0); i < 16; i++ {
		f.Add(i)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { randomPlacement(t, seed) })
}

// TestToCELRandomPlacements runs the fuzz body over fixed seeds and checks
// that it is not vacuous: schemas get translated and updates compared.
func TestToCELRandomPlacements(t *testing.T) {
	var translated, compared, refused int
	for seed := uint64(0); seed < 1500; seed++ {
		tr, c := randomPlacement(t, seed)
		if tr {
			translated++
		} else {
			refused++
		}
		compared += c
	}
	if translated < 50 || compared < 300 {
		t.Fatalf("vacuous: %d schemas translated, %d refused, %d updates compared", translated, refused, compared)
	}
	fmt.Fprintf(os.Stderr, "to-cel random placements: 1500 schemas, %d translated, %d refused by ToCEL or invalid CRDs, %d updates compared, all agree\n", translated, refused, compared)
}

func randomPlacement(t *testing.T, seed uint64) (translated bool, compared int) {
	{
		g := gen{rand.New(rand.NewPCG(seed, seed^0x5eed))}
		// The Widget's spec: an object (markers are forbidden at the
		// root, and the parent of a marked field must be an object).
		s := &Schema{Type: "object", Properties: map[string]*Schema{"p0": g.schema(3), "p1": g.schema(2)}}
		y, err := yaml.Marshal(rawSchema(s))
		if err != nil {
			t.Fatal(err)
		}
		in := widgetCRD(t, bounded(t, string(y)))
		// A CRD the server refuses anyway says nothing about ToCEL.
		if len(serverValidateCRD(t, stripMarkers(t, in))) > 0 {
			return false, 0
		}
		d, err := newDiffer(t, in)
		if err != nil {
			return false, 0 // refused: an error, never a weaker rule
		}
		for range 10 {
			old := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
				"metadata": map[string]any{"name": "w", "namespace": "ns"}, "spec": g.value(s, 3)}
			new := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
				"metadata": map[string]any{"name": "w", "namespace": "ns"}, "spec": g.value(s, 3)}
			if g.r.IntN(2) == 0 {
				new["spec"] = deepCopy(old["spec"], false)
			}
			// Only objects the server accepts on create say anything
			// about immutability.
			if len(d.v.Create(celDeepCopy(old).(map[string]any), "ns").Errors) > 0 ||
				len(d.v.Create(celDeepCopy(new).(map[string]any), "ns").Errors) > 0 {
				continue
			}
			if ok, detail := d.check(t, old, new); !ok {
				a, _ := json.Marshal(old["spec"])
				b, _ := json.Marshal(new["spec"])
				t.Fatalf("seed %d, schema:\n%s\n%s -> %s: disagree: %s", seed, y, a, b, detail)
			}
			compared++
		}
		return true, compared
	}
}

// stripMarkers removes the markers, which the server drops anyway, so that
// the server's verdict on the rest of the CRD can be asked.
func stripMarkers(t *testing.T, js []byte) []byte {
	var m any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	var rec func(v any)
	rec = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, MutabilityExtension)
			delete(x, KeyMutabilityExtension)
			for _, e := range x {
				rec(e)
			}
		case []any:
			for _, e := range x {
				rec(e)
			}
		}
	}
	rec(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
