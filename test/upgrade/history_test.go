package upgrade

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/replay"
)

const historyDir = "../../pkg/upgrade/compare/testdata/history"

// release is one CRD release of a history.
type release struct {
	path string
	json []byte
	info crdInfo
}

// histories reads pkg/upgrade/compare/testdata/history: each CRD's releases,
// oldest first (tags sorted as versions).
func histories(t *testing.T) map[string][]release {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(historyDir, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]release{}
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(d, "*.yaml"))
		slices.SortFunc(files, func(a, b string) int {
			va := version.MustParseGeneric(strings.TrimSuffix(filepath.Base(a), ".yaml"))
			c, _ := va.Compare(strings.TrimSuffix(filepath.Base(b), ".yaml"))
			return c
		})
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs := source.Parse(f, data).Documents
			if len(docs) != 1 {
				t.Fatalf("%s: %d documents", f, len(docs))
			}
			out[filepath.Base(d)] = append(out[filepath.Base(d)], release{path: f, json: untemplated(t, docs[0].JSON), info: readCRDInfo(t, f)})
		}
	}
	if len(out) < 30 {
		t.Fatalf("%d CRD histories under %s, want at least 30: is the test data there?", len(out), historyDir)
	}
	return out
}

// untemplated drops the labels of a release file that are Helm template
// text (cert-manager's CRDs are chart templates: "{{ .Release.Name }}"),
// which no server accepts and the chart would have rendered. Both the
// server and crd.ValidateUpdate get the same JSON.
func untemplated(t *testing.T, js []byte) []byte {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil {
		t.Fatal(err)
	}
	labels := u.GetLabels()
	for k, v := range labels {
		if strings.Contains(v, "{{") || strings.Contains(k, "{{") {
			delete(labels, k)
		}
	}
	u.SetLabels(labels)
	out, err := u.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// corpusObjects are the corpus's custom resources by group and kind.
func corpusObjects(t *testing.T) map[schema.GroupKind][]*unstructured.Unstructured {
	t.Helper()
	out := map[schema.GroupKind][]*unstructured.Unstructured{}
	for _, p := range testutil.Files(t, "crs") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range source.Parse(p, data).Documents {
			if !crd.IsCustomResource(d) {
				continue
			}
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(d.JSON); err != nil {
				continue // the server cannot decode it either
			}
			gk := u.GroupVersionKind().GroupKind()
			out[gk] = append(out[gk], u)
		}
	}
	return out
}

// historyCounts are the agreement figures TestHistoryAgainstServer
// reports.
type historyCounts struct {
	pairs, refused, migrated        int
	storedVersions, storedGone      int
	oldCreates, oldRefused, objects int
	creates, createsRefused         int
	updates, updatesRefused, pruned int
	skipped                         int
}

// TestHistoryAgainstServer replays the real CRD histories on a real
// server: each CRD's first release is installed and updated release by
// release, as an operator's upgrades would leave status.storedVersions
// (a release the server refuses is installed afresh, as after a storage
// migration). Every update's verdict must be crd.ValidateUpdate's, error
// by error; the stored versions the test accumulates offline must be the
// server's. Before each update, the corpus's custom resources of the kind
// are created (OLD's create verdict compared with the replay's), and
// after it each is updated with a label, read from etcd and created anew:
// NEW's create and update verdicts and the pruned paths must be the
// replay's.
func TestHistoryAgainstServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the history differential applies 168 CRD releases to a real server")
	}
	hist := histories(t)
	objects := corpusObjects(t)
	srv := apiservertest.Start(t, apiservertest.Options{})
	cs, err := apiextensionsclient.NewForConfig(srv.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	dyn := srv.Dynamic(t)
	var n historyCounts
	names := make([]string, 0, len(hist))
	for name := range hist {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		rels := hist[name]
		t.Run(name, func(t *testing.T) {
			install(t, srv, cs, rels[0])
			stored := []string{rels[0].info.storage}
			for i := 1; i < len(rels); i++ {
				old, new := rels[i-1], rels[i]
				pair := fmt.Sprintf("%s..%s", filepath.Base(old.path), filepath.Base(new.path))
				cur, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(cur.Status.StoredVersions, stored) {
					t.Errorf("%s: the server stores versions %q, the test expected %q", pair, cur.Status.StoredVersions, stored)
				} else {
					n.storedVersions++
				}
				gk := schema.GroupKind{Group: old.info.group, Kind: kindOf(t, old)}
				objs := n.createUnderOld(t, srv, dyn, pair, i, old, stored, new, objects[gk])

				oldDef, newDef := crd.Decode(old.json), crd.Decode(new.json)
				oldDef.Object().Status.StoredVersions = slices.Clone(stored)
				predicted := verdictCauses(crd.ValidateUpdate(oldDef, newDef))
				_, err = srv.TryUpdateCRD(new.json)
				n.pairs++
				if err != nil && !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
					t.Fatalf("%s: update: %v", pair, err)
				}
				if got := causes(err, true); !slices.Equal(got, predicted) {
					t.Errorf("%s: the server answers the CRD update with\n  %q\ncrd.ValidateUpdate with\n  %q", pair, got, predicted)
				}
				if err != nil {
					n.refused++
					// The objects stored in a version NEW removes are
					// what the replay names.
					_, keeps := new.info.served[old.info.storage]
					rp := replay.New(oldDef.Object(), newDef.Object(), replay.Options{Validate: fieldvalidation.Warn})
					for _, o := range objs {
						res := rp.Replay(replay.Object{Value: o.u.DeepCopy().Object})
						gone := slices.ContainsFunc(res.Outcomes, func(o replay.Outcome) bool { return o.Rule == replay.RuleObjectStoredVersionGone })
						if gone == keeps {
							t.Errorf("%s: %s: the replay says stored-version-removed=%t, NEW keeps OLD's storage version %s: %t", pair, o.u.GetName(), gone, old.info.storage, keeps)
						}
						n.storedGone++
					}
					// What an operator does next: migrate the stored
					// objects (here: delete those stored in a version
					// NEW removes) and drop the removed versions from
					// status.storedVersions, then apply NEW again.
					if !keeps {
						deleteObjects(t, dyn, objs, old.info)
						objs = nil
					}
					stored = migrate(t, cs, name, new)
					oldDef.Object().Status.StoredVersions = slices.Clone(stored)
					predicted = verdictCauses(crd.ValidateUpdate(oldDef, newDef))
					_, err = srv.TryUpdateCRD(new.json)
					n.migrated++
					if got := causes(err, true); !slices.Equal(got, predicted) {
						t.Errorf("%s after the storage migration: the server answers the CRD update with\n  %q\ncrd.ValidateUpdate with\n  %q", pair, got, predicted)
					}
					if err != nil {
						t.Fatalf("%s: refused after the storage migration too: %v", pair, err)
					}
				}
				if !slices.Contains(stored, new.info.storage) {
					stored = append(stored, new.info.storage)
				}
				n.replayUnderNew(t, srv, dyn, pair, objs, old, new)
				deleteObjects(t, dyn, objs, new.info)
			}
		})
	}
	t.Logf("%d CRD update pairs: %d accepted, %d refused (then accepted after a storage migration), all as crd.ValidateUpdate says (stored versions as the server's %d times); "+
		"%d objects named stored in a removed version; %d corpus objects created under OLD (%d refused by the server and by the replay alike), %d replayed under NEW: "+
		"%d creates (%d refused), %d labels-only updates (%d refused), %d pruned paths, all as the replay predicts; %d objects skipped (names the server generates or repeats)",
		n.pairs, n.pairs-n.refused, n.refused, n.storedVersions, n.storedGone, n.oldCreates, n.oldRefused, n.objects, n.creates, n.createsRefused, n.updates, n.updatesRefused, n.pruned, n.skipped)
	if n.pairs < 134 || n.refused < 4 || n.oldCreates < testutil.AtLeast(t, 2400, 1100) || n.objects < testutil.AtLeast(t, 950, 380) || n.pruned < 6 || n.createsRefused < 2 {
		t.Errorf("too little compared: %+v", n)
	}
}

func kindOf(t *testing.T, r release) string {
	def := crd.Decode(r.json)
	if def.Object() == nil {
		t.Fatalf("%s: %v", r.path, def.DecodeError)
	}
	return def.Object().Spec.Names.Kind
}

// verdictCauses are a verdict's errors as the server's status causes
// read: "field: message", sorted, repeats dropped.
func verdictCauses(v *engine.CRDVerdict) []string {
	var out []string
	for _, e := range v.Errors {
		out = append(out, e.Field+": "+e.ErrorBody())
	}
	return uniqueSorted(out)
}

func install(t *testing.T, srv *apiservertest.Server, cs apiextensionsclient.Interface, r release) {
	t.Helper()
	if _, err := srv.TryApplyCRD(r.json); err != nil {
		t.Fatalf("%s: install: %v", r.path, err)
	}
}

// migrate is a storage migration's last step, with no object left to
// rewrite: status.storedVersions keeps only the versions NEW still has.
func migrate(t *testing.T, cs apiextensionsclient.Interface, name string, new release) []string {
	t.Helper()
	ctx := context.Background()
	cur, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, v := range cur.Status.StoredVersions {
		if _, ok := new.info.served[v]; ok {
			keep = append(keep, v)
		}
	}
	if len(keep) == 0 {
		// Everything was rewritten in NEW's storage version.
		keep = []string{new.info.storage}
	}
	cur.Status.StoredVersions = keep
	if _, err := cs.ApiextensionsV1().CustomResourceDefinitions().UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("migrate %s: %v", name, err)
	}
	return keep
}

// historyObject is a corpus object of one pair: its manifest (in a
// namespace of its own) and what etcd held once OLD stored it.
type historyObject struct {
	u      *unstructured.Unstructured
	before map[string]any
}

// createUnderOld creates the corpus objects of the kind under OLD (the
// server installed) where the server accepts them, and checks that the
// replay's OLD verdict on each create is the server's.
func (n *historyCounts) createUnderOld(t *testing.T, srv *apiservertest.Server, dyn dynamic.Interface, pair string, pairIndex int, old release, stored []string, new release, objs []*unstructured.Unstructured) []historyObject {
	t.Helper()
	oldDef, newDef := crd.Decode(old.json), crd.Decode(new.json)
	oldDef.Object().Status.StoredVersions = slices.Clone(stored)
	rp := replay.New(oldDef.Object(), newDef.Object(), replay.Options{Validate: fieldvalidation.Warn})
	var out []historyObject
	seen := map[string]bool{}
	for i, src := range objs {
		u := asManifest(src)
		if u.GetName() == "" {
			n.skipped++
			continue
		}
		if old.info.namespaced {
			u.SetNamespace(fmt.Sprintf("h%d-%d", pairIndex, i))
		} else {
			u.SetNamespace("")
			if seen[u.GetName()] {
				n.skipped++
				continue
			}
		}
		seen[u.GetName()] = true
		res := rp.Replay(replay.Object{Value: u.DeepCopy().Object})
		predictedRefused := slices.ContainsFunc(res.Outcomes, func(o replay.Outcome) bool {
			return o.Rule == replay.RuleObjectRefusedByOld || o.Rule == replay.RuleObjectNotReplayed
		})
		gv := u.GroupVersionKind().GroupVersion()
		ri := resource(dyn, old.info, gv.Version, u.GetNamespace())
		_, err := ri.Create(context.Background(), u.DeepCopy(), metav1.CreateOptions{})
		n.oldCreates++
		if (err != nil) != predictedRefused {
			t.Errorf("%s: %s %s under OLD: the server says %v, the replay %+v", pair, u.GetKind(), objectKey(u.GetNamespace(), u.GetName()), err, res.Outcomes)
		}
		if err != nil {
			n.oldRefused++
			continue
		}
		out = append(out, historyObject{u: u, before: srv.Stored(t, old.info.group, old.info.plural, u.GetNamespace(), u.GetName())})
	}
	return out
}

// asManifest is a corpus object as a manifest to create: without the
// metadata the server sets, and without finalizers, which would keep the
// test's deletes from completing.
func asManifest(src *unstructured.Unstructured) *unstructured.Unstructured {
	u := src.DeepCopy()
	for _, k := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds", "finalizers"} {
		unstructured.RemoveNestedField(u.Object, "metadata", k)
	}
	return u
}

// replayUnderNew: NEW is applied; each object's predicted create, update
// and pruned paths against the server's.
func (n *historyCounts) replayUnderNew(t *testing.T, srv *apiservertest.Server, dyn dynamic.Interface, pair string, objs []historyObject, old, new release) {
	t.Helper()
	if len(objs) == 0 {
		return
	}
	oldDef, newDef := crd.Decode(old.json), crd.Decode(new.json)
	rp := replay.New(oldDef.Object(), newDef.Object(), replay.Options{Validate: fieldvalidation.Warn})
	for _, o := range objs {
		res := rp.Replay(replay.Object{Value: o.u.DeepCopy().Object})
		want := &objectPrediction{create: rootFields(res.CreateErrors), update: rootFields(res.UpdateErrors), pruned: res.Pruned,
			unserved: !new.info.served[o.u.GroupVersionKind().Version]}
		got := reality(t, srv, dyn, o.u, old.info, new.info, o.before, nil)
		if got.String() != want.String() {
			t.Errorf("%s: %s %s:\n  server: %s\n  replay: %s", pair, o.u.GetKind(), objectKey(o.u.GetNamespace(), o.u.GetName()), got, want)
		}
		n.objects++
		if !got.unserved {
			n.creates++
			if len(got.create) > 0 {
				n.createsRefused++
			}
		}
		n.updates++
		if len(got.update) > 0 {
			n.updatesRefused++
		}
		n.pruned += len(got.pruned)
	}
}

func resource(dyn dynamic.Interface, info crdInfo, version, namespace string) dynamic.ResourceInterface {
	r := dyn.Resource(schema.GroupVersionResource{Group: info.group, Version: version, Resource: info.plural})
	if info.namespaced {
		return r.Namespace(namespace)
	}
	return r
}

// deleteObjects deletes the pair's objects (and what reality created
// anew), in the storage version.
func deleteObjects(t *testing.T, dyn dynamic.Interface, objs []historyObject, info crdInfo) {
	t.Helper()
	for _, o := range objs {
		err := resource(dyn, info, info.storage, o.u.GetNamespace()).Delete(context.Background(), o.u.GetName(), metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			var se *apierrors.StatusError
			if errors.As(err, &se) {
				t.Fatalf("delete %s: %v", o.u.GetName(), err)
			}
		}
	}
}
