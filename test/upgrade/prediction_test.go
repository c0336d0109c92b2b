package upgrade

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/compare"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/replay"
)

// scenario is one upgrade: OLD, NEW and objects created under OLD.
type scenario struct {
	name                string
	old, new, objects   string
	refused             bool // the server refuses the CRD update
	minObjects, minBugs int  // at least this many objects, and broken ones
}

var scenarios = []scenario{
	{name: "examples", old: "../../examples/upgrade/widget-v1.yaml", new: "../../examples/upgrade/widget-v2.yaml", objects: "../../examples/upgrade/objects.yaml", minObjects: 6, minBugs: 5},
	{name: "gadgets", old: "testdata/gadgets/old.yaml", new: "testdata/gadgets/new.yaml", objects: "testdata/gadgets/objects.yaml", minObjects: 13, minBugs: 10},
	{name: "stored-version-removed", old: "testdata/stored-version-removed/old.yaml", new: "testdata/stored-version-removed/new.yaml", objects: "testdata/stored-version-removed/objects.yaml", refused: true, minObjects: 1},
	{name: "scope-and-kind", old: "testdata/scope-and-kind/old.yaml", new: "testdata/scope-and-kind/new.yaml", objects: "testdata/scope-and-kind/objects.yaml", refused: true, minObjects: 1},
}

// output is the command's JSON output.
type output struct {
	Findings []report.Finding        `json:"findings"`
	Summary  report.Summary          `json:"summary"`
	Upgrades []report.UpgradeSummary `json:"upgrades"`
}

// runUpgrade runs kubectl crdlint upgrade in-process with -o json.
func runUpgrade(t *testing.T, args ...string) (output, int) {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	code := cmd.Main(streams, append([]string{"upgrade", "-o", "json"}, args...))
	if code == 2 {
		t.Fatalf("upgrade %s: exit 2: %s", strings.Join(args, " "), errOut)
	}
	var o output
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatalf("upgrade %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return o, code
}

// prediction is what the command says, keyed so that a live run and an
// offline run, and the server, can be compared.
type prediction struct {
	// refused is the summary's verdict on the CRD update.
	refused bool
	// server are the messages of the server's verdict on the CRD update.
	server []string
	// changes are the breaking-change report's rule, field and message.
	changes []string
	objects map[string]*objectPrediction
}

type objectPrediction struct {
	create, update, pruned []string // "field: message", paths
	unserved, storedGone   bool
	other                  []string
}

func (p *objectPrediction) String() string {
	return fmt.Sprintf("create %q update %q pruned %q unserved %t storedGone %t other %q", p.create, p.update, p.pruned, p.unserved, p.storedGone, p.other)
}

// predictionOf sorts a run's findings: those positioned in a CRD file
// are the CRD verdict's (rule crd-*, or a comparison rule the server's
// refusal is reported with) or the breaking-change report's; the others
// are about objects.
func predictionOf(t *testing.T, o output) *prediction {
	t.Helper()
	if len(o.Upgrades) != 1 {
		t.Fatalf("%d upgrade summaries, want 1: %+v", len(o.Upgrades), o.Upgrades)
	}
	p := &prediction{refused: o.Upgrades[0].UpdateRefused, objects: map[string]*objectPrediction{}}
	for _, f := range o.Findings {
		if !strings.HasPrefix(f.Rule, "upgrade-object-") {
			switch {
			case f.Severity == report.Error && (strings.HasPrefix(f.Rule, "crd-") || compare.ServerRule(f.Field, f.Message) != ""):
				p.server = append(p.server, f.Message)
			case strings.HasPrefix(f.Rule, "upgrade-"):
				p.changes = append(p.changes, f.Rule+" "+f.Field+" "+f.Message)
			default:
				t.Errorf("unexpected finding %s at %s:%d: %s", f.Rule, f.File, f.Line, f.Message)
			}
			continue
		}
		k := objectKey(f.Object.Namespace, f.Object.Name)
		op := p.objects[k]
		if op == nil {
			op = &objectPrediction{}
			p.objects[k] = op
		}
		fm := f.Field + ": " + f.Message
		switch f.Rule {
		case replay.RuleObjectCreateRefused:
			op.create = append(op.create, fm)
		case replay.RuleObjectUpdateRefused:
			op.update = append(op.update, fm)
		case replay.RuleObjectDataLost:
			op.pruned = append(op.pruned, f.Field)
		case replay.RuleObjectVersionUnserved:
			op.unserved = true
		case replay.RuleObjectStoredVersionGone:
			op.storedGone = true
		default:
			op.other = append(op.other, f.Rule+" "+fm)
		}
	}
	p.server = uniqueSorted(p.server)
	sort.Strings(p.changes)
	for _, op := range p.objects {
		for _, s := range []*[]string{&op.create, &op.update, &op.pruned, &op.other} {
			*s = uniqueSorted(*s)
		}
	}
	return p
}

// rootField writes an error at the object's root as findings do: the
// server's "<nil>" field is "".
func rootField(fieldMessage string) string {
	if rest, ok := strings.CutPrefix(fieldMessage, "<nil>: "); ok {
		return ": " + rest
	}
	return fieldMessage
}

// rootFields is rootField of each.
func rootFields(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = rootField(x)
	}
	return uniqueSorted(out)
}

func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func uniqueSorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// manifests reads a scenario's objects.
func manifests(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, d := range source.Parse(path, data).Documents {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(d.JSON); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, u)
	}
	return out
}

// crdOf reads a CRD file's plural, group, storage version and served
// versions.
type crdInfo struct {
	plural, group, storage string
	served                 map[string]bool
	namespaced             bool
}

func readCRDInfo(t *testing.T, path string) crdInfo {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Spec struct {
			Group string
			Names struct{ Plural string }
			Scope string
			// Versions in the file's order.
			Versions []struct {
				Name            string
				Served, Storage bool
			}
		}
	}
	if err := sigsyaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	info := crdInfo{plural: c.Spec.Names.Plural, group: c.Spec.Group, served: map[string]bool{}, namespaced: c.Spec.Scope != "Cluster"}
	for _, v := range c.Spec.Versions {
		info.served[v.Name] = v.Served
		if v.Storage {
			info.storage = v.Name
		}
	}
	return info
}

// TestPredictionAgainstReality installs OLD on a real server, creates the
// objects, predicts with `upgrade --live NEW` and with `upgrade OLD NEW
// OBJECTS` (the same), then applies NEW for real and does what was
// predicted: the CRD update, a labels-only update of each stored object
// (and what etcd holds after it), and a create of each manifest. Every
// prediction must be what the server does.
func TestPredictionAgainstReality(t *testing.T) {
	srv := apiservertest.Start(t, apiservertest.Options{})
	kubeconfig := srv.Kubeconfig(t, apiservertest.AdminUser)
	dyn := srv.Dynamic(t)
	totals := map[string]int{}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			oldInfo, newInfo := readCRDInfo(t, sc.old), readCRDInfo(t, sc.new)
			oldYAML, err := os.ReadFile(sc.old)
			if err != nil {
				t.Fatal(err)
			}
			srv.ApplyCRD(t, oldYAML)
			objs := manifests(t, sc.objects)
			if len(objs) < sc.minObjects {
				t.Fatalf("%d objects in %s, want at least %d", len(objs), sc.objects, sc.minObjects)
			}
			before := map[string]map[string]any{}
			for _, u := range objs {
				srv.Create(t, u.DeepCopy())
				before[objectKey(u.GetNamespace(), u.GetName())] = srv.Stored(t, oldInfo.group, oldInfo.plural, u.GetNamespace(), u.GetName())
			}

			// The creates below are client-go's, which name no field
			// validation: the server's default, Warn, which --validate=warn
			// predicts. kubectl apply's default, Strict, is predicted without
			// the flag and checked against dry-run creates under Strict.
			liveOut, _ := runUpgrade(t, "--validate=warn", "--live", "--kubeconfig", kubeconfig, sc.new)
			offOut, _ := runUpgrade(t, "--validate=warn", sc.old, sc.new, sc.objects)
			live, off := predictionOf(t, liveOut), predictionOf(t, offOut)
			comparePredictions(t, live, off)
			strictLiveOut, _ := runUpgrade(t, "--live", "--kubeconfig", kubeconfig, sc.new)
			strictOffOut, _ := runUpgrade(t, sc.old, sc.new, sc.objects)
			strict := predictionOf(t, strictLiveOut)
			comparePredictions(t, strict, predictionOf(t, strictOffOut))
			if live.refused != sc.refused {
				t.Fatalf("predicted the CRD update refused=%t, the scenario says %t", live.refused, sc.refused)
			}

			// The CRD update, for real.
			newYAML, err := os.ReadFile(sc.new)
			if err != nil {
				t.Fatal(err)
			}
			_, err = srv.TryUpdateCRD(newYAML)
			var se *apierrors.StatusError
			switch {
			case err == nil && live.refused:
				t.Fatalf("predicted the CRD update refused (%q), the server accepted it", live.server)
			case err != nil && !errors.As(err, &se):
				t.Fatalf("update CRD: %v", err)
			case err != nil && !live.refused:
				t.Fatalf("predicted the CRD update accepted, the server refused it: %v", err)
			}
			if got := causes(err, false); !slices.Equal(got, live.server) {
				t.Errorf("CRD update: the server says\n  %q\npredicted\n  %q", got, live.server)
			}
			totals["crd updates"]++
			if err != nil {
				totals["crd updates refused"]++
				return
			}

			bugs := 0
			for _, u := range objs {
				k := objectKey(u.GetNamespace(), u.GetName())
				op := live.objects[k]
				if op == nil {
					op = &objectPrediction{}
				}
				sp := strict.objects[k]
				if sp == nil {
					sp = &objectPrediction{}
				}
				// Only the create follows --validate: the update is a
				// controller's, the pruning storage's.
				if asWarn := (objectPrediction{create: op.create, update: sp.update, pruned: sp.pruned, unserved: sp.unserved, storedGone: sp.storedGone, other: sp.other}); asWarn.String() != op.String() {
					t.Errorf("%s: --validate changed more than the create: %s, under warn %s", k, sp, op)
				}
				var strictGot []string
				got := reality(t, srv, dyn, u, oldInfo, newInfo, before[k], &strictGot)
				if !got.unserved {
					if !slices.Equal(strictGot, sp.create) {
						t.Errorf("%s: a create under Strict: the server says %q, predicted %q", k, strictGot, sp.create)
					}
					totals["creates under Strict"]++
					if !slices.Equal(strictGot, got.create) {
						totals["creates Strict answers otherwise"]++
					}
				}
				if got.String() != op.String() {
					t.Errorf("%s:\n  server:    %s\n  predicted: %s", k, got, op)
				}
				if got.String() != (&objectPrediction{}).String() {
					bugs++
				}
				totals["objects"]++
				totals["creates"]++
				totals["updates"]++
				totals["pruned paths"] += len(got.pruned)
			}
			if bugs < sc.minBugs {
				t.Errorf("only %d objects broken by NEW, want at least %d: the scenario lost its point", bugs, sc.minBugs)
			}
		})
	}
	t.Logf("compared with the server: %v", totals)
	if totals["creates Strict answers otherwise"] == 0 {
		t.Errorf("no create that Strict answers otherwise than Warn: the comparison under Strict proves nothing")
	}
}

// comparePredictions: a live run and an offline run on the same files
// predict the same.
func comparePredictions(t *testing.T, live, off *prediction) {
	t.Helper()
	if live.refused != off.refused || !slices.Equal(live.server, off.server) {
		t.Errorf("CRD verdict: live refused=%t %q, offline refused=%t %q", live.refused, live.server, off.refused, off.server)
	}
	if !slices.Equal(live.changes, off.changes) {
		t.Errorf("changes differ:\n  live:    %q\n  offline: %q", live.changes, off.changes)
	}
	keys := map[string]bool{}
	for k := range live.objects {
		keys[k] = true
	}
	for k := range off.objects {
		keys[k] = true
	}
	for k := range keys {
		l, o := live.objects[k], off.objects[k]
		if l == nil {
			l = &objectPrediction{}
		}
		if o == nil {
			o = &objectPrediction{}
		}
		if l.String() != o.String() {
			t.Errorf("%s: live predicts %s, offline %s", k, l, o)
		}
	}
}

// causes are a refusal's "field: message" (the messages alone with
// fields=false), sorted, from the server's status details.
func causes(err error, fields bool) []string {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		return nil
	}
	var out []string
	if se.ErrStatus.Details == nil || len(se.ErrStatus.Details.Causes) == 0 {
		return []string{se.ErrStatus.Message}
	}
	for _, c := range se.ErrStatus.Details.Causes {
		if fields {
			out = append(out, rootField(c.Field+": "+c.Message))
		} else {
			out = append(out, c.Message)
		}
	}
	return uniqueSorted(out)
}

// reality does to one object what the prediction is about, under NEW:
// its labels-only update in the manifest's version (NEW's storage version
// when NEW does not serve that one), what etcd holds afterwards, then a
// create of the manifest after deleting the object. With strict set, a
// dry-run create under fieldValidation=Strict comes first, its answer
// stored there (strictCauses).
func reality(t *testing.T, srv *apiservertest.Server, dyn dynamic.Interface, u *unstructured.Unstructured, oldInfo, newInfo crdInfo, before map[string]any, strict *[]string) *objectPrediction {
	t.Helper()
	ctx := context.Background()
	got := &objectPrediction{}
	gv := u.GroupVersionKind().GroupVersion()
	ns, name := u.GetNamespace(), u.GetName()
	client := func(version string) dynamic.ResourceInterface {
		r := dyn.Resource(schema.GroupVersionResource{Group: gv.Group, Version: version, Resource: newInfo.plural})
		if newInfo.namespaced {
			return r.Namespace(ns)
		}
		return r
	}
	rv := gv.Version
	if !newInfo.served[rv] {
		got.unserved = true
		rv = newInfo.storage
	}
	cur, err := client(rv).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s in %s: %v", name, rv, err)
	}
	read := cur.DeepCopy()
	labels := cur.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[replay.Label] = "true"
	cur.SetLabels(labels)
	_, err = client(rv).Update(ctx, cur, metav1.UpdateOptions{})
	got.update = causes(err, true)
	after := read.Object
	if err == nil {
		after = srv.Stored(t, newInfo.group, newInfo.plural, ns, name)
	}
	got.pruned = removed(before, after)

	if err := client(rv).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete %s: %v", name, err)
	}
	if strict != nil && !got.unserved {
		_, err := client(gv.Version).Create(ctx, u.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict})
		*strict = strictCauses(err)
	}
	m := u.DeepCopy()
	_, err = client(gv.Version).Create(ctx, m, metav1.CreateOptions{})
	switch {
	case got.unserved && apierrors.IsNotFound(err):
		// The version is gone: what the prediction says.
	case got.unserved:
		t.Errorf("%s: create in %s, which NEW does not serve: %v, want 404", name, gv.Version, err)
	default:
		got.create = causes(err, true)
	}
	return got
}

// strictCauses is the server's answer to a create with
// fieldValidation=Strict, as kubectl apply sends it: its causes, or for
// the 400 a strict decoding error is, each unknown field as the replay
// words it.
func strictCauses(err error) []string {
	var se *apierrors.StatusError
	if errors.As(err, &se) && strings.Contains(se.ErrStatus.Message, "strict decoding error") {
		var out []string
		for _, f := range unknownFieldRE.FindAllStringSubmatch(se.ErrStatus.Message, -1) {
			out = append(out, f[1]+": "+f[0])
		}
		return uniqueSorted(out)
	}
	return causes(err, true)
}

var unknownFieldRE = regexp.MustCompile(`unknown field "([^"]*)"`)

// removed are the paths of before (stored under OLD) that after lacks,
// in the server's notation, metadata and null values aside: the data
// NEW's write dropped.
func removed(before, after map[string]any) []string {
	var out []string
	var walk func(b, a any, path string)
	walk = func(b, a any, path string) {
		switch bv := b.(type) {
		case map[string]any:
			av, ok := a.(map[string]any)
			if !ok {
				return
			}
			for k, v := range bv {
				if path == "" && (k == "metadata" || k == "apiVersion" || k == "kind") {
					continue
				}
				p := k
				if path != "" {
					p = path + "." + k
				}
				w, ok := av[k]
				if !ok {
					if v != nil {
						out = append(out, p)
					}
					continue
				}
				walk(v, w, p)
			}
		case []any:
			av, ok := a.([]any)
			if !ok || len(av) != len(bv) {
				return
			}
			for i := range bv {
				walk(bv[i], av[i], fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(before, after, "")
	return uniqueSorted(out)
}
