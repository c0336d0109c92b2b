package crd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
)

var widgetCRD = testutil.WidgetCRD

// accepted and rejected are Definitions whose verdict is known, so that
// catalogue tests do not depend on what validation says of a sketch.
func accepted(c *apiextensionsv1.CustomResourceDefinition) *Definition {
	return &Definition{v1: c, verdict: &engine.CRDVerdict{}}
}

func rejected(c *apiextensionsv1.CustomResourceDefinition) *Definition {
	return &Definition{v1: c, verdict: &engine.CRDVerdict{Errors: field.ErrorList{field.Invalid(field.NewPath("spec"), "", "bad")}}}
}

func widgetGVK(version string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "example.com", Version: version, Kind: "Widget"}
}

func TestLookup(t *testing.T) {
	cat := NewCatalog(false)
	cat.Add(accepted(widgetCRD(
		apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1", Served: true, Storage: true},
		apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1beta1", Served: false},
	)), "crd.yaml:1", Input)
	cat.Add(rejected(widgetCRD(apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1", Served: true, Storage: true})), "bad.yaml:1", Input)
	// The second Add did not replace the first for v1: among the inputs a
	// CRD the server would reject serves nothing while another can (as
	// applying both in order would leave the first in place).
	if e := cat.EntryAt(widgetGVK("v1"), ""); e == nil || e.Source != "crd.yaml:1" {
		t.Fatalf("v1 judged by %v, want crd.yaml:1", e)
	}
	// But the later one wins where neither serves.
	var le *LookupError
	if _, err := cat.Lookup(widgetGVK("v2")); !errors.As(err, &le) || le.Reason != Rejected || le.Entry.Source != "bad.yaml:1" {
		t.Fatalf("got %v, want Rejected from bad.yaml:1", err)
	}
	cat.Add(accepted(widgetCRD(
		apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1", Served: true, Storage: true},
		apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1beta1", Served: false},
	)), "crd.yaml:1", Input)
	// A lower layer never replaces a higher one, whenever it comes.
	cat.Add(rejected(widgetCRD(apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1", Served: true, Storage: true})), "cluster", Cluster)
	tests := []struct {
		name string
		gvk  schema.GroupVersionKind
		want Reason // 0: found
		msg  string
	}{
		{"served", widgetGVK("v1"), 0, ""},
		{"not served", widgetGVK("v1beta1"), NotServed, `the server could not find the requested resource: version "v1beta1" of CRD widgets.example.com is not served (served: v1)`},
		{"no such version", widgetGVK("v2"), NoVersion, `no matches for kind "Widget" in version "example.com/v2": CRD widgets.example.com has no version "v2" (served: v1)`},
		{"other kind", schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}, NoCRD, "no matches for kind \"Gadget\" in version \"example.com/v1\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := cat.Lookup(tt.gvk)
			if tt.want == 0 {
				if err != nil || v == nil || v.GVK != tt.gvk || !v.Namespaced {
					t.Fatalf("got %+v, %v", v, err)
				}
				return
			}
			var le *LookupError
			if !errors.As(err, &le) || le.Reason != tt.want || err.Error() != tt.msg {
				t.Fatalf("got %v, want reason %d: %s", err, tt.want, tt.msg)
			}
		})
	}
}

func TestCreateDefaultsAndPrunes(t *testing.T) {
	c := widgetCRD(apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1", Served: true, Storage: true})
	c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties = map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"size": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte("1")}},
		}},
	}
	cat := NewCatalog(false)
	cat.Add(accepted(c), "crd", Input)
	v, err := cat.Lookup(widgetGVK("v1"))
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"generateName": "w-", "bogus": int64(1)}, "spec": map[string]any{"sise": int64(2)}}
	vd := v.Create(obj, "ns")
	if len(vd.Errors) != 0 || vd.DecodeError != nil {
		t.Fatalf("got errors %v %v", vd.Errors, vd.DecodeError)
	}
	if got := strings.Join(vd.Unknown, ","); got != "metadata.bogus,spec.sise" {
		t.Errorf("got unknown %q, want metadata.bogus,spec.sise", got)
	}
	spec := vd.Object.Object["spec"].(map[string]any)
	if spec["size"] != int64(1) || vd.Object.GetName() != "w-crdlt" || vd.Object.GetNamespace() != "ns" {
		t.Errorf("got %v, want defaulted size, generated name and namespace", vd.Object.Object)
	}
}

func TestUpdateTransitionRule(t *testing.T) {
	c := widgetCRD(apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1", Served: true, Storage: true})
	c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties = map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"region": {Type: "string", XValidations: apiextensionsv1.ValidationRules{{Rule: "self == oldSelf", Message: "region is immutable"}}},
			"size":   {Type: "integer", Maximum: ptr.To(10.0)},
		}},
	}
	cat := NewCatalog(false)
	cat.Add(accepted(c), "crd", Input)
	v, err := cat.Lookup(widgetGVK("v1"))
	if err != nil {
		t.Fatal(err)
	}
	obj := func(region string, size int64) map[string]any {
		return map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"region": region, "size": size}}
	}
	tests := []struct {
		name     string
		old, new map[string]any
		want     string
	}{
		{"unchanged", obj("eu", 3), obj("eu", 3), ""},
		{"size changes", obj("eu", 3), obj("eu", 4), ""},
		{"region changes", obj("eu", 3), obj("us", 3), "spec.region: Invalid value: \"us\": region is immutable"},
		// An invalid value that does not change is ratcheted.
		{"ratcheting", obj("eu", 30), obj("eu", 30), ""},
		{"new invalid value", obj("eu", 3), obj("eu", 30), "spec.size: Invalid value: 30: spec.size in body should be less than or equal to 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vd := v.Update(tt.old, tt.new, "ns")
			var got []string
			for _, e := range vd.Errors {
				got = append(got, e.Error())
			}
			if strings.Join(got, "; ") != tt.want || vd.DecodeError != nil || vd.Panic != "" {
				t.Errorf("got %q (decode %v, panic %q), want %q", got, vd.DecodeError, vd.Panic, tt.want)
			}
		})
	}
}

// TestDeferFiles: the files of DeferFiles are read once, on the first
// read of any kind, not before, and what they define replaces CRDs of a
// lower layer added before them (a cluster's, under local ones).
func TestDeferFiles(t *testing.T) {
	reads := map[string]func(*Catalog) bool{
		"Lookup": func(c *Catalog) bool {
			v, _ := c.Lookup(widgetGVK("v1"))
			return v != nil
		},
		"Entry":   func(c *Catalog) bool { return c.Entry(schema.GroupKind{Group: "example.com", Kind: "Widget"}) != nil },
		"Entries": func(c *Catalog) bool { return len(c.Entries()) == 1 },
		"Len":     func(c *Catalog) bool { return c.Len() == 1 },
	}
	v1 := apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1", Served: true, Storage: true}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			cat := NewCatalog(false)
			cat.Add(accepted(widgetCRD(v1)), "cluster", Cluster)
			local := filepath.Join(t.TempDir(), "local.yaml")
			cat.DeferFiles(Extra, []File{{Name: local}})
			// Written after DeferFiles: a read before the catalogue's
			// would find no file.
			if err := os.WriteFile(local, []byte(localWidget), 0o644); err != nil {
				t.Fatal(err)
			}
			if !read(cat) {
				t.Errorf("%s did not see the CRD", name)
			}
			// Gone after the first read: a second scan would fail.
			os.Remove(local)
			read(cat)
			if ds, err := cat.Deferred(); err != nil || len(ds) != 1 || ds[0] == nil {
				t.Errorf("deferred %v, %v; want the one file, read once", ds, err)
			}
			if got := cat.Entry(schema.GroupKind{Group: "example.com", Kind: "Widget"}).Source; got != local+":1" {
				t.Errorf("got the CRD from %s, want the one the file defines (%s:1)", got, local)
			}
		})
	}
}

// localWidget defines widgets.example.com, v1 served and stored.
const localWidget = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    kind: Widget\n    plural: widgets\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"

// TestReleaseConcurrent looks up every version of a CRD from many
// goroutines while others read the entry's versions for messages: a
// compiled version's decoded schema is dropped from the shared CRD, which
// must race with no reader (run with -race), and every version still
// compiles from its own schema.
func TestReleaseConcurrent(t *testing.T) {
	names := []string{"v1", "v1beta2", "v1beta1", "v1alpha1"}
	var versions []apiextensionsv1.CustomResourceDefinitionVersion
	for i, n := range names {
		versions = append(versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: n, Served: true, Storage: i == 0, Deprecated: i > 1})
	}
	c := widgetCRD(versions...)
	for i := range c.Spec.Versions {
		// A schema of each version's own, to see each compiled from its own.
		c.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties = map[string]apiextensionsv1.JSONSchemaProps{
			"only" + c.Spec.Versions[i].Name: {Type: "string"},
		}
	}
	cat := NewCatalog(false)
	cat.Add(accepted(c), "crd.yaml:1", Input)
	e := cat.Entry(schema.GroupKind{Group: "example.com", Kind: "Widget"})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range names {
				n := names[(i+g)%len(names)]
				v, err := cat.Lookup(widgetGVK(n))
				if err != nil {
					t.Errorf("%s: %v", n, err)
					return
				}
				if _, ok := v.Structural().Properties["only"+n]; !ok || len(v.Structural().Properties) != 1 {
					t.Errorf("%s compiled from another schema: %v", n, v.Structural().Properties)
				}
				_ = e.Served()
				_ = e.Versions()
				_ = v.DeprecationWarning()
				if v.Spec.Schema != nil {
					t.Errorf("%s: the version keeps its decoded schema", n)
				}
			}
		}()
	}
	wg.Wait()
	for i, v := range c.Spec.Versions {
		if v.Schema != nil {
			t.Errorf("version %d (%s) kept its decoded schema after compiling", i, v.Name)
		}
	}
}

func TestUnservedForeignError(t *testing.T) {
	n := Unserved("a.yaml:1:1", errors.New("boom"))
	if n.Err == nil || n.Err.Reason != Unservable || !strings.Contains(n.Err.Error(), "boom") {
		t.Errorf("Unserved of a foreign error: %+v", n.Err)
	}
}

func TestSetVersionBudgetAfterAdd(t *testing.T) {
	const js = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	cat := NewCatalog(false)
	cat.Add(Decode([]byte(js)), "a.yaml:1", Input)
	cat.SetVersionBudget(1)
	if got := cat.Entry(schema.GroupKind{Group: "example.com", Kind: "Widget"}).cache.budget; got != 1 {
		t.Errorf("a CRD added before SetVersionBudget has budget %d, want 1", got)
	}
}

func TestEntryVersionsServedFirst(t *testing.T) {
	const js = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[` +
		`{"name":"v1alpha1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}},` +
		`{"name":"v2","served":false,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}},` +
		`{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	cat := NewCatalog(false)
	cat.Add(Decode([]byte(js)), "a.yaml:1", Input)
	got := cat.Entry(schema.GroupKind{Group: "example.com", Kind: "Widget"}).Versions()
	if want := []string{"v1", "v1alpha1", "v2"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Versions() = %v, want %v (served first, then by priority)", got, want)
	}
}

// TestClusterCRDNotJudgedAsCreate: a CRD the cluster serves serves its
// objects even when a create of it would be refused here (a field this
// release does not know, refused under Strict); the same CRD among the
// inputs is a CRD the server would reject.
func TestClusterCRDNotJudgedAsCreate(t *testing.T) {
	const js = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced","futureField":true,"names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	for _, tt := range []struct {
		layer        Layer
		wantRejected bool
	}{{Cluster, false}, {Input, true}} {
		cat := NewCatalog(true)
		cat.Add(Decode([]byte(js)), "src", tt.layer)
		_, err := cat.Lookup(gvk)
		var le *LookupError
		if rejected := errors.As(err, &le) && le.Reason == Rejected; rejected != tt.wantRejected {
			t.Errorf("layer %v: Lookup error %v, want rejected %t", tt.layer, err, tt.wantRejected)
		}
		if !tt.wantRejected && err != nil {
			t.Errorf("layer %v: %v", tt.layer, err)
		}
	}
}
