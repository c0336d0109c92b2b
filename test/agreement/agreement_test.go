package agreement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/rogpeppe/go-internal/txtar"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/pathtest"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/prune"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// A suite is what one `check` run would see: CRs are judged against the
// CRDs of their own suite, and suites do not share a server state.
type suite struct {
	name  string
	files []input
}

type input struct {
	name string
	data []byte
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func readInputs(t *testing.T, paths ...string) []input {
	t.Helper()
	files, err := source.Expand(paths)
	if err != nil {
		t.Fatal(err)
	}
	var out []input
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, input{name: p, data: data})
	}
	return out
}

// corpusProjects are corpus projects whose CRDs the server installs and
// whose example CRs exercise real schemas; kept small for CI time.
var corpusProjects = []string{"cert-manager", "external-snapshotter", "prometheus-operator"}

func suites(t *testing.T) []suite {
	t.Helper()
	root := repoRoot(t)
	var out []suite
	out = append(out, suite{"examples", readInputs(t, filepath.Join(root, "examples"))})
	out = append(out, suite{"pkg/lint/testdata/base-crd.yaml", readInputs(t, filepath.Join(root, "pkg/lint/testdata/base-crd.yaml"))})
	rules, err := filepath.Glob(filepath.Join(root, "pkg/lint/testdata/rules/*/*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rules)
	for _, p := range rules {
		out = append(out, suite{strings.TrimPrefix(p, root+"/"), readInputs(t, p)})
	}
	scripts, err := filepath.Glob(filepath.Join(root, "cmd/kubectl-crdlint/testdata/script/*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(scripts)
	for _, p := range scripts {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := suite{name: strings.TrimPrefix(p, root+"/")}
		for _, f := range a.Files {
			switch strings.ToLower(filepath.Ext(f.Name)) {
			case ".yaml", ".yml", ".json":
				s.files = append(s.files, input{name: s.name + ":" + f.Name, data: f.Data})
			}
		}
		out = append(out, s)
	}
	out = append(out, kepSuites(t, root)...)
	corpus := testutil.CorpusDir(t)
	for _, proj := range corpusProjects {
		var paths []string
		for _, sub := range []string{"crds", "crs"} {
			m, err := filepath.Glob(filepath.Join(corpus, sub, proj+"__*"))
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(m)
			paths = append(paths, m...)
		}
		if len(paths) == 0 {
			t.Fatalf("corpus project %s not found in %s", proj, corpus)
		}
		out = append(out, suite{"corpus:" + proj, readInputs(t, paths...)})
	}
	return out
}

// kepSuites turns the pruning KEP's worked examples of pkg/prune's golden
// files into suites: a CRD with the example's schema, the example's input
// (both from the file's comments), and the stored object the file holds.
func kepSuites(t *testing.T, root string) []suite {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "pkg/prune/testdata/kep/*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []suite
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var schemaYAML string
		var inputYAML strings.Builder
		inInput := false
		for _, line := range strings.Split(string(data), "\n") {
			switch {
			case strings.HasPrefix(line, "# schema: "):
				schemaYAML = strings.TrimPrefix(line, "# schema: ")
			case line == "# input:":
				inInput = true
			case inInput && strings.HasPrefix(line, "#   "):
				inputYAML.WriteString(strings.TrimPrefix(line, "#   ") + "\n")
			default:
				inInput = false
			}
		}
		var schemaObj any
		if err := yaml.Unmarshal([]byte(schemaYAML), &schemaObj); err != nil || schemaObj == nil || inputYAML.Len() == 0 {
			t.Fatalf("%s: no schema or input in its comments (%v)", p, err)
		}
		crdJSON, err := json.Marshal(map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "foos.example.com"},
			"spec": map[string]any{
				"group": "example.com", "scope": "Namespaced",
				"names": map[string]any{"plural": "foos", "kind": "Foo"},
				"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
					"schema": map[string]any{"openAPIV3Schema": schemaObj}}},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p, root+"/")
		out = append(out, suite{name, []input{
			{name + ":crd.json", crdJSON},
			{name + ":input.yaml", []byte(inputYAML.String())},
			{name, data},
		}})
	}
	return out
}

// server sends raw documents, byte for byte as kubectl would send their
// JSON, and captures the Warning headers of each response.
type server struct {
	srv *apiservertest.Server
	rc  *rest.RESTClient
	cs  apiextensionsclient.Interface

	mu       sync.Mutex
	warnings []string
}

func (s *server) HandleWarningHeader(_ int, _ string, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warnings = append(s.warnings, text)
}

func newServer(t *testing.T, srv *apiservertest.Server) *server {
	s := &server{srv: srv}
	cfg := srv.AdminConfig()
	cfg.WarningHandler = s
	cfg.GroupVersion = &schema.GroupVersion{}
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.rc = rc
	s.cs = apiextensionsclient.NewForConfigOrDie(srv.AdminConfig())
	return s
}

// answer is the server's response to one dry-run create.
type answer struct {
	body     []byte
	err      error
	warnings []string
}

func (s *server) dryRun(path string, body []byte, validation string) answer {
	s.mu.Lock()
	s.warnings = nil
	s.mu.Unlock()
	res := s.rc.Post().AbsPath(path).
		Param("dryRun", "All").Param("fieldValidation", validation).
		SetHeader("Content-Type", "application/json").
		Body(body).Do(context.Background())
	// Error, not Raw's error: it decodes the Status with its causes.
	raw, _ := res.Raw()
	err := res.Error()
	s.mu.Lock()
	defer s.mu.Unlock()
	return answer{body: raw, err: err, warnings: s.warnings}
}

// reset deletes every CRD and waits until they are gone, so that the next
// suite's CRDs can be created under the same names.
func (s *server) reset(t *testing.T) {
	ctx := context.Background()
	crds := s.cs.ApiextensionsV1().CustomResourceDefinitions()
	if err := crds.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err := crds.List(ctx, metav1.ListOptions{})
		return err == nil && len(l.Items) == 0, err
	})
	if err != nil {
		t.Fatalf("deleting CRDs: %v", err)
	}
}

// replaceCRD deletes the CRD of raw's name, waits until it is gone, and
// installs raw in its place.
func (s *server) replaceCRD(raw []byte) error {
	var meta struct {
		Metadata struct{ Name string } `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return err
	}
	ctx := context.Background()
	crds := s.cs.ApiextensionsV1().CustomResourceDefinitions()
	if err := crds.Delete(ctx, meta.Metadata.Name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := crds.Get(ctx, meta.Metadata.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return err
	}
	_, err = s.srv.TryApplyCRD(raw)
	return err
}

// verdict is one side's answer, in comparable form.
type verdict struct {
	rejected bool
	// fields are the unknown and duplicate fields, as the server words
	// them: `unknown field "spec.x"`.
	fields []string
	// causes are "field: message" of each error (server: StatusCauses).
	causes []string
	// warnings are the texts of the server's Warning headers, other than
	// the unknown and duplicate fields.
	warnings []string
}

var fieldRE = regexp.MustCompile(`(?:unknown|duplicate) field "(?:[^"\\]|\\.)*"`)

// loose writes the paths of unknown and duplicate fields, or of "field:
// message" causes, whatever the notation (crdlint quotes keys the
// server's libraries write raw; pathtest), sorted.
func loose(s []string, causes bool) []string {
	out := make([]string, len(s))
	for i, c := range s {
		if field, msg, ok := strings.Cut(c, ": "); causes && ok {
			out[i] = pathtest.Pair(field, msg)
		} else {
			out[i] = pathtest.Message("", c)
		}
	}
	sort.Strings(out)
	return out
}

// serverWarningRules are crdlint's rules that report the server's own
// Warning headers (the others are crdlint's advice beyond the server).
var serverWarningRules = map[string]bool{
	lint.RuleUnknownField:          true,
	source.RuleDuplicate:           true,
	lint.RuleCRServerWarning:       true,
	lint.RuleCRDeprecated:          true,
	lint.RuleCRDUnrecognizedFormat: true,
	lint.RuleCRDListSetObjects:     true,
	lint.RuleCRDInvalid:            true,
}

func uniqSorted(s []string) []string {
	sort.Strings(s)
	return slices.Compact(s)
}

// beyondServer are error rules for what no server checks, on purpose:
// crd-mutability judges the Immutable Fields markers by their design
// (docs/immutability.md), which servers drop as unknown fields.
var beyondServer = map[string]bool{lint.RuleCRDMutability: true}

func offlineVerdict(fs []report.Finding) verdict {
	var v verdict
	for _, f := range fs {
		if beyondServer[f.Rule] {
			continue
		}
		isField := f.Rule == lint.RuleUnknownField || f.Rule == source.RuleDuplicate
		switch {
		case isField:
			v.fields = append(v.fields, fieldRE.FindAllString(f.Message, -1)...)
		case f.Severity == report.Error:
			v.causes = append(v.causes, f.Field+": "+f.Message)
		case serverWarningRules[f.Rule]:
			v.warnings = append(v.warnings, f.Message)
		}
		if f.Severity == report.Error {
			v.rejected = true
		}
	}
	v.fields, v.warnings = uniqSorted(v.fields), uniqSorted(v.warnings)
	sort.Strings(v.causes)
	return v
}

func serverVerdict(a answer) (v verdict, hasCauses bool) {
	v.rejected = a.err != nil
	for _, w := range a.warnings {
		if m := fieldRE.FindAllString(w, -1); len(m) > 0 {
			v.fields = append(v.fields, m...)
			continue
		}
		v.warnings = append(v.warnings, w)
	}
	if st, ok := a.err.(apierrors.APIStatus); ok {
		s := st.Status()
		v.fields = append(v.fields, fieldRE.FindAllString(s.Message, -1)...)
		if s.Details != nil {
			for _, c := range s.Details.Causes {
				// client-go makes up this cause for a body that is not a
				// Status (a plain 404 for an unknown resource).
				if c.Type == metav1.CauseTypeUnexpectedServerResponse || fieldRE.MatchString(c.Message) {
					continue
				}
				v.causes = append(v.causes, c.Field+": "+c.Message)
				hasCauses = true
			}
		}
	}
	v.fields, v.warnings = uniqSorted(v.fields), uniqSorted(v.warnings)
	sort.Strings(v.causes)
	return v, hasCauses
}

// tally counts what was compared; every disagreement fails the test.
type tally struct {
	documents, skipped, variants                                  int
	crds, crs                                                     int
	accepted, rejected                                            map[string]int // by mode
	unknownCompared, warningsCompared                             int
	serverWarnings                                                int
	causesCompared, causesEqual, causesTranslated                 int
	causesDocumented                                              int
	strictCRDRejected                                             int
	pruneCompared, pruneTextCompared, pruneRefused, statusDropped int
	crdsInstalled, crdsRejectedBoth                               int
	skips                                                         map[string]int
	byVariant                                                     map[string][2]int // accepted, rejected under Warn
	slowSuites                                                    []string
	disagreements                                                 []string
}

func (tl *tally) disagree(format string, args ...any) {
	tl.disagreements = append(tl.disagreements, fmt.Sprintf(format, args...))
}

const (
	strict = "Strict"
	warn   = "Warn"
)

var modes = []string{strict, warn}

// directives are the --validate each mode's answers are compared with,
// given explicitly: `check --validate=strict` (the default) against
// fieldValidation=Strict, `check --validate=warn` against Warn.
var directives = map[string]fieldvalidation.Directive{strict: fieldvalidation.Strict, warn: fieldvalidation.Warn}

// offline is crdlint's side of a suite, set up as `check --validate=strict`
// and `check --validate=warn` set it up (pkg/check/check.go).
type offline struct {
	linters map[string]*lint.Linter
	cats    map[string]*crd.Catalog
	// raw is each collected CRD's JSON as written, by its source, to
	// install it in the server.
	raw map[string][]byte
}

func newOffline(files []*source.File) *offline {
	o := &offline{linters: map[string]*lint.Linter{}, cats: map[string]*crd.Catalog{}, raw: map[string][]byte{}}
	for _, m := range modes {
		v := directives[m]
		if v.QueryParam() != m {
			panic("mode " + m + " is compared with --validate=" + v.String())
		}
		cat := crd.NewCatalog(v.Refuses())
		l := lint.New(lint.Options{Validate: v, Catalog: cat})
		for _, f := range files {
			found := crd.FindCRDs(f)
			for _, fd := range found {
				o.raw[fd.Source()] = fd.Doc.JSON
			}
			cat.AddFound(found, crd.Input)
		}
		o.linters[m], o.cats[m] = l, cat
	}
	return o
}

// findings lints a file and files the findings by document.
func (o *offline) findings(mode string, f *source.File) map[int][]report.Finding {
	fs, _ := o.linters[mode].File(f)
	out := map[int][]report.Finding{}
	for _, x := range fs {
		out[x.Document] = append(out[x.Document], x)
	}
	return out
}

// servers is how many API servers share the suites. Each suite needs a
// server of its own (CRDs of the same name), and the server sleeps 2s
// before the first create of a kind established less than 2s before
// (customresource_handler.go, for HA clusters): several servers overlap
// those sleeps.
const servers = 3

func newTally() *tally {
	return &tally{accepted: map[string]int{}, rejected: map[string]int{}, skips: map[string]int{}, byVariant: map[string][2]int{}}
}

func (tl *tally) merge(o *tally) {
	tl.documents += o.documents
	tl.skipped += o.skipped
	tl.variants += o.variants
	tl.crds += o.crds
	tl.crs += o.crs
	tl.unknownCompared += o.unknownCompared
	tl.warningsCompared += o.warningsCompared
	tl.serverWarnings += o.serverWarnings
	tl.causesCompared += o.causesCompared
	tl.causesEqual += o.causesEqual
	tl.causesTranslated += o.causesTranslated
	tl.causesDocumented += o.causesDocumented
	tl.strictCRDRejected += o.strictCRDRejected
	tl.pruneCompared += o.pruneCompared
	tl.pruneTextCompared += o.pruneTextCompared
	tl.pruneRefused += o.pruneRefused
	tl.statusDropped += o.statusDropped
	tl.crdsInstalled += o.crdsInstalled
	tl.crdsRejectedBoth += o.crdsRejectedBoth
	for k, v := range o.accepted {
		tl.accepted[k] += v
	}
	for k, v := range o.rejected {
		tl.rejected[k] += v
	}
	for k, v := range o.skips {
		tl.skips[k] += v
	}
	for k, v := range o.byVariant {
		c := tl.byVariant[k]
		tl.byVariant[k] = [2]int{c[0] + v[0], c[1] + v[1]}
	}
	tl.slowSuites = append(tl.slowSuites, o.slowSuites...)
	tl.disagreements = append(tl.disagreements, o.disagreements...)
}

func TestAgreement(t *testing.T) {
	began := time.Now()
	pool := make([]*server, servers)
	for i := range pool {
		pool[i] = newServer(t, apiservertest.Start(t, apiservertest.Options{}))
	}
	startup := time.Since(began)

	// The corpus suites are the longest: first, so that the servers end
	// together.
	all := suites(t)
	sort.SliceStable(all, func(i, j int) bool {
		return strings.HasPrefix(all[i].name, "corpus:") && !strings.HasPrefix(all[j].name, "corpus:")
	})
	// A subtest per suite, for -run; the tally and the verdict are the
	// whole run's.
	work := make(chan suite)
	tallies := make([]*tally, servers)
	var ran atomic.Int32
	var wg sync.WaitGroup
	for i := range pool {
		tallies[i] = newTally()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for su := range work {
				t.Run(su.name, func(t *testing.T) {
					ran.Add(1)
					t0 := time.Now()
					runSuite(t, pool[i], su, tallies[i])
					if d := time.Since(t0); d > 5*time.Second {
						tallies[i].slowSuites = append(tallies[i].slowSuites, fmt.Sprintf("%s %v", su.name, d.Round(time.Millisecond)))
					}
				})
			}
		}()
	}
	for _, su := range all {
		work <- su
	}
	close(work)
	wg.Wait()
	if int(ran.Load()) < len(all) {
		// A subset proves little; the counts below are for the full run.
		return
	}
	tl := newTally()
	for _, o := range tallies {
		tl.merge(o)
	}
	sort.Strings(tl.disagreements)
	sort.Strings(tl.slowSuites)

	var b strings.Builder
	fmt.Fprintf(&b, "agreement with the API server (dry-run create, fieldValidation=Strict and Warn); %d servers started in %v, total %v\n", servers,
		startup.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	fmt.Fprintf(&b, "  documents: %d (%d generated variants); compared: %d CRDs, %d CRs; skipped: %d %v\n",
		tl.documents, tl.variants, tl.crds, tl.crs, tl.skipped, tl.skips)
	for _, m := range modes {
		fmt.Fprintf(&b, "  %-6s accepted %d, rejected %d (verdicts equal)\n", m, tl.accepted[m], tl.rejected[m])
	}
	fmt.Fprintf(&b, "  CRDs installed: %d; CRDs both reject: %d; CRs of CRDs rejected only under Strict (crdlint must say cr-crd-rejected; not sent): %d\n", tl.crdsInstalled, tl.crdsRejectedBoth, tl.strictCRDRejected)
	fmt.Fprintf(&b, "  unknown/duplicate field sets compared: %d; warning sets compared: %d (%d server warnings)\n", tl.unknownCompared, tl.warningsCompared, tl.serverWarnings)
	fmt.Fprintf(&b, "  errors (field and message of each status cause): %d rejections compared, %d equal, %d equal once CRD paths are translated, %d equal once the differences docs/rules.md lists are applied to the server's text\n", tl.causesCompared, tl.causesEqual, tl.causesTranslated, tl.causesDocumented)
	fmt.Fprintf(&b, "  variants (accepted, rejected under Warn): %v\n", tl.byVariant)
	fmt.Fprintf(&b, "  prune's printed text read back equal to the dry run's object: %d (refused, anchors sharing pruned text: %d)\n", tl.pruneTextCompared, tl.pruneRefused)
	fmt.Fprintf(&b, "  prune (--defaults) equal to the dry run's object: %d (status dropped from prune's output as the server does, status subresource: %d)\n", tl.pruneCompared, tl.statusDropped)
	if len(tl.slowSuites) > 0 {
		fmt.Fprintf(&b, "  slow suites: %s\n", strings.Join(tl.slowSuites, ", "))
	}
	fmt.Fprintf(&b, "  disagreements: %d\n", len(tl.disagreements))
	for _, d := range tl.disagreements {
		fmt.Fprintf(&b, "    - %s\n", d)
	}
	t.Log(b.String())
	fmt.Fprint(os.Stderr, b.String())
	if len(tl.disagreements) > 0 {
		t.Errorf("%d disagreements with the API server (see above)", len(tl.disagreements))
	}
	// Agreement on nothing proves nothing: each kind of comparison must
	// have happened, so that losing inputs or a broken parse shows.
	for what, n := range map[string]int{
		"accepted under Strict": tl.accepted[strict], "rejected under Strict": tl.rejected[strict],
		"accepted under Warn": tl.accepted[warn], "rejected under Warn": tl.rejected[warn],
		"CRDs installed": tl.crdsInstalled, "CRDs rejected": tl.crdsRejectedBoth,
		"server warnings": tl.serverWarnings, "status causes compared": tl.causesCompared,
		"prune comparisons": tl.pruneCompared, "prune text comparisons": tl.pruneTextCompared, "status dropped": tl.statusDropped,
		"unknown-top variants accepted":          tl.byVariant["unknown-top"][0],
		"type-flipped variants rejected":         tl.byVariant["type-flipped"][1],
		"CRs of CRDs rejected only under Strict": tl.strictCRDRejected,
	} {
		if n == 0 {
			t.Errorf("nothing compared: %s", what)
		}
	}
}

func runSuite(t *testing.T, s *server, su suite, tl *tally) {
	s.reset(t)
	var files []*source.File
	for _, in := range su.files {
		files = append(files, source.Parse(in.name, in.data))
	}
	off := newOffline(files)
	found := make([]map[string]map[int][]report.Finding, len(files))
	for i, f := range files {
		found[i] = map[string]map[int][]report.Finding{}
		for _, m := range modes {
			found[i][m] = off.findings(m, f)
		}
	}

	// CRDs first: each is dry-run on an empty server.
	for i, f := range files {
		byDoc := found[i]
		for _, d := range f.Documents {
			if !crd.IsCRD(d) {
				continue
			}
			tl.documents++
			if reason := skipReason(f, d); reason != "" {
				tl.skipped++
				tl.skips[reason]++
				continue
			}
			tl.crds++
			path := "/apis/" + d.Object.APIVersion + "/customresourcedefinitions"
			rejectedBy := 0
			for _, m := range modes {
				compare(tl, fmt.Sprintf("%s doc %d (CRD %s)", f.Path, d.Index, d.Object.Name), m,
					offlineVerdict(byDoc[m][d.Index]), s.dryRun(path, d.JSON, m), false)
				if offlineVerdict(byDoc[m][d.Index]).rejected {
					rejectedBy++
				}
			}
			if rejectedBy == len(modes) {
				tl.crdsRejectedBoth++
			}
		}
	}

	// Install what `check` validates CRs against: the catalogue's CRDs
	// the server accepts under Warn, those that judge custom resources of
	// no place in particular (compareCR swaps in the one that judges a
	// custom resource where it is, when another does).
	installed := map[schema.GroupKind]string{}
	for _, e := range off.cats[warn].Entries() {
		if e.Rejected(false) {
			continue
		}
		if _, err := s.srv.TryApplyCRD(off.raw[e.Source]); err != nil {
			tl.disagree("%s: CRD %s accepted offline could not be installed: %v", e.Source, e.CRD().Name, err)
			continue
		}
		tl.crdsInstalled++
		installed[schema.GroupKind{Group: e.CRD().Spec.Group, Kind: e.CRD().Spec.Names.Kind}] = e.Source
	}

	for i, f := range files {
		var variants []*source.File
		byDoc := found[i]
		for _, d := range f.Documents {
			if crd.IsCRD(d) || crd.IsBuiltin(d) {
				continue
			}
			tl.documents++
			if vs, ok := compareCR(t, s, off, tl, f, d, byDoc, installed); ok {
				variants = append(variants, vs...)
			}
		}
		for _, vf := range variants {
			byDoc := map[string]map[int][]report.Finding{}
			for _, m := range modes {
				byDoc[m] = off.findings(m, vf)
			}
			for _, d := range vf.Documents {
				tl.documents++
				tl.variants++
				compareCR(t, s, off, tl, vf, d, byDoc, installed)
			}
		}
	}
}

// skipReason says why a document cannot be compared, or "".
func skipReason(f *source.File, d *source.Document) string {
	if d.Item >= 0 {
		// Findings name the document, not the item of a List.
		return "item of a List"
	}
	for _, x := range f.Findings {
		if x.Rule == source.RuleSyntax {
			// kubectl would not send anything of this file.
			return "YAML syntax error in the file"
		}
		if x.Document == d.Index && x.Rule == source.RuleDuplicate {
			// The JSON sent has them collapsed; kubectl's own decoder
			// refuses duplicate keys before sending.
			return "duplicate keys"
		}
	}
	if d.Object.APIVersion == "" || d.Object.Kind == "" {
		return "no apiVersion or kind"
	}
	return ""
}

// compareCR compares a custom resource in both modes and the pruned
// object; it returns the variants to compare next when the CR is valid.
func compareCR(t *testing.T, s *server, off *offline, tl *tally, f *source.File, d *source.Document,
	byDoc map[string]map[int][]report.Finding, installed map[schema.GroupKind]string) ([]*source.File, bool) {
	if reason := skipReason(f, d); reason != "" {
		tl.skipped++
		tl.skips[reason]++
		return nil, false
	}
	g, ver := d.GroupVersion()
	gvk := schema.GroupVersionKind{Group: g, Version: ver, Kind: d.Object.Kind}
	entry := off.cats[warn].EntryAt(gvk, f.Path)
	if entry == nil {
		// cr-no-crd: the server would answer 404 for a kind no CRD of
		// the suite defines; nothing of the server's to compare.
		tl.skipped++
		tl.skips["no CRD in its suite"]++
		return nil, false
	}
	if src := installed[gvk.GroupKind()]; src != "" && src != entry.Source && !entry.Rejected(false) {
		// Another definition of the kind judges here (the nearest,
		// crd/judge.go): the server must hold that one.
		if err := s.replaceCRD(off.raw[entry.Source]); err != nil {
			tl.disagree("%s: CRD %s accepted offline could not be installed: %v", entry.Source, entry.CRD().Name, err)
			delete(installed, gvk.GroupKind())
		} else {
			installed[gvk.GroupKind()] = entry.Source
		}
	}
	if !entry.Rejected(false) && installed[gvk.GroupKind()] == "" {
		tl.skipped++
		tl.skips["CRD not installed"]++
		return nil, false
	}
	tl.crs++
	what := fmt.Sprintf("%s doc %d (%s %s)", f.Path, d.Index, d.Object.Kind, d.Object.Name)
	path := "/apis/" + gvk.Group + "/" + gvk.Version + "/"
	ns := d.Object.Namespace
	if entry.CRD().Spec.Scope == apiextensionsv1.NamespaceScoped {
		if ns == "" {
			ns = crd.DefaultNamespace
		}
		path += "namespaces/" + ns + "/"
	}
	path += entry.CRD().Spec.Names.Plural

	var warnAnswer answer
	var warnOffline verdict
	for _, m := range modes {
		ov := offlineVerdict(byDoc[m][d.Index])
		se := off.cats[strict].Entry(gvk.GroupKind())
		if m == strict && se != nil && se.Rejected(true) && !entry.Rejected(false) {
			// The CRD has unknown fields: under Strict the server refused
			// it (compared above), so its kind does not exist and every
			// create is refused. crdlint must say so.
			tl.strictCRDRejected++
			if !hasRule(byDoc[m][d.Index], lint.RuleCRCRDRejected) {
				tl.disagree("%s [%s]: its CRD is refused under Strict, crdlint has no %s error", what, m, lint.RuleCRCRDRejected)
			}
			continue
		}
		a := s.dryRun(path, d.JSON, m)
		compare(tl, what, m, ov, a, true)
		if m == warn {
			warnAnswer, warnOffline = a, ov
		}
	}
	if m := variantRE.FindStringSubmatch(f.Path); m != nil {
		c := tl.byVariant[m[1]]
		if warnAnswer.err != nil {
			c[1]++
		} else {
			c[0]++
		}
		tl.byVariant[m[1]] = c
	}
	if warnAnswer.err != nil || warnOffline.rejected {
		return nil, true
	}
	comparePrune(tl, what, off, gvk, f, d, warnAnswer.body)
	if len(warnOffline.fields) > 0 || variantRE.MatchString(f.Path) {
		return nil, true
	}
	return makeVariants(off, gvk, f, d), true
}

// variantRE matches the names makeVariants gives, capturing the kind.
var variantRE = regexp.MustCompile(`#\d+-([a-z-]+)\.json$`)

func hasRule(fs []report.Finding, rule string) bool {
	for _, f := range fs {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// crdPaths translate the paths of CRD errors to one form. The server
// validates its internal CRD, in which a schema, selectable fields,
// printer columns or subresources that all versions share are hoisted to
// spec (spec.validation, spec.selectableFields, ...), and the conversion
// webhook fields sit elsewhere; crdlint reports each at the path of the
// user's apiextensions.k8s.io/v1 document, where a file position exists
// (pkg/lint). Both sides are mapped to the hoisted form, which loses only
// the version index.
var crdPaths = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`^spec\.versions\[\d+\]\.schema\.`), "spec.validation."},
	{regexp.MustCompile(`^spec\.versions\[\d+\]\.(selectableFields|subresources|additionalPrinterColumns)`), "spec.$1"},
	{regexp.MustCompile(`^(spec\.additionalPrinterColumns\[\d+\])\.jsonPath`), "$1.JSONPath"},
	{regexp.MustCompile(`^spec\.conversion\.webhook\.clientConfig`), "spec.conversion.webhookClientConfig"},
	{regexp.MustCompile(`^spec\.conversion\.webhook\.conversionReviewVersions`), "spec.conversion.conversionReviewVersions"},
	// "must have the storage version": the user's document has no status.
	{regexp.MustCompile(`^status\.storedVersions`), "spec.versions"},
}

func translateCRDPaths(causes []string) []string {
	out := make([]string, len(causes))
	for i, c := range causes {
		out[i] = translateCRDPath(c)
	}
	sort.Strings(out)
	return out
}

func translateCRDPath(c string) string {
	for _, p := range crdPaths {
		c = p.re.ReplaceAllString(c, p.with)
	}
	return c
}

func compare(tl *tally, what, mode string, ov verdict, a answer, cr bool) {
	sv, hasCauses := serverVerdict(a)
	if ov.rejected != sv.rejected {
		tl.disagree("%s [%s]: crdlint rejected=%v, server rejected=%v (server: %v; crdlint: %q %q)", what, mode, ov.rejected, sv.rejected, a.err, ov.fields, ov.causes)
		return
	}
	if sv.rejected {
		tl.rejected[mode]++
	} else {
		tl.accepted[mode]++
	}
	tl.unknownCompared++
	var serverFields []string
	for _, f := range sv.fields {
		serverFields = append(serverFields, fieldAsDocumented(f))
	}
	if !reflect.DeepEqual(loose(ov.fields, false), loose(uniqSorted(serverFields), false)) {
		tl.disagree("%s [%s]: unknown/duplicate fields: crdlint %q, server %q", what, mode, ov.fields, sv.fields)
	}
	tl.warningsCompared++
	tl.serverWarnings += len(sv.warnings)
	if !reflect.DeepEqual(ov.warnings, sv.warnings) {
		tl.disagree("%s [%s]: warnings: crdlint %q, server %q", what, mode, ov.warnings, sv.warnings)
	}
	if sv.rejected && hasCauses {
		tl.causesCompared++
		switch {
		case reflect.DeepEqual(loose(ov.causes, true), loose(sv.causes, true)):
			tl.causesEqual++
		case !cr && reflect.DeepEqual(loose(translateCRDPaths(ov.causes), true), loose(translateCRDPaths(sv.causes), true)):
			tl.causesTranslated++
		case cr && causesAsDocumented(ov.causes, sv.causes, nil),
			!cr && causesAsDocumented(ov.causes, sv.causes, translateCRDPath):
			tl.causesDocumented++
		default:
			tl.disagree("%s [%s]: errors differ:\n        crdlint %q\n        server  %q", what, mode, ov.causes, sv.causes)
		}
	}
}

// comparePrune compares `prune --defaults` (pkg/crd Version.Prune, as
// cmd/kubectl-crdlint/cmd/prune.go calls it) with the object the dry run
// returned, less what the server adds on create.
func comparePrune(tl *tally, what string, off *offline, gvk schema.GroupVersionKind, f *source.File, d *source.Document, body []byte) {
	v, err := off.cats[warn].Lookup(gvk)
	if err != nil {
		tl.disagree("%s: the server accepted it but prune finds no CRD version (%v)", what, err)
		return
	}
	var want map[string]any
	if err := utiljson.Unmarshal(d.JSON, &want); err != nil {
		tl.disagree("%s: %v", what, err)
		return
	}
	if _, err := v.Prune(want, true); err != nil {
		tl.disagree("%s: prune: %v", what, err)
		return
	}
	// What the prune command prints: the document's own text edited (or,
	// for JSON input, re-rendered in the input's key order), read back as
	// kubectl would read it.
	printed, err := printedByPrune(f, d, want)
	switch {
	case err != nil && strings.Contains(err.Error(), "expand the anchor to prune here"):
		// The command refuses, with this one line, to edit text an alias
		// shares; it prints nothing wrong.
		tl.pruneRefused++
		printed = nil
	case err != nil:
		tl.disagree("%s: prune's rewrite: %v", what, err)
		return
	}
	// prune keeps status; the server drops it on create when the status
	// subresource is enabled (its strategy's PrepareForCreate).
	if v.Spec.Subresources != nil && v.Spec.Subresources.Status != nil {
		if _, ok := want["status"]; ok {
			tl.statusDropped++
			delete(want, "status")
		}
		delete(printed, "status")
	}
	var got map[string]any
	if err := utiljson.Unmarshal(body, &got); err != nil {
		tl.disagree("%s: server body: %v", what, err)
		return
	}
	if md, ok := got["metadata"].(map[string]any); ok {
		for _, k := range []string{"uid", "creationTimestamp", "generation", "managedFields", "resourceVersion"} {
			delete(md, k)
		}
		if d.Object.Namespace == "" {
			delete(md, "namespace")
		}
		if wm, _ := want["metadata"].(map[string]any); wm["name"] == nil {
			delete(md, "name") // generated from generateName
		}
		if len(md) == 0 {
			delete(got, "metadata")
		}
	}
	if wm, ok := want["metadata"].(map[string]any); ok && len(wm) == 0 {
		delete(want, "metadata")
	}
	if pm, ok := printed["metadata"].(map[string]any); ok && len(pm) == 0 {
		delete(printed, "metadata")
	}
	tl.pruneCompared++
	if !reflect.DeepEqual(normalize(want), normalize(got)) {
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got)
		tl.disagree("%s: prune --defaults differs from the dry run's object:\n        prune  %s\n        server %s", what, w, g)
	}
	if printed == nil {
		return
	}
	tl.pruneTextCompared++
	if !reflect.DeepEqual(normalize(printed), normalize(got)) {
		p, _ := json.Marshal(printed)
		g, _ := json.Marshal(got)
		tl.disagree("%s: the text prune --defaults prints differs from the dry run's object:\n        printed %s\n        server  %s", what, p, g)
	}
}

// printedByPrune is the object the prune command's output for d reads back
// as: prune.Rewrite of the document's text (prune.OrderedJSON for JSON
// files), decoded by the loader as kubectl would decode it.
func printedByPrune(f *source.File, d *source.Document, obj map[string]any) (map[string]any, error) {
	var out []byte
	if strings.HasSuffix(f.Path, ".json") {
		b, err := prune.OrderedJSON(d.Root, obj)
		if err != nil {
			return nil, err
		}
		out = b
	} else {
		text := f.Texts[d.Index]
		one := source.Parse(f.Path, text)
		if len(one.Documents) != 1 {
			return nil, fmt.Errorf("document %d does not parse alone (%d documents)", d.Index, len(one.Documents))
		}
		b, err := prune.Rewrite(one, text, []prune.Doc{{Document: one.Documents[0], Object: obj}})
		if err != nil {
			return nil, err
		}
		out = b
	}
	back := source.Parse(f.Path, out)
	if len(back.Documents) != 1 {
		return nil, fmt.Errorf("the rewrite reads back as %d documents", len(back.Documents))
	}
	var m map[string]any
	if err := utiljson.Unmarshal(back.Documents[0].JSON, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// normalize makes numbers compare alike on both sides.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = utiljson.Unmarshal(b, &out)
	return out
}

// makeVariants derives, from a CR both sides accept, deterministic
// variants: an unknown field at the top of spec and one nested deeper,
// a value of the wrong type, and a required field removed.
func makeVariants(off *offline, gvk schema.GroupVersionKind, f *source.File, d *source.Document) []*source.File {
	v, err := off.cats[warn].Lookup(gvk)
	if err != nil {
		return nil
	}
	var out []*source.File
	add := func(kind string, mutate func(obj map[string]any) bool) {
		var obj map[string]any
		if err := utiljson.Unmarshal(d.JSON, &obj); err != nil {
			return
		}
		if !mutate(obj) {
			return
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return
		}
		out = append(out, source.Parse(fmt.Sprintf("%s#%d-%s.json", f.Path, d.Index, kind), b))
	}
	add("unknown-top", func(obj map[string]any) bool {
		spec, ok := obj["spec"].(map[string]any)
		if !ok {
			return false
		}
		spec["crdlintUnknownTop"] = "x"
		return true
	})
	add("unknown-nested", func(obj map[string]any) bool {
		m := firstMap(obj["spec"], 0)
		if m == nil {
			return false
		}
		m["crdlintUnknownNested"] = int64(1)
		return true
	})
	add("type-flipped", func(obj map[string]any) bool {
		return flipFirstScalar(obj["spec"])
	})
	// prune keeps status; on create the server drops it when the status
	// subresource is on, and keeps it (pruned) otherwise.
	// The variants read the version's schema from its structural form:
	// the catalogue drops the decoded one once the version is compiled.
	add("with-status", func(obj map[string]any) bool {
		if v.Structural() == nil {
			return false
		}
		if _, ok := v.Structural().Properties["status"]; !ok {
			return false
		}
		if _, ok := obj["status"]; ok {
			return false
		}
		obj["status"] = map[string]any{}
		return true
	})
	add("required-removed", func(obj map[string]any) bool {
		s := v.Structural()
		if s == nil {
			return false
		}
		if ps, ok := s.Properties["spec"]; ok {
			if spec, ok := obj["spec"].(map[string]any); ok {
				for _, r := range required(&ps) {
					if _, has := spec[r]; has {
						delete(spec, r)
						return true
					}
				}
			}
		}
		for _, r := range required(s) {
			if _, has := obj[r]; has && r != "apiVersion" && r != "kind" && r != "metadata" {
				delete(obj, r)
				return true
			}
		}
		return false
	})
	return out
}

// required is a structural schema node's required properties.
func required(s *structuralschema.Structural) []string {
	if s.ValueValidation == nil {
		return nil
	}
	return s.ValueValidation.Required
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// firstMap is the first object nested in v (depth > 0), in key order.
func firstMap(v any, depth int) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		if depth > 0 {
			return x
		}
		for _, k := range sortedKeys(x) {
			if m := firstMap(x[k], depth+1); m != nil {
				return m
			}
		}
	case []any:
		for _, e := range x {
			if m := firstMap(e, depth+1); m != nil {
				return m
			}
		}
	}
	return nil
}

// flipFirstScalar gives the first scalar under v, in key order, a value
// of another JSON type.
func flipFirstScalar(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			switch e := x[k].(type) {
			case string:
				x[k] = int64(12345)
				return true
			case int64, float64, bool:
				x[k] = "flipped"
				return true
			default:
				if flipFirstScalar(e) {
					return true
				}
			}
		}
	case []any:
		for i, e := range x {
			switch e.(type) {
			case string:
				x[i] = int64(12345)
				return true
			case int64, float64, bool:
				x[i] = "flipped"
				return true
			default:
				if flipFirstScalar(e) {
					return true
				}
			}
		}
	}
	return false
}
