package engine

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestCELCostsFromInternal checks that the costs check computes from the
// CRD ValidateCRD already converted are those CELCosts computes from the
// v1 CRD, for every corpus CRD (one schema per version, or one shared
// schema the conversion moves to spec.validation).
func TestCELCostsFromInternal(t *testing.T) {
	compared, shared := 0, 0
	cache := NewCostCache() // shared, as a run shares it
	for _, p := range testutil.Files(t, "crds") {
		f, err := source.Read(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Documents {
			if !isCRD(d) {
				continue
			}
			def := decode(d.JSON)
			if def.V1 == nil {
				continue
			}
			v := struct {
				V1       *apiextensionsv1.CustomResourceDefinition
				Internal *apiextensions.CustomResourceDefinition
			}{def.V1, internalOf(t, def.V1)}
			want, got := CELCosts(v.V1, nil), celCosts(v.V1, v.Internal, cache)
			if vd := def.Verdict(NewCostCache()); vd.Accepted() && !reflect.DeepEqual(vd.Costs, got) {
				t.Fatalf("%s: costs in the verdict\n%+v\nfrom the internal CRD\n%+v", p, vd.Costs, got)
			}
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("%s: costs from the internal CRD\n%+v\nfrom the v1 CRD\n%+v", p, got, want)
			}
			if each := costsOfEachVersion(t, v.V1); !reflect.DeepEqual(each, got) {
				t.Fatalf("%s: costs with identical versions compiled once\n%+v\nwith every version compiled\n%+v", p, got, each)
			}
			for _, c := range got {
				if c.Version != v.V1.Spec.Versions[0].Name {
					shared++
					break
				}
			}
			compared += len(want)
		}
	}
	if compared < 100 {
		t.Fatalf("only %d costs compared", compared)
	}
	if shared < 5 {
		t.Fatalf("only %d CRDs with rules in more than one version: the reuse of identical schemas is not exercised", shared)
	}
	if cache.hits.Load() < 50 {
		t.Fatalf("only %d compilations reused: the cache is not exercised", cache.hits.Load())
	}
	t.Logf("%d costs compared, %d CRDs with rules in several versions, %d of %d rule nodes' compilations reused", compared, shared, cache.hits.Load(), int(cache.hits.Load())+cacheLen(cache))
}

// costsOfEachVersion compiles every version's schema on its own, converted
// from v1, as the server's validation does: the reference for celCosts'
// reuse of identical schemas.
func costsOfEachVersion(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) []CELCost {
	out, ok := eachVersionCosts(crd)
	if !ok {
		t.Fatal("a version's schema does not convert")
	}
	return out
}

// TestCELCostsPlaced: a node at a resource's root, under its type and
// object metadata, or anywhere below those, has a CEL type of its own
// place, so its estimates are not shared with a node of the same content
// elsewhere: each case has two such nodes whose costs must differ, and
// all costs must equal compiling every version alone.
func TestCELCostsPlaced(t *testing.T) {
	const head = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
`
	tests := []struct {
		name string
		// spec's properties, at its indentation.
		props string
		// two rules (fields below spec) that must cost differently.
		a, b string
	}{{
		// The embedded resource's metadata.name is capped at 253
		// characters for CEL; the same type elsewhere is not.
		name: "embedded metadata",
		props: `              meta:
                type: object
                properties: {name: {type: string}}
                x-kubernetes-validations: [{rule: "self.name.matches('^a')"}]
              list:
                type: array
                items:
                  type: object
                  properties: {name: {type: string}}
                  x-kubernetes-validations: [{rule: "self.name.matches('^a')"}]
              embedded:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-validations: [{rule: "has(self.metadata)"}]
                properties:
                  metadata:
                    type: object
                    properties: {name: {type: string}}
                    x-kubernetes-validations: [{rule: "self.name.matches('^a')"}]
`,
		a: ".properties[meta].x-kubernetes-validations[0].rule",
		b: ".properties[embedded].properties[metadata].x-kubernetes-validations[0].rule",
	}, {
		// Below a placed node everything is placed, an embedded resource
		// there included. The server refuses this CRD (an embedded
		// resource inside resource metadata), but `check --cel-costs`
		// still prints its costs.
		name: "below placed",
		props: `              plain:
                type: object
                properties:
                  name: {type: string, x-kubernetes-validations: [{rule: "self.matches('^a')"}]}
              nested:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-validations: [{rule: "has(self.metadata)"}]
                properties:
                  metadata:
                    type: object
                    x-kubernetes-embedded-resource: true
                    properties:
                      name: {type: string, x-kubernetes-validations: [{rule: "self.matches('^a')"}]}
`,
		a: ".properties[plain].properties[name].x-kubernetes-validations[0].rule",
		b: ".properties[nested].properties[metadata].properties[name].x-kubernetes-validations[0].rule",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := source.Parse(tt.name+".yaml", []byte(head+tt.props))
			def := decode(f.Documents[0].JSON)
			if def.V1 == nil {
				t.Fatalf("not decoded: %v", def.DecodeError)
			}
			got := celCosts(def.V1, internalOf(t, def.V1), NewCostCache())
			v := def
			if want := costsOfEachVersion(t, v.V1); !reflect.DeepEqual(got, want) {
				t.Fatalf("with the cache\n%+v\nwithout\n%+v", got, want)
			}
			costs := map[string]uint64{}
			for _, c := range got {
				costs[c.Field[strings.LastIndex(c.Field, "properties[spec]")+len("properties[spec]"):]] = c.Cost
			}
			if a, b := costs[tt.a], costs[tt.b]; a == 0 || b == 0 || a == b {
				t.Fatalf("want %s and %s to cost differently: %+v", tt.a, tt.b, got)
			}
		})
	}
}

// internalOf converts a v1 CRD as the server's validation does.
func internalOf(t *testing.T, v1 *apiextensionsv1.CustomResourceDefinition) *apiextensions.CustomResourceDefinition {
	t.Helper()
	in := &apiextensions.CustomResourceDefinition{}
	if err := scheme.Convert(v1, in, nil); err != nil {
		t.Fatal(err)
	}
	return in
}

func cacheLen(c *CostCache) int {
	n := 0
	for _, b := range c.m {
		n += len(b)
	}
	return n
}
