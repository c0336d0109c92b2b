package cmd

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

const junitCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
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
              color: {type: string, enum: [red, blue]}
              region: {type: string, x-kubernetes-validations: [{rule: "self == oldSelf", message: region is immutable}]}
`

// junitCases runs a command with -o junit and returns its test cases,
// "classname|name" -> "passed", "skipped: why" or "failed", and its exit
// code.
func junitCases(t *testing.T, args ...string) (map[string]string, int) {
	t.Helper()
	code, out, errOut := runMain(t, append([]string{args[0], "-o", "junit", "--no-config"}, args[1:]...)...)
	if code != ExitClean && code != ExitFindings {
		t.Fatalf("%s: exit %d, stderr:\n%s", strings.Join(args, " "), code, errOut)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name      string `xml:"name,attr"`
				ClassName string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%s: output is not XML (%v):\n%s", strings.Join(args, " "), err, out)
	}
	cases := map[string]string{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			status := "passed"
			switch {
			case c.Failure != nil:
				// What fails it is the renderer's test; its words are
				// the rules'.
				status = "failed"
			case c.Skipped != nil:
				status = "skipped: " + c.Skipped.Message
			}
			cases[c.ClassName+"|"+c.Name] = status
		}
	}
	return cases, code
}

// TestJUnitOneCasePerObject: every command that offers -o junit reports a
// test case per object it checked, passing when nothing fails it, so that
// a clean run is a report of passing tests (an empty one fails CI jobs);
// objects it does not judge are skipped cases; documents that are no
// object and files skipped whole are no cases. Files replayed from the
// verdict cache, the objects of a kustomization and findings positioned
// in another file (a patch, OLD) keep their object's case.
func TestJUnitOneCasePerObject(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	testutil.WriteFiles(t, dir, map[string]string{
		"crds/widget.yaml": junitCRD,
		"clean/widgets.yaml": `apiVersion: example.com/v1
kind: Widget
metadata: {name: a, namespace: shop}
spec: {color: red}
---
apiVersion: example.com/v1
kind: Widget
metadata: {generateName: w-, namespace: shop}
spec: {color: blue}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: shop}
`,
		"clean/values.yaml":          "replicas: 3\n",
		"clean/kustomization.yaml":   "resources: [widgets.yaml]\n",
		"dirty/widgets.yaml":         "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: bad, namespace: shop}\nspec: {color: green}\n",
		"dirty/gizmo.yaml":           "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g, namespace: shop}\n",
		"base/kustomization.yaml":    "resources: [crd.yaml, widget.yaml]\n",
		"base/crd.yaml":              junitCRD,
		"base/widget.yaml":           "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: k}\nspec: {color: red}\n",
		"overlay/kustomization.yaml": "resources: [../base]\nnamespace: shop\npatches:\n- path: patch.yaml\n",
		"overlay/patch.yaml":         "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: k}\nspec: {color: green}\n",
		"old/w.yaml":                 "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a, namespace: shop}\nspec: {color: red, region: eu}\n",
		"new/w.yaml":                 "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a, namespace: shop}\nspec: {color: red, region: us}\n",
		"v2/widget.yaml":             strings.Replace(junitCRD, "enum: [red, blue]", "enum: [red]", 1),
	})
	cache := filepath.Join(dir, ".cache")

	clean := map[string]string{
		"crds/widget.yaml|CustomResourceDefinition widgets.example.com": "passed",
		"clean/widgets.yaml|Widget shop/a":                              "passed",
		"clean/widgets.yaml|Widget (document 2)":                        "passed",
		"clean/widgets.yaml|ConfigMap shop/settings":                    "skipped: built-in kind",
	}
	dirty := map[string]string{
		"crds/widget.yaml|CustomResourceDefinition widgets.example.com": "passed",
		"dirty/widgets.yaml|Widget shop/bad":                            "failed",
		"dirty/gizmo.yaml|Gizmo shop/g":                                 "failed",
	}
	tests := []struct {
		name     string
		args     []string
		want     map[string]string
		wantCode int
	}{
		{"a clean run", []string{"check", "--no-cache", "crds", "clean"}, clean, ExitClean},
		// The cache was written by a text run, which lists no objects:
		// it keeps them all the same.
		{"a clean run replayed from the cache", []string{"check", "--cache-dir", cache, "crds", "clean"}, clean, ExitClean},
		{"findings", []string{"check", "--no-cache", "crds", "dirty"}, dirty, ExitFindings},
		{"a custom resource without its CRD, ignored", []string{"check", "--no-cache", "--missing-crds", "ignore", "dirty/gizmo.yaml"},
			map[string]string{"dirty/gizmo.yaml|Gizmo shop/g": "skipped: not validated: no CRD"}, ExitClean},
		{"a kustomization: the objects in their files, a patch's finding in its object's case", []string{"check", "--no-cache", "-k", "overlay"},
			map[string]string{
				"base/crd.yaml|CustomResourceDefinition widgets.example.com": "passed",
				"base/widget.yaml|Widget shop/k":                             "failed",
			}, ExitFindings},
		{"immutable: an update accepted", []string{"immutable", "--crd", "crds", "old", "old"},
			map[string]string{"old/w.yaml|Widget shop/a": "passed"}, ExitClean},
		{"immutable: each object of NEW", []string{"immutable", "--crd", "crds", "old", "new"},
			map[string]string{"new/w.yaml|Widget shop/a": "failed"}, ExitFindings},
		{"upgrade: each CRD of NEW and each object replayed", []string{"upgrade", "crds/widget.yaml", "v2/widget.yaml", "clean/widgets.yaml"},
			map[string]string{
				"v2/widget.yaml|CustomResourceDefinition widgets.example.com": "failed",
				"clean/widgets.yaml|Widget shop/a":                            "passed",
				"clean/widgets.yaml|Widget (document 2)":                      "failed",
				"clean/widgets.yaml|ConfigMap shop/settings":                  "skipped: built-in kind",
			}, ExitFindings},
	}
	if code, _, errOut := runMain(t, "check", "--no-config", "--cache-dir", cache, "crds", "clean"); code != ExitClean {
		t.Fatalf("check: exit %d, stderr:\n%s", code, errOut)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := count.Now()
			got, code := junitCases(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("got exit %d, want %d", code, tt.wantCode)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got cases\n%v\nwant\n%v", got, tt.want)
			}
			// The first clean run judges, the second replays.
			switch n := count.Now().Sub(before).CRValidations; {
			case tt.name == "a clean run" && n == 0:
				t.Errorf("got no custom resource validated, want the run to judge them")
			case strings.Contains(tt.name, "replayed") && n != 0:
				t.Errorf("got %d custom resources validated, want 0: the run should replay the cache", n)
			}
		})
	}
	if _, err := os.Stat(cache); err != nil {
		t.Errorf("no verdict cache written: %v", err)
	}
}
