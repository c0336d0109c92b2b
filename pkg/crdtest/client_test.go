package crdtest

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"
)

// TestLoadFS: an fs.FS (an embed.FS in a project's tests) serves the
// CRDs of the files its patterns match; a directory stands for its YAML
// and JSON files; documents that are not CRDs are ignored; no CRD at all,
// a bad pattern, or a CRD the server refuses is an error.
func TestLoadFS(t *testing.T) {
	crd, err := os.ReadFile("testdata/suites/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	refused := strings.Replace(string(crd), "name: widgets.example.com", "name: wrong.example.com", 1)
	fsys := fstest.MapFS{
		"crds/widgets.yaml":     {Data: crd},
		"crds/README.md":        {Data: []byte("# not YAML: [\n")},
		"crds/configmap.yaml":   {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")},
		"other/none.yaml":       {Data: []byte("a: 1\n")},
		"refused/widgets.yaml":  {Data: []byte(refused)},
		"nested/a/b/crd.json":   {Data: mustJSON(t, crd)},
		"nested/a/b/notes.txt":  {Data: []byte("[")},
		"single/widgets.yml":    {Data: crd},
		"single/widgets.yml.md": {Data: []byte("[")},
	}
	for _, tc := range []struct {
		patterns []string
		err      string
	}{
		{patterns: []string{"crds"}},
		{patterns: []string{"crds/*.yaml"}},
		{patterns: []string{"nested"}},
		{patterns: []string{"single/widgets.yml"}},
		{patterns: []string{"other", "crds"}},
		{patterns: []string{"other"}, err: "no CustomResourceDefinition in other"},
		{patterns: []string{"nothing/*"}, err: "no CustomResourceDefinition in nothing/*"},
		{patterns: []string{"crds/["}, err: "syntax error in pattern"},
		{patterns: []string{"refused"}, err: "the API server would refuse CRD wrong.example.com"},
	} {
		t.Run(strings.Join(tc.patterns, ","), func(t *testing.T) {
			srv, err := LoadFS(fsys, tc.patterns...)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if crds := srv.CRDs(); len(crds) != 1 || crds[0].Name != "widgets.example.com" {
				t.Fatalf("CRDs %v", crds)
			}
			if err := srv.Create(widgetObj(map[string]any{"size": int64(2)})); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func mustJSON(t *testing.T, yamlText []byte) []byte {
	t.Helper()
	js, err := sigsyaml.YAMLToJSON(yamlText)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func widgetObj(spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w"}, "spec": spec,
	}}
}

// TestStored: Stored is what a create stores (defaulted, pruned, the
// status dropped under a status subresource), the object given
// untouched; a refusal is the server's StatusError.
func TestStored(t *testing.T) {
	srv, err := Load("testdata/suites/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := widgetObj(map[string]any{"colour": "red", "shape": "round"})
	in.Object["status"] = map[string]any{"replicas": int64(1)}
	before := in.DeepCopy()
	got, err := srv.Stored(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, before) {
		t.Errorf("Stored changed its argument: %v", in.Object)
	}
	want := map[string]any{"colour": "red", "size": int64(3)}
	if spec := got.Object["spec"]; !reflect.DeepEqual(spec, want) {
		t.Errorf("stored spec %v, want %v (defaulted, spec.shape pruned)", spec, want)
	}
	if _, ok := got.Object["status"]; ok {
		t.Errorf("stored status %v: a create drops it under a status subresource", got.Object["status"])
	}
	if ns := got.GetNamespace(); ns != "default" {
		t.Errorf("namespace %q, want default", ns)
	}
	_, err = srv.Stored(widgetObj(map[string]any{"size": int64(30)}))
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.size: Invalid value: 30") {
		t.Errorf("got %v, want the server's Invalid error", err)
	}
	if _, err := srv.Stored(&unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v9", "kind": "Widget"}}); err == nil {
		t.Error("a version the CRD does not serve: no error")
	}
}

// TestRefusedVariant: a suite that names its CRD among several of that
// name (openshift's feature sets) runs on each; one the API server would
// refuse is a variant whose cases say so, not one left out in silence.
func TestRefusedVariant(t *testing.T) {
	crd, err := os.ReadFile("testdata/suites/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	set := func(fs string) string {
		return strings.Replace(string(crd), "  name: widgets.example.com\n", "  name: widgets.example.com\n  annotations: {release.openshift.io/feature-set: "+fs+"}\n", 1)
	}
	broken := strings.Replace(set("Broken"), "self.min <= self.max", "self.min <= self.nothing", 1)
	srv := newServer()
	for name, text := range map[string]string{"a-default.yaml": set("Default"), "b-broken.yaml": broken} {
		if err := srv.AddYAML(name, []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Read("suite.yaml", []byte("crdName: widgets.example.com\ntests:\n  onCreate:\n  - name: small\n    initial: |\n      apiVersion: example.com/v1\n      kind: Widget\n      spec: {size: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rs := Run(s, srv)
	got := map[string]string{}
	for _, r := range rs {
		got[r.Variant] = fmt.Sprint(r.Passed, " ", r.Error)
	}
	want := map[string]string{
		"Default":          "true ",
		"Broken (refused)": "false b-broken.yaml: the API server would refuse CRD widgets.example.com (kubectl crdlint check b-broken.yaml tells why)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestOpenShiftNames: openshift's generator sends updated to the created
// object's name (SetName on updated) and compares expected under the
// stored name and namespace (SetName on expected), whatever the suite's
// objects name: upstream suites name them differently.
func TestOpenShiftNames(t *testing.T) {
	srv, err := Load("testdata/suites/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Read("suite.yaml", []byte(`crdName: widgets.example.com
tests:
  onCreate:
  - name: expected names another
    initial: |
      apiVersion: example.com/v1
      kind: Widget
      metadata: {name: first}
      spec: {size: 2}
    expected: |
      apiVersion: example.com/v1
      kind: Widget
      metadata: {name: other, namespace: elsewhere}
      spec: {size: 2}
  onUpdate:
  - name: updated names another
    initial: |
      apiVersion: example.com/v1
      kind: Widget
      metadata: {name: first}
      spec: {size: 2}
    updated: |
      apiVersion: example.com/v1
      kind: Widget
      metadata: {name: second}
      spec: {size: 3}
    expected: |
      apiVersion: example.com/v1
      kind: Widget
      metadata: {name: third}
      spec: {size: 3}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Run(s, srv) {
		if !r.Passed {
			t.Errorf("%s: %s %+v", r.Case, r.Error, r.Diffs)
		}
	}
}

// TestOpenShiftVersion: an openshift suite's version: is the one version
// its CRD serves and stores during the suite, as its generator's
// loadVersionedCRD installs it: an object of another version of the CRD
// is not served, and a version the CRD lacks is the generator's error.
func TestOpenShiftVersion(t *testing.T) {
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  names: {kind: Thing, plural: things}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {a: {type: string}}}
  - name: v1beta1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {a: {type: string}}}
`
	srv := newServer()
	if err := srv.AddYAML("crd.yaml", []byte(crd)); err != nil {
		t.Fatal(err)
	}
	suite := func(version string) string {
		return `crdName: things.example.com
` + version + `
tests:
  onCreate:
  - name: v1
    initial: |
      apiVersion: example.com/v1
      kind: Thing
      spec: {a: x}
  - name: v1beta1
    initial: |
      apiVersion: example.com/v1beta1
      kind: Thing
      spec: {a: x}
`
	}
	for _, tc := range []struct {
		version string
		want    map[string]string
	}{
		{"", map[string]string{"v1": "true ", "v1beta1": "true "}},
		{"version: v1", map[string]string{"v1": "true ", "v1beta1": `false no matches for kind "Thing" in version "example.com/v1beta1": CRD things.example.com has no version "v1beta1" (served: v1)`}},
		{"version: v1beta1", map[string]string{"v1": `false no matches for kind "Thing" in version "example.com/v1": CRD things.example.com has no version "v1" (served: v1beta1)`, "v1beta1": "true "}},
		{"version: v2", map[string]string{"v1": "false could not find CRD version matching version v2", "v1beta1": "false could not find CRD version matching version v2"}},
	} {
		s, err := Read("suite.yaml", []byte(suite(tc.version)))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range Run(s, srv) {
			got[r.Case] = fmt.Sprint(r.Passed, " ", r.Error)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\ngot  %q\nwant %q", tc.version, got, tc.want)
		}
	}
}
