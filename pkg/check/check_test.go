package check

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/review"
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
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
              size: {type: integer, maximum: 10}
`

// Two widgets too big, one of them silenced inline.
const widgets = `apiVersion: example.com/v1
kind: Widget
metadata: {name: a}
spec: {size: 30}
---
# crdlint:ignore-document cr-schema -- kept big on purpose
apiVersion: example.com/v1
kind: Widget
metadata: {name: b}
spec: {size: 40}
`

// progress is what Checker.Progress said once the run was done, and
// how many inputs Checker.Files said it had.
type progress struct {
	total       int
	files, docs int64
}

// TestRunWithoutCommandLine drives a check run as a library: a CRD and
// its custom resources linted, reviewed by an inline suppression, the
// progress told of every input, and a second run over the same cache
// replaying the custom resources instead of judging them again. The
// stages are taken one by one, as the command takes them.
func TestRunWithoutCommandLine(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(widgetCRD), 0o644)
	os.WriteFile(filepath.Join(dir, "widgets.yaml"), []byte(widgets), 0o644)
	settings, err := config.Resolve(config.Default(catalogue), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	check := func() (report.Result, progress) {
		t.Helper()
		in, err := input.Open([]string{dir}, strings.NewReader(""), nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := New(input.NewRun(in, nil, crd.NewCatalog(false)), Options{
			Missing:  lint.MissingError,
			Review:   review.New(review.Options{Settings: settings, Rules: catalogue}),
			CacheDir: cacheDir,
		})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx := context.Background()
		if err := c.CRDs(ctx); err != nil {
			t.Fatal(err)
		}
		if f, d := c.Progress(); f != 0 || d != 0 {
			t.Errorf("progress before Inputs: %d files, %d documents", f, d)
		}
		if err := c.Inputs(ctx); err != nil {
			t.Fatal(err)
		}
		p := progress{total: c.Files()}
		p.files, p.docs = c.Progress()
		res, err := c.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return res, p
	}
	start := count.Now()
	cold, p := check()
	if n := count.Now().Sub(start).CRValidations; n != 2 {
		t.Errorf("the cold run validated %d custom resources, want 2", n)
	}
	if p.total != 2 || p.files != 2 || p.docs != 3 {
		t.Errorf("progress: total %d, %d files, %d documents; want 2, 2, 3", p.total, p.files, p.docs)
	}
	var live, silenced int
	for _, f := range cold.Findings {
		if f.Rule != "cr-schema" {
			continue
		}
		if f.Suppressed == nil {
			live++
		} else {
			silenced++
		}
	}
	if live != 1 || silenced != 1 {
		t.Fatalf("cr-schema findings: %d live, %d silenced; want 1 and 1: %+v", live, silenced, cold.Findings)
	}
	if cold.Summary.Files != 2 || cold.Summary.CRDs != 1 {
		t.Errorf("summary: %d files, %d CRDs; want 2 and 1", cold.Summary.Files, cold.Summary.CRDs)
	}
	before := count.Now()
	warm, p := check()
	if n := count.Now().Sub(before).CRValidations; n != 0 {
		t.Errorf("the warm run validated %d custom resources, want none (replayed)", n)
	}
	if p.files != 2 || p.docs != 3 {
		t.Errorf("warm progress: %d files, %d documents; want 2 and 3", p.files, p.docs)
	}
	if !reflect.DeepEqual(warm.Findings, cold.Findings) || !reflect.DeepEqual(warm.Summary, cold.Summary) {
		t.Errorf("the warm run's result differs:\n%+v\nwant:\n%+v", warm, cold)
	}
}

// TestObjectsListedOnlyWhenAsked: Options.Objects lists every object in
// Summary.Checked, judged or replayed from a cache a run without it
// wrote; without it the summary holds counts only, so that memory does
// not grow with the number of documents.
func TestObjectsListedOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(widgetCRD), 0o644)
	os.WriteFile(filepath.Join(dir, "widgets.yaml"), []byte(widgets+"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"), 0o644)
	settings, err := config.Resolve(config.Default(catalogue), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	run := func(objects bool) []report.Checked {
		t.Helper()
		in, err := input.Open([]string{dir}, strings.NewReader(""), nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), input.NewRun(in, nil, crd.NewCatalog(false)), Options{
			Missing: lint.MissingError, Review: review.New(review.Options{Settings: settings, Rules: catalogue}), CacheDir: cacheDir, Objects: objects,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.Summary.Checked
	}
	crdRef := report.ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets.example.com"}
	want := []report.Checked{
		{File: filepath.Join(dir, "crd.yaml"), Object: crdRef},
		{File: filepath.Join(dir, "widgets.yaml"), Object: report.ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Name: "a"}},
		{File: filepath.Join(dir, "widgets.yaml"), Document: 1, Object: report.ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Name: "b"}},
		{File: filepath.Join(dir, "widgets.yaml"), Document: 2, Object: report.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Name: "c"}, Skipped: lint.SkipBuiltin},
	}
	if got := run(false); got != nil {
		t.Errorf("without Objects: got %+v, want no list", got)
	}
	before := count.Now()
	got := run(true)
	if n := count.Now().Sub(before).CRValidations; n != 0 {
		t.Errorf("validated %d custom resources, want none (replayed)", n)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with Objects, replayed: got\n%+v\nwant\n%+v", got, want)
	}
}

// TestHelmStreamOfCRDsOnly: the findings on a helm template stream that
// holds only CRDs name the template each came from (Via), as those of a
// stream that holds custom resources too do (main named none: a file of
// CRDs only reached the review without its text).
func TestHelmStreamOfCRDsOnly(t *testing.T) {
	dir := t.TempDir()
	// A property of type object without properties: crd-empty-object.
	stream := "---\n# Source: shop/crds/widget.yaml\n" + strings.TrimRight(widgetCRD, "\n") + "\n              extra: {type: object}\n"
	if err := os.WriteFile(filepath.Join(dir, "out.yaml"), []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	settings, err := config.Resolve(config.Default(catalogue), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := input.Open([]string{dir}, strings.NewReader(""), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), input.NewRun(in, nil, crd.NewCatalog(false)), Options{
		Missing: lint.MissingError, Review: review.New(review.Options{Settings: settings, Rules: catalogue}), NoCache: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 {
		t.Fatalf("no findings on %s; the test needs one", stream)
	}
	for _, f := range res.Findings {
		if f.Via != "shop/crds/widget.yaml" {
			t.Errorf("%s at %s:%d: via %q, want shop/crds/widget.yaml", f.Rule, f.File, f.Line, f.Via)
		}
	}
}
