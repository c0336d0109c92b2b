package agreement_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/pathtest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/resource"

	"github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// applySuites are what TestKubectlApply applies, each on an empty server:
// test data made for it (unknown fields everywhere a CRD or a custom
// resource can have one, where the schema keeps them, repeated keys in
// YAML and JSON, a List), the examples, and the unknown-field and
// duplicate-field rule fixtures. Paths are from the repository's root.
func applySuites(t *testing.T) [][]string {
	t.Helper()
	out := [][]string{
		{"test/agreement/testdata/apply"},
		{"examples/valid", "examples/crs", "examples/invalid", "examples/upgrade/widget-v2.yaml", "examples/upgrade/objects.yaml"},
	}
	for _, rule := range []string{lint.RuleUnknownField, source.RuleDuplicate} {
		files, err := filepath.Glob(filepath.Join(repoRoot(t), "pkg/lint/testdata/rules", rule, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			rel, _ := filepath.Rel(repoRoot(t), f)
			out = append(out, []string{rel})
		}
	}
	return out
}

// TestKubectlApply shows that `check`'s default verdict on each object is
// what a real API server does with it as `kubectl apply` sends it: the
// body kubectl's own resource builder (k8s.io/cli-runtime) makes of the
// file, decoded into an object and encoded again as kubectl apply's create
// does (so a repeated key reaches the server with its last value only),
// created with fieldValidation=Strict, kubectl's default. The same holds
// for `--validate=warn` against Warn and `--validate=ignore` against
// Ignore: for every object, crdlint has an error exactly when the server
// refuses it, it names exactly the unknown fields the server names (in its
// 400 under Strict, in Warning headers under Warn, nowhere under Ignore),
// and a refusal for unknown fields is the object's only error, as the 400
// ends the request. CRDs are created (and installed when accepted) before
// custom resources, which are dry-run creates; a kind whose CRD was
// refused is a 404.
//
// The body leaves out the last-applied-configuration annotation that
// client-side apply adds, which matters only for objects near the 256 KiB
// annotation limit.
func TestKubectlApply(t *testing.T) {
	if testing.Short() {
		t.Skip("starts in-process API servers; run without -short (make test)")
	}
	type mode struct {
		flag []string // check's flags: none for the default
		v    fieldvalidation.Directive
	}
	modes := []mode{{nil, fieldvalidation.Strict}, {[]string{"--validate=warn"}, fieldvalidation.Warn}, {[]string{"--validate=ignore"}, fieldvalidation.Ignore}}
	suites := applySuites(t)
	var mu sync.Mutex
	counts := map[string]int{}
	t.Run("modes", func(t *testing.T) {
		for _, m := range modes {
			t.Run(m.v.String(), func(t *testing.T) {
				t.Parallel()
				s := newServer(t, apiservertest.Start(t, apiservertest.Options{}))
				for _, paths := range suites {
					c := applySuite(t, s, paths, m.flag, m.v)
					mu.Lock()
					for k, n := range c {
						counts[k] += n
					}
					mu.Unlock()
				}
			})
		}
	})
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: %d\n", k, counts[k])
	}
	t.Logf("objects applied as kubectl apply sends them, crdlint's verdict equal to the server's:\n%s", b.String())
	// Agreement on nothing proves nothing.
	for _, k := range []string{
		"Strict: refused for unknown fields", "Strict: accepted", "Strict: accepted with repeated keys", "Strict: CRD refused for unknown fields",
		"Strict: custom resource of a refused CRD", "Strict: refused by validation",
		"Warn: accepted with unknown fields", "Warn: refused by validation", "Warn: accepted with repeated keys",
		"Ignore: accepted with unknown fields", "Ignore: refused by validation",
	} {
		if counts[k] == 0 {
			t.Errorf("nothing compared: %s", k)
		}
	}
}

// applied is one object kubectl would send.
type applied struct {
	key  string // group/kind namespace/name, as written
	obj  *unstructured.Unstructured
	body []byte
	// repeated says its document repeats a key (crdlint's finding).
	repeated bool
}

// verdictOf is crdlint's or the server's verdict on one object.
type verdictOf struct {
	refused bool
	unknown []string // `unknown field "..."`, sorted
	// onlyUnknown says every error is about unknown fields (the 400).
	onlyUnknown bool
}

func (v verdictOf) String() string {
	return fmt.Sprintf("refused=%t unknown=%q onlyUnknown=%t", v.refused, v.unknown, v.onlyUnknown)
}

func objectKey(apiVersion, kind, namespace, name string) string {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.Group + "/" + kind + " " + namespace + "/" + name
}

// applySuite checks one suite under one field validation and returns what
// it compared.
func applySuite(t *testing.T, s *server, paths, flags []string, v fieldvalidation.Directive) map[string]int {
	t.Helper()
	s.reset(t)
	root := repoRoot(t)
	what := fmt.Sprintf("%s %v", strings.Join(paths, " "), flags)

	// crdlint's verdict: the command, with the flags a user gives.
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	args := append([]string{"check", "--no-config", "--no-cache", "-o", "json"}, flags...)
	var abs []string
	for _, p := range paths {
		abs = append(abs, filepath.Join(root, p))
	}
	if code := cmd.Main(streams, append(args, abs...)); code == 2 || errOut.Len() > 0 {
		t.Fatalf("%s: exit %d: %s", what, code, errOut)
	}
	var res struct{ Findings []report.Finding }
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	offline := map[string]*verdictOf{}
	repeated := map[string]bool{}
	for _, f := range res.Findings {
		k := objectKey(f.Object.APIVersion, f.Object.Kind, f.Object.Namespace, f.Object.Name)
		ov := offline[k]
		if ov == nil {
			ov = &verdictOf{onlyUnknown: true}
			offline[k] = ov
		}
		switch {
		case f.Rule == source.RuleDuplicate:
			repeated[k] = true
		case f.Rule == lint.RuleUnknownField:
			ov.unknown = append(ov.unknown, fieldRE.FindAllString(f.Message, -1)...)
		}
		if f.Severity == report.Error && !beyondServer[f.Rule] {
			ov.refused = true
			ov.onlyUnknown = ov.onlyUnknown && f.Rule == lint.RuleUnknownField
		}
	}

	// What kubectl sends: its builder's objects, encoded as apply's create
	// encodes them.
	infos, err := resource.NewLocalBuilder().Unstructured().
		FilenameParam(false, &resource.FilenameOptions{Filenames: abs, Recursive: true}).
		Flatten().ContinueOnError().Do().Infos()
	if err != nil && len(infos) == 0 {
		t.Fatalf("%s: kubectl's builder: %v", what, err)
	}
	var crds, crs []applied
	for _, info := range infos {
		u, ok := info.Object.(*unstructured.Unstructured)
		if !ok {
			t.Fatalf("%s: %T from kubectl's builder", what, info.Object)
		}
		if isBuiltin(u) && u.GetKind() != "CustomResourceDefinition" {
			continue // no such API in the test server, and crdlint skips it
		}
		a := applied{key: objectKey(u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName()), obj: u}
		a.repeated = repeated[a.key]
		if u.GetKind() == "CustomResourceDefinition" {
			crds = append(crds, a)
		} else {
			crs = append(crs, a)
		}
	}

	counts := map[string]int{}
	// compare compares the verdicts on a, which was sent to path as body
	// ("" for a kind the server does not have).
	compare := func(a applied, sv verdictOf, path string, body []byte) {
		ov := offline[a.key]
		if ov == nil {
			ov = &verdictOf{onlyUnknown: true}
		}
		// Paths compared whatever their notation (crdlint quotes keys
		// that are not plain names; the server writes them raw).
		ov.unknown = uniqSorted(loosePaths(ov.unknown))
		sv.unknown = uniqSorted(loosePaths(sv.unknown))
		if !ov.refused {
			ov.onlyUnknown = false
		}
		if ov.String() != sv.String() {
			t.Errorf("%s: %s under %s:\n  server:  %s\n  crdlint: %s", what, a.key, v.QueryParam(), sv, ov)
			return
		}
		m := v.QueryParam()
		kind := "custom resource"
		if a.obj.GetKind() == "CustomResourceDefinition" {
			kind = "CRD"
		}
		switch {
		case sv.refused && sv.onlyUnknown && len(sv.unknown) > 0:
			counts[m+": refused for unknown fields"]++
			if kind == "CRD" {
				counts[m+": CRD refused for unknown fields"]++
			}
		case sv.refused:
			counts[m+": refused by validation"]++
		case len(sv.unknown) > 0:
			counts[m+": accepted with unknown fields"]++
		case v == fieldvalidation.Ignore && len(serverVerdictOf(s.dryRun(path, body, fieldvalidation.Warn.QueryParam())).unknown) > 0:
			// Silent under Ignore: the same request under Warn names them.
			counts[m+": accepted with unknown fields"]++
		default:
			counts[m+": accepted"]++
		}
		if !sv.refused && a.repeated {
			counts[m+": accepted with repeated keys"]++
		}
	}

	refusedKinds := map[schema.GroupKind]bool{}
	for _, a := range crds {
		body := encode(t, a.obj)
		path := "/apis/" + a.obj.GetAPIVersion() + "/customresourcedefinitions"
		sv := serverVerdictOf(s.dryRun(path, body, v.QueryParam()))
		compare(a, sv, path, body)
		group, _, _ := unstructured.NestedString(a.obj.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(a.obj.Object, "spec", "names", "kind")
		if sv.refused {
			refusedKinds[schema.GroupKind{Group: group, Kind: kind}] = true
			continue
		}
		if _, err := s.srv.TryApplyCRD(bytes.Clone(body)); err != nil {
			t.Fatalf("%s: CRD %s accepted by the dry run, not installed: %v", what, a.obj.GetName(), err)
		}
	}
	for _, a := range crs {
		gvk := a.obj.GroupVersionKind()
		gvr, namespaced, err := s.srv.Resource(gvk)
		if err != nil {
			// No such kind (no CRD, or its CRD refused, or the version not
			// served): kubectl's "no matches for kind", a refusal.
			compare(a, verdictOf{refused: true}, "", nil)
			if refusedKinds[gvk.GroupKind()] {
				counts[v.QueryParam()+": custom resource of a refused CRD"]++
			}
			continue
		}
		u := a.obj.DeepCopy()
		path := "/apis/" + gvr.Group + "/" + gvr.Version + "/"
		if namespaced {
			if u.GetNamespace() == "" {
				// kubectl puts it in its context's namespace.
				u.SetNamespace(crd.DefaultNamespace)
			}
			path += "namespaces/" + u.GetNamespace() + "/"
		}
		path += gvr.Resource
		body := encode(t, u)
		compare(a, serverVerdictOf(s.dryRun(path, body, v.QueryParam())), path, body)
	}
	return counts
}

// encode is the body kubectl apply's create sends for the object.
func encode(t *testing.T, u *unstructured.Unstructured) []byte {
	t.Helper()
	b, err := runtime.Encode(unstructured.UnstructuredJSONScheme, u)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serverVerdictOf reads the server's answer: refused or not, the unknown
// fields it names (a strict decoding error's message, or Warning
// headers) with schema paths written as docs/rules.md says crdlint writes
// them, and whether the refusal is the strict decoding error alone.
func serverVerdictOf(a answer) verdictOf {
	var v verdictOf
	v.refused = a.err != nil
	for _, w := range a.warnings {
		v.unknown = append(v.unknown, fieldRE.FindAllString(w, -1)...)
	}
	var st apierrors.APIStatus
	if errors.As(a.err, &st) {
		msg := st.Status().Message
		if strings.Contains(msg, "strict decoding error") {
			v.unknown = append(v.unknown, fieldRE.FindAllString(msg, -1)...)
			v.onlyUnknown = true
		}
	}
	for i, f := range v.unknown {
		v.unknown[i] = fieldAsDocumented(f)
	}
	v.unknown = uniqSorted(v.unknown)
	return v
}

// isBuiltin says crdlint skips the object as a kind the API server itself
// serves.
func isBuiltin(u *unstructured.Unstructured) bool {
	b, err := u.MarshalJSON()
	if err != nil {
		return false
	}
	f := source.Parse("x.json", b)
	return len(f.Documents) == 1 && crd.IsBuiltin(f.Documents[0])
}

// TestKubectlApplyCollapsesRepeatedKeys pins what the comparison above
// rests on: kubectl's builder keeps a repeated key's last value, so the
// server never sees the repeat, in YAML and in JSON.
func TestKubectlApplyCollapsesRepeatedKeys(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.yaml": "apiVersion: example.com/v1\nkind: Box\nmetadata: {name: a}\nspec:\n  color: purple\n  color: red\n",
		"b.json": `{"apiVersion": "example.com/v1", "kind": "Box", "metadata": {"name": "b"}, "spec": {"color": "purple", "color": "red"}}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	infos, err := resource.NewLocalBuilder().Unstructured().
		FilenameParam(false, &resource.FilenameOptions{Filenames: []string{dir}}).Flatten().Do().Infos()
	if err != nil || len(infos) != 2 {
		t.Fatalf("%d infos, %v", len(infos), err)
	}
	for _, info := range infos {
		body := encode(t, info.Object.(*unstructured.Unstructured))
		if bytes.Count(body, []byte(`"color"`)) != 1 || !bytes.Contains(body, []byte(`"color":"red"`)) {
			t.Errorf("%s: kubectl sends %s, want one color, red", info.Name, body)
		}
	}
	if !slices.ContainsFunc(infos, func(i *resource.Info) bool { return i.Name == "a" }) {
		t.Errorf("no info for a.yaml")
	}
}

// loosePaths writes the paths that unknown-field messages quote as
// pathtest.Loose does.
func loosePaths(msgs []string) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = pathtest.Message("", m)
	}
	return out
}
