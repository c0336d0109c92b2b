package crd

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

var widgetGK = schema.GroupKind{Group: "example.com", Kind: "Widget"}

var widgets int

// widgetAt is a Widget CRD written at file (relative to the test's
// working directory, /repo), of a content all its own (its description
// counts the CRDs made).
func widgetAt(file string, bundle bool) *Definition {
	widgets++
	js := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","description":"%s %d"}}}]}}`, file, widgets)
	d := Decode([]byte(js))
	d.Origin = &Origin{File: file, Line: 1, Bundle: bundle}
	return d
}

// def is a CRD of a test's catalogue: where it is written and its layer.
// A file ending in "+" is a bundle (its file holds other objects too).
type def struct {
	file  string
	layer Layer
}

// judgeCatalog adds the defs in order, as a run would: the inputs in
// input order, --crd and crds: in the order given, whenever they come.
func judgeCatalog(defs []def) *Catalog {
	cat := NewCatalog(false)
	cat.cwd = "/repo"
	for _, d := range defs {
		file, bundle := strings.CutSuffix(d.file, "+")
		cat.Add(widgetAt(file, bundle), file+":1", d.layer)
	}
	return cat
}

// TestJudgeRule is the rule for which CRD judges a custom resource when
// several define its kind, as docs/configuration.md states it, case by
// case; the layouts are those of real repositories.
func TestJudgeRule(t *testing.T) {
	tests := []struct {
		name string
		defs []def
		// at is where the custom resource is ("": no place in
		// particular, as a live object).
		at, want string
	}{
		{"--crd and crds: judge before the inputs",
			[]def{{"config/crd/bases/w.yaml", Extra}, {"config/samples/w.yaml+", Input}}, "config/samples/w.yaml", "config/crd/bases/w.yaml"},
		{"--crd and crds: whatever the order they are read in",
			[]def{{"samples/w.yaml", Input}, {"crds/w.yaml", Extra}}, "samples/w.yaml", "crds/w.yaml"},
		{"of --crd and crds:, the later one given",
			[]def{{"a/w.yaml", Extra}, {"b/w.yaml", Extra}, {"config/w.yaml", Input}}, "a/cr.yaml", "b/w.yaml"},
		{"the inputs judge before the cluster",
			[]def{{"w.yaml", Input}, {"cluster", Cluster}}, "other/cr.yaml", "w.yaml"},
		{"the later one in the custom resource's own file (a Helm render)",
			[]def{{"<stdin>", Input}, {"<stdin>", Input}, {"config/crd/bases/w.yaml", Input}}, "<stdin>", "<stdin>#2"},
		{"the custom resource's own file before its directory",
			[]def{{"examples/all.yaml+", Input}, {"examples/w.yaml", Input}}, "examples/all.yaml", "examples/all.yaml"},
		{"within a directory, the later file",
			[]def{{"crds/a.yaml", Input}, {"crds/b.yaml", Input}}, "crds/cr.yaml", "crds/b.yaml"},
		{"the more of its path shared, the nearer (strimzi's development tree)",
			[]def{{"install/cluster-operator/040-Crd-kafka.yaml", Input}, {"packaging/install/cluster-operator/040-Crd-kafka.yaml", Input}}, "packaging/examples/kafka/kafka.yaml", "packaging/install/cluster-operator/040-Crd-kafka.yaml"},
		{"the more of its path shared, the nearer (strimzi's released tree)",
			[]def{{"install/cluster-operator/040-Crd-kafka.yaml", Input}, {"packaging/install/cluster-operator/040-Crd-kafka.yaml", Input}}, "examples/kafka/kafka.yaml", "install/cluster-operator/040-Crd-kafka.yaml"},
		{"each project its own (kubebuilder's testdata)",
			[]def{{"testdata/project-v4/config/crd/bases/w.yaml", Input}, {"testdata/project-v4-multigroup/config/crd/bases/w.yaml", Input}}, "testdata/project-v4/config/samples/cr.yaml", "testdata/project-v4/config/crd/bases/w.yaml"},
		{"then the fewest directories below what they share",
			[]def{{"deploy/crds.yaml", Input}, {"config/crd/bases/w.yaml", Input}}, "docs/cr.yaml", "deploy/crds.yaml"},
		{"a release bundle yields to the source (cloudnative-pg)",
			[]def{{"config/crd/bases/w.yaml", Input}, {"releases/cnpg-1.29.0.yaml+", Input}, {"releases/cnpg-1.30.0.yaml+", Input}}, "docs/src/samples/cr.yaml", "config/crd/bases/w.yaml"},
		{"an install manifest yields to the source (metallb)",
			[]def{{"config/crd/bases/w.yaml", Input}, {"config/manifests/native.yaml+", Input}}, "configsamples/cr.yaml", "config/crd/bases/w.yaml"},
		{"an OLM bundle yields to the source",
			[]def{{"bundle/manifests/w.yaml", Input}, {"config/crd/bases/w.yaml", Input}}, "examples/cr.yaml", "config/crd/bases/w.yaml"},
		{"a vendored copy yields to the source",
			[]def{{"test/crds/w.yaml", Input}, {"vendor/example.com/w/crds/w.yaml", Input}}, "test/e2e/cr.yaml", "test/crds/w.yaml"},
		{"a copy judges what is inside it",
			[]def{{"config/crd/bases/w.yaml", Input}, {"vendor/example.com/w/crds/w.yaml", Input}}, "vendor/example.com/w/examples/cr.yaml", "vendor/example.com/w/crds/w.yaml"},
		{"copies only: the nearest of them",
			[]def{{"releases/v2.yaml+", Input}, {"releases/v1.yaml+", Input}}, "docs/cr.yaml", "releases/v1.yaml"},
		{"no place: no copy, then the shallowest",
			[]def{{"config/crd/bases/w.yaml", Input}, {"releases/v1.yaml+", Input}, {"charts/w/crds/w.yaml", Input}, {"deploy/w.yaml+", Input}}, "", "charts/w/crds/w.yaml"},
		{"a file given from elsewhere",
			[]def{{"../other/crds/w.yaml", Input}, {"crds/w.yaml", Input}}, "/other/samples/cr.yaml", "../other/crds/w.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := judgeCatalog(tt.defs)
			gvk := widgetGK.WithVersion("v1")
			v, err := cat.LookupAt(gvk, tt.at)
			if err != nil {
				t.Fatal(err)
			}
			e := cat.EntryAt(gvk, tt.at)
			want, nth := tt.want, 1
			if w, n, ok := strings.Cut(tt.want, "#"); ok {
				want, nth = w, int(n[0]-'0')
			}
			// The schema's description names the file of the CRD compiled.
			if got := v.Structural().Description; !strings.HasPrefix(got, e.Def.Origin.File+" ") {
				t.Fatalf("LookupAt compiled the CRD of %q, EntryAt is %s's", got, e.Def.Origin.File)
			}
			if got := e.Def.Origin.File; got != want {
				t.Errorf("judged by %s, want %s", got, want)
			}
			// Which of a file's definitions: the nth added there.
			k := 0
			for _, x := range cat.all[widgetGK] {
				if x.where != nil && x.Def.Origin.File == want {
					if k++; k == nth && x != e {
						t.Errorf("judged by definition %d of %s, want %d", position(cat, e), want, nth)
					}
				}
			}
			id, ok := cat.IdentityAt(gvk, tt.at)
			if wantID := fmt.Sprintf("%d|%s|%s", e.layer, e.Source, e.Def.hexDigest()); !ok || id != wantID {
				t.Errorf("IdentityAt = %q, %t; want the judging CRD's, %q", id, ok, wantID)
			}
			if tt.at == "" {
				if got := cat.Entry(widgetGK); got != e {
					t.Errorf("Entry is %s, EntryAt no place %s", got.Source, e.Source)
				}
			}
		})
	}
}

// position is an entry's index among the definitions of its file.
func position(cat *Catalog, e *Entry) int {
	k := 0
	for _, x := range cat.all[widgetGK] {
		if x.Def.Origin != nil && x.Def.Origin.File == e.Def.Origin.File {
			k++
			if x == e {
				return k
			}
		}
	}
	return 0
}

// TestJudgeOrderIndependent: which CRD judges depends on where things
// are, never on the order the inputs' CRDs are added in, but for CRDs
// the place cannot tell apart (the same file, the same directory).
func TestJudgeOrderIndependent(t *testing.T) {
	files := []string{"config/crd/bases/w.yaml", "releases/v1.yaml+", "charts/crds/w.yaml", "testdata/p/config/crd/w.yaml", "vendor/x/w.yaml", "deploy/all.yaml+"}
	places := []string{"", "config/samples/cr.yaml", "charts/w/examples/cr.yaml", "testdata/p/config/samples/cr.yaml", "vendor/x/y/cr.yaml", "docs/cr.yaml", "releases/cr.yaml", "deploy/all.yaml"}
	want := map[string]string{}
	for k := range files {
		// Rotate the order.
		var defs []def
		for i := range files {
			defs = append(defs, def{files[(i+k)%len(files)], Input})
		}
		cat := judgeCatalog(defs)
		for _, p := range places {
			got := cat.EntryAt(widgetGK.WithVersion("v1"), p).Def.Origin.File
			if k == 0 {
				want[p] = got
			} else if got != want[p] {
				t.Errorf("order %d, custom resource at %q: judged by %s, in the first order by %s", k, p, got, want[p])
			}
		}
	}
	for p, w := range map[string]string{
		"":                                  "charts/crds/w.yaml",
		"config/samples/cr.yaml":            "config/crd/bases/w.yaml",
		"charts/w/examples/cr.yaml":         "charts/crds/w.yaml",
		"testdata/p/config/samples/cr.yaml": "testdata/p/config/crd/w.yaml",
		"vendor/x/y/cr.yaml":                "vendor/x/w.yaml",
		"docs/cr.yaml":                      "charts/crds/w.yaml",
		// A bundle judges only its own file's.
		"releases/cr.yaml": "charts/crds/w.yaml",
		"deploy/all.yaml":  "deploy/all.yaml",
	} {
		if want[p] != w {
			t.Errorf("custom resource at %q: judged by %s, want %s", p, want[p], w)
		}
	}
}

// TestDuplicatesSayWhoJudges: the crd-duplicate finding's facts: which
// CRD judges over which, whether the other still judges some custom
// resources, and why.
func TestDuplicatesSayWhoJudges(t *testing.T) {
	tests := []struct {
		name string
		defs []def
		// want: "dropped > kept: judges | why" for each duplicate.
		want []string
	}{
		{"--crd over the inputs", []def{{"config/crd/bases/w.yaml", Input}, {"vendor/w.yaml", Extra}},
			[]string{"config/crd/bases/w.yaml > vendor/w.yaml:  | the CRDs of --crd and crds: judge before those among the inputs"}},
		{"the later --crd", []def{{"a.yaml", Extra}, {"b.yaml", Extra}},
			[]string{"a.yaml > b.yaml:  | of --crd and crds:, the later one given wins, as applying both in order would"}},
		{"the later in a file", []def{{"<stdin>", Input}, {"<stdin>", Input}},
			[]string{"<stdin> > <stdin>:  | the later one in a file wins, as applying the file would"}},
		{"the nearest", []def{{"install/w.yaml", Input}, {"packaging/install/w.yaml", Input}},
			[]string{"packaging/install/w.yaml > install/w.yaml: the custom resources nearer to it | the definition nearest a custom resource in the tree judges it"}},
		{"a release bundle", []def{{"config/crd/bases/w.yaml", Input}, {"dist/install.yaml+", Input}},
			[]string{"dist/install.yaml > config/crd/bases/w.yaml: the custom resources of its own file | a file that holds other objects too, as install and release manifests do, judges only its own custom resources when another file defines the kind"}},
		{"a copy directory", []def{{"config/crd/bases/w.yaml", Input}, {"testdata/p/vendor/w.yaml", Input}},
			[]string{"testdata/p/vendor/w.yaml > config/crd/bases/w.yaml: the custom resources under testdata/p/vendor/ | a definition under a vendor/ directory, a copy, judges only the custom resources under it when another defines the kind"}},
		{"two files of a directory", []def{{"crds/v1.yaml", Input}, {"crds/v2.yaml", Input}},
			[]string{"crds/v1.yaml > crds/v2.yaml: the custom resources of its own file | of two files in a directory the later one wins, as kubectl apply -f DIR would, but for the custom resources of the other's own file"}},
		{"copies only", []def{{"vendor/a/w.yaml", Input}, {"vendor/b/c/w.yaml", Input}},
			[]string{"vendor/b/c/w.yaml > vendor/a/w.yaml: the custom resources nearer to it | the definition nearest a custom resource in the tree judges it"}},
		{"a cluster's", []def{{"cluster", Cluster}, {"w.yaml", Input}},
			[]string{"cluster > w.yaml:  | those among the inputs judge before the cluster's CRDs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range judgeCatalog(tt.defs).Duplicates() {
				got = append(got, fmt.Sprintf("%s > %s: %s | %s", d.Dropped.Def.Origin.File, d.Kept.Def.Origin.File, d.Judges(), d.Why()))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// BenchmarkJudgeAt: the cost of ranking a kind's definitions for a custom
// resource, as in cloudnative-pg (the source and 44 release bundles),
// which every custom resource of the kind pays on each lookup.
func BenchmarkJudgeAt(b *testing.B) {
	defs := []def{{"config/crd/bases/postgresql.cnpg.io_clusters.yaml", Input}}
	for i := range 44 {
		defs = append(defs, def{fmt.Sprintf("releases/cnpg-1.%d.0.yaml+", i), Input})
	}
	cat := judgeCatalog(defs)
	b.ResetTimer()
	for b.Loop() {
		e := cat.judgeAt(widgetGK.WithVersion("v1"), "docs/src/samples/cluster-example.yaml")
		if e.Def.Origin.File != defs[0].file {
			b.Fatalf("judged by %s", e.Def.Origin.File)
		}
	}
}

// widgetServing is a Widget CRD written at file whose versions are
// versions (each "name" served, "name-" not served; the first is the
// storage version); rejected makes the server refuse it (its name is
// not plural.group).
func widgetServing(file string, versions []string, rejected bool) *Definition {
	widgets++
	var vs []string
	for i, v := range versions {
		name, unserved := strings.CutSuffix(v, "-")
		vs = append(vs, fmt.Sprintf(`{"name":%q,"served":%t,"storage":%t,"schema":{"openAPIV3Schema":{"type":"object","description":"%s %d"}}}`, name, !unserved, i == 0, file, widgets))
	}
	name := "widgets.example.com"
	if rejected {
		name = "gadgets.example.com"
	}
	file, bundle := strings.CutSuffix(file, "+")
	js := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":%q},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[%s]}}`, name, strings.Join(vs, ","))
	d := Decode([]byte(js))
	d.Origin = &Origin{File: file, Line: 1, Bundle: bundle}
	return d
}

// TestJudgeServes: among the inputs, a CRD that can serve the custom
// resource's version (it serves it, and the server accepts the CRD)
// judges before a nearer one that cannot, as istio's old test CRD
// (v1alpha2 only, no approval annotation) and its gateway-api bundle
// (v1) showed; when none can, the nearest judges and its refusal is the
// answer. --crd and crds: still judge before the inputs.
func TestJudgeServes(t *testing.T) {
	type served struct {
		file     string
		versions []string
		rejected bool
		layer    Layer
	}
	old := served{"pkg/analyzers/testdata/crd-old.yaml", []string{"v1alpha2"}, false, Input}
	bundle := served{"tests/testdata/gateway-api-crd.yaml+", []string{"v1", "v1alpha2"}, false, Input}
	tests := []struct {
		name    string
		defs    []served
		at, ver string
		// want is the file of the CRD that judges; reason the lookup's
		// refusal (0: none).
		want   string
		reason Reason
	}{
		{"a nearer CRD without the version yields", []served{old, bundle}, "pkg/analyzers/testdata/cr.yaml", "v1", "tests/testdata/gateway-api-crd.yaml", 0},
		{"whatever the order", []served{bundle, old}, "pkg/analyzers/testdata/cr.yaml", "v1", "tests/testdata/gateway-api-crd.yaml", 0},
		{"the version both serve: the nearer", []served{old, bundle}, "pkg/analyzers/testdata/cr.yaml", "v1alpha2", "pkg/analyzers/testdata/crd-old.yaml", 0},
		{"no place in particular", []served{bundle, old}, "", "v1", "tests/testdata/gateway-api-crd.yaml", 0},
		{"a nearer CRD that does not serve the version yields",
			[]served{{"config/crd/w.yaml", []string{"v1", "v1beta1-"}, false, Input}, {"deploy/all.yaml+", []string{"v1", "v1beta1"}, false, Input}}, "config/samples/cr.yaml", "v1beta1", "deploy/all.yaml", 0},
		{"a nearer rejected CRD yields",
			[]served{{"test/crd.yaml", []string{"v1"}, true, Input}, {"config/crd/w.yaml", []string{"v1"}, false, Input}}, "test/cr.yaml", "v1", "config/crd/w.yaml", 0},
		{"none serves: the nearest, refused",
			[]served{old, {"config/crd/w.yaml", []string{"v1beta1"}, false, Input}}, "pkg/analyzers/testdata/cr.yaml", "v1", "pkg/analyzers/testdata/crd-old.yaml", NoVersion},
		{"none serves, the nearest rejected: refused as rejected",
			[]served{{"test/crd.yaml", []string{"v1"}, true, Input}, {"config/crd/w.yaml", []string{"v2"}, false, Input}}, "test/cr.yaml", "v1", "test/crd.yaml", Rejected},
		{"the custom resource's own file is applied with it: the later there",
			[]served{{"config/crd/w.yaml", []string{"v1"}, false, Input}, {"all.yaml", []string{"v1", "v2"}, false, Input}, {"all.yaml", []string{"v2"}, false, Input}}, "all.yaml", "v1", "all.yaml", NoVersion},
		{"elsewhere too: applying the file leaves the later",
			[]served{{"all.yaml", []string{"v1", "v2"}, false, Input}, {"all.yaml", []string{"v2"}, false, Input}}, "samples/cr.yaml", "v1", "all.yaml", NoVersion},
		{"two files of a directory are applied together: the later remains (examples/upgrade)",
			[]served{{"upgrade/widget-v1.yaml", []string{"v1", "v1beta1"}, false, Input}, {"upgrade/widget-v2.yaml", []string{"v1", "v1beta1-"}, false, Input}}, "upgrade/objects.yaml", "v1beta1", "upgrade/widget-v2.yaml", NotServed},
		{"a later bundle of the same directory remains too (kubectl apply -f deploy/)",
			[]served{{"deploy/a-crd.yaml", []string{"v1"}, false, Input}, {"deploy/z-all.yaml+", []string{"v1", "v2"}, false, Input}}, "samples/cr.yaml", "v2", "deploy/z-all.yaml", 0},
		{"and a later source after a bundle",
			[]served{{"deploy/a-all.yaml+", []string{"v1", "v2"}, false, Input}, {"deploy/z-crd.yaml", []string{"v1"}, false, Input}}, "samples/cr.yaml", "v2", "deploy/z-crd.yaml", NoVersion},
		{"but a rejected one does not remain",
			[]served{{"upgrade/widget-v1.yaml", []string{"v1", "v1beta1"}, false, Input}, {"upgrade/widget-v2.yaml", []string{"v1"}, true, Input}}, "upgrade/objects.yaml", "v1beta1", "upgrade/widget-v1.yaml", 0},
		{"what a directory leaves, then the version served across directories",
			[]served{{"a/w1.yaml", []string{"v1"}, false, Input}, {"a/w2.yaml", []string{"v2"}, false, Input}, {"b/w.yaml", []string{"v1"}, false, Input}}, "a/cr.yaml", "v1", "b/w.yaml", 0},
		{"in its own file an accepted CRD before a later rejected one",
			[]served{{"all.yaml", []string{"v1"}, false, Input}, {"all.yaml", []string{"v1"}, true, Input}}, "all.yaml", "v1", "all.yaml", 0},
		{"--crd judges before an input that serves",
			[]served{{"crds/w.yaml", []string{"v1alpha2"}, false, Extra}, bundle}, "tests/cr.yaml", "v1", "crds/w.yaml", NoVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := NewCatalog(false)
			cat.cwd = "/repo"
			for _, d := range tt.defs {
				def := widgetServing(d.file, d.versions, d.rejected)
				cat.Add(def, def.Origin.File+":1", d.layer)
			}
			gvk := widgetGK.WithVersion(tt.ver)
			e := cat.EntryAt(gvk, tt.at)
			if got := e.Def.Origin.File; got != tt.want {
				t.Errorf("judged by %s, want %s", got, tt.want)
			}
			_, err := cat.LookupAt(gvk, tt.at)
			var reason Reason
			if le, ok := err.(*LookupError); ok {
				reason = le.Reason
				if le.Entry != e {
					t.Errorf("LookupAt refused with %s, EntryAt is %s", le.Entry.Source, e.Source)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if reason != tt.reason {
				t.Errorf("LookupAt: %v, want reason %d", err, tt.reason)
			}
			id, ok := cat.IdentityAt(gvk, tt.at)
			if wantID := fmt.Sprintf("%d|%s|%s", e.layer, e.Source, e.Def.hexDigest()); !ok || id != wantID {
				t.Errorf("IdentityAt = %q, %t; want the judging CRD's, %q", id, ok, wantID)
			}
		})
	}
}

// TestDuplicatesSayWhichVersions: a crd-duplicate finding says what the
// CRD not kept still judges once the versions served rank (judge.go): a
// rejected one nothing, one serving versions the kept one does not their
// custom resources, wherever they are.
func TestDuplicatesSayWhichVersions(t *testing.T) {
	tests := []struct {
		name string
		defs []string // file:versions[:rejected]
		want []string
	}{
		{"a rejected old test CRD beside a bundle (istio)",
			[]string{"pkg/testdata/crd-old.yaml:v1alpha2:rejected", "tests/testdata/gateway-api-crd.yaml+:v1,v1alpha2"},
			[]string{"pkg/testdata/crd-old.yaml > tests/testdata/gateway-api-crd.yaml:  | the server would reject this CRD, and one it rejects serves nothing while another can"}},
		{"an old release that alone serves a version",
			[]string{"config/crd/w.yaml:v1,v1beta1-", "releases/v1.yaml+:v1beta1,v1"},
			[]string{"releases/v1.yaml > config/crd/w.yaml: the custom resources of its own file, and those of version v1beta1 anywhere, which it alone serves | a file that holds other objects too, as install and release manifests do, judges only its own custom resources when another file defines the kind"}},
		{"the later in a file, serving less: applying the file replaces it",
			[]string{"<stdin>:v2,v1", "<stdin>:v2"},
			[]string{"<stdin> > <stdin>:  | the later one in a file wins, as applying the file would"}},
		{"the later in a directory, serving less (examples/upgrade)",
			[]string{"upgrade/widget-v1.yaml:v1,v1beta1", "upgrade/widget-v2.yaml:v1,v1beta1-"},
			[]string{"upgrade/widget-v1.yaml > upgrade/widget-v2.yaml: the custom resources of its own file | of two files in a directory the later one wins, as kubectl apply -f DIR would, but for the custom resources of the other's own file"}},
		{"no place: the versions only",
			[]string{":v1alpha1,v1", ":v1"},
			[]string{" > : the custom resources of version v1alpha1, which it alone serves | the later one wins, as applying both in order would"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := NewCatalog(false)
			cat.cwd = "/repo"
			for _, d := range tt.defs {
				parts := strings.Split(d, ":")
				def := widgetServing(parts[0], strings.Split(parts[1], ","), len(parts) > 2)
				if parts[0] == "" {
					def.Origin = nil
				}
				cat.Add(def, parts[0]+":1", Input)
			}
			var got []string
			file := func(e *Entry) string {
				if e.Def.Origin == nil {
					return ""
				}
				return e.Def.Origin.File
			}
			for _, d := range cat.Duplicates() {
				got = append(got, fmt.Sprintf("%s > %s: %s | %s", file(d.Dropped), file(d.Kept), d.Judges(), d.Why()))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
