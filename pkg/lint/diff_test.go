package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/pathtest"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// oracleScheme is the oracle's own scheme, built apart from the linter's.
var oracleScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	apiextensionsinstall.Install(s)
	return s
}()

// oracle is the API server's verdict on a CRD create, computed the way the
// server's REST handler does: the codec factory's decoder (decode, default,
// convert to the internal version), then rest.BeforeCreate's steps with
// the registry's CRD strategy. Unknown fields do not reject under
// fieldValidation=Warn, the server's default, so the decoder is lenient.
func oracle(js []byte) (pairs []string, rejected bool) {
	return oracleWith(js, false)
}

// oracleWith, with dropSelectable, validates without selectableFields:
// what the server would say once its panic on non-structural schemas with
// selectableFields is out of the way.
func oracleWith(js []byte, dropSelectable bool) (pairs []string, rejected bool) {
	defer func() {
		if r := recover(); r != nil {
			more, _ := oracleWith(js, true)
			pairs, rejected = dedupe(append([]string{"panic"}, more...)), true
		}
	}()
	codecs := serializer.NewCodecFactory(oracleScheme)
	o, _, err := codecs.UniversalDecoder(apiextensions.SchemeGroupVersion).Decode(js, nil, nil)
	if err != nil {
		return []string{"decode: " + err.Error()}, true
	}
	crd := o.(*apiextensions.CustomResourceDefinition)
	if dropSelectable {
		crd.Spec.SelectableFields = nil
		for i := range crd.Spec.Versions {
			crd.Spec.Versions[i].SelectableFields = nil
		}
	}
	if crd.Name == "" && crd.GenerateName != "" {
		crd.Name = truncate(crd.GenerateName, 58) + "crdlt"
	}
	crd.Namespace = ""
	ctx := genericapirequest.WithNamespace(context.Background(), "")
	st := customresourcedefinition.NewStrategy(oracleScheme)
	st.PrepareForCreate(ctx, crd)
	for _, e := range validateCreate(ctx, crd, st) {
		// The server's errors as crdlint presents them (docs/rules.md,
		// "Differences from the server's text"): user paths, CEL rules as
		// text, a shared schema's error once.
		p, _, shared := translatePath(e.Field, len(crd.Spec.Versions))
		msg := translateText(body(e), len(crd.Spec.Versions))
		if shared > 1 {
			msg += fmt.Sprintf(" (all %d versions share this %s)", shared, sharedWhat(e.Field))
		}
		pairs = append(pairs, pathtest.Pair(p, msg))
	}
	return dedupe(pairs), len(pairs) > 0
}

func dedupe(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// ours is the linter's verdict: its error findings as (field, message).
func ours(t *testing.T, l *Linter, d *source.Document) (pairs []string, fs []report.Finding) {
	fs = l.CRD(d, nil)
	for _, f := range fs {
		if f.Severity == report.Error {
			if f.Rule == RuleCRDMutability {
				// The Immutable Fields markers are ours to check (issue 5);
				// the server drops them.
				continue
			}
			if f.Rule == RuleCRDServerPanic {
				pairs = append(pairs, "panic")
				continue
			}
			if f.Rule == RuleCRDDecode {
				pairs = append(pairs, "decode: "+strings.TrimPrefix(f.Message, `CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: `))
				continue
			}
			pairs = append(pairs, pathtest.Pair(f.Field, withoutHints(f.Message)))
		}
	}
	return dedupe(pairs), fs
}

// costShareRE matches costShareHint.
var costShareRE = regexp.MustCompile(` \(estimated cost \d+ is \d+% of the per-CRD budget \d+\)$`)

// withoutHints drops what crdlint appends to the server's words where
// they leave the cause out (storedVersionsHint, costShareHint).
func withoutHints(msg string) string {
	msg = strings.TrimSuffix(msg, storedVersionsHint)
	return costShareRE.ReplaceAllString(msg, "")
}

type diffStats struct {
	docs, rejected, errors int
	rules                  map[string]int
}

// compare checks one CRD document against the oracle.
func compare(t *testing.T, l *Linter, name string, data []byte, st *diffStats) {
	t.Helper()
	f := source.Parse(name, data)
	for _, d := range f.Documents {
		if !crd.IsCRD(d) {
			continue
		}
		if _, v := d.GroupVersion(); v != "v1" {
			// The library still decodes v1beta1, but no supported server
			// serves it: crdlint's verdict (crd-api-removed) is deliberate.
			continue
		}
		want, rejected := oracle(d.JSON)
		got, fs := ours(t, l, d)
		st.docs++
		if rejected {
			st.rejected++
		}
		st.errors += len(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: findings differ from the server\n got: %q\nwant: %q", name, got, want)
		}
		if (len(got) > 0) != rejected {
			t.Errorf("%s: has error finding = %v, server rejects = %v", name, len(got) > 0, rejected)
		}
		for _, fd := range fs {
			st.rules[fd.Rule]++
			if fd.Rule == RuleCRDInvalid {
				t.Errorf("%s: classifier fallback hit: %s: %s", name, fd.Field, fd.Message)
			}
			if fd.Rule == RuleCRDServerPanic {
				continue
			}
			if fd.Line < 1 || fd.Column < 1 || fd.File != name {
				t.Errorf("%s: finding without position: %+v", name, fd)
			}
			// A field the server names must exist in the user's document,
			// unless the server says it is missing.
			// (status.storedVersions is the server's own field, which
			// PrepareForCreate derives from spec.versions. Kubernetes 1.33
			// names an absent x-kubernetes-map-type with the value "null",
			// quoted, where later minors say null.)
			if _, exact := d.Locate(fd.Field); !exact && fd.Severity == report.Error && fd.Rule != RuleCRDDecode && !hasPrefix(fd.Field, "status.storedVersions") &&
				!strings.HasPrefix(fd.Message, "Required value") && !strings.HasPrefix(fd.Message, "Invalid value: null") && !strings.HasPrefix(fd.Message, `Invalid value: "null"`) {
				t.Errorf("%s: field %q does not resolve in the document (%s)", name, fd.Field, fd.Message)
			}
		}
	}
}

func TestDifferentialCRDCorpus(t *testing.T) {
	l := New(Options{})
	st := &diffStats{rules: map[string]int{}}
	for _, p := range testutil.Files(t, "crds") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		compare(t, l, filepath.Base(p), data, st)
		// A realistic mutant of each: the first property of spec loses its
		// type, deep inside a large real file.
		f := source.Parse(p, data)
		for _, d := range f.Documents {
			var o obj
			if err := sigsyaml.Unmarshal(d.JSON, &o); err != nil {
				t.Fatal(err)
			}
			spec, _ := getPath(o, sp+".properties").(map[string]any)
			for _, k := range sortedKeys(spec) {
				if m, ok := spec[k].(map[string]any); ok {
					delete(m, "type")
					break
				}
			}
			compare(t, l, filepath.Base(p)+"#untyped", toYAML(t, o), st)
		}
	}
	t.Logf("corpus: %d CRD documents (originals and mutants), %d rejected, %d server errors, all agreeing; findings by rule: %v", st.docs, st.rejected, st.errors, st.rules)
	fmt.Fprintf(os.Stderr, "differential CRD corpus: %d documents, %d rejected by the server, %d (field, message) errors, %s\n", st.docs, st.rejected, st.errors, agreement(t))
}

// TestDifferentialCRDTestdata runs every CRD of this package's testdata
// (the rule fixtures, the mutants' base) and of the examples through the
// oracle.
func TestDifferentialCRDTestdata(t *testing.T) {
	l := New(Options{})
	st := &diffStats{rules: map[string]int{}}
	var files []string
	for _, pattern := range []string{"testdata/*.yaml", "testdata/rules/*/*.yaml", "../../examples/*/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		compare(t, l, p, data, st)
	}
	if st.docs < 50 {
		t.Fatalf("only %d CRD documents in testdata and examples", st.docs)
	}
	fmt.Fprintf(os.Stderr, "differential CRD testdata: %d documents in %d files, %d rejected by the server, %d (field, message) errors, %s\n", st.docs, len(files), st.rejected, st.errors, agreement(t))
}

func TestDifferentialCRDMutants(t *testing.T) {
	l := New(Options{})
	base := loadBase(t)
	st := &diffStats{rules: map[string]int{}}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			o := deepCopy(base)
			m.edit(o)
			compare(t, l, m.name+".yaml", toYAML(t, o), st)
			compare(t, l, m.name+"-hoisted.yaml", toYAML(t, multiVersion(m, true, base)), st)
			compare(t, l, m.name+"-split.yaml", toYAML(t, multiVersion(m, false, base)), st)
		})
	}
	t.Logf("mutants: %d CRD documents, %d rejected, %d server errors; findings by rule: %v", st.docs, st.rejected, st.errors, st.rules)
	fmt.Fprintf(os.Stderr, "differential CRD mutants: %d documents from %d mutants, %d rejected by the server, %d (field, message) errors, %s\n", st.docs, len(mutants), st.rejected, st.errors, agreement(t))
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// agreement words a differential test's result for its summary line.
func agreement(t testing.TB) string {
	if t.Failed() {
		return "SOME DISAGREE"
	}
	return "all equal"
}

// validateCreate is the validation of rest.BeforeCreate as the minor the
// test is built with runs it (rest.ValidateCreate from 1.37; inline in
// BeforeCreate before).
var validateCreate = engine.ServerValidateCreate
