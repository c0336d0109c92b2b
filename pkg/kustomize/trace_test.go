package kustomize

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// doc finds a rendered object by name.
func doc(t *testing.T, r *Rendered, name string) int {
	t.Helper()
	for i, o := range r.Objects {
		if o.Object.Name == name {
			return i
		}
	}
	t.Fatalf("no rendered object named %q", name)
	return -1
}

func TestTrace(t *testing.T) {
	tests := []struct {
		dir, object, field string
		want               string // file:line:col relative to testdata/repo
		exact              bool
		via                Via
	}{
		// A field present in the base and untouched: the base.
		{"overlays/dev", "dev-web", "spec.replicas", "base/widgets.yaml:9:3", true, ViaResource},
		{"overlays/dev", "dev-web-api", "spec.template.image", "base/widgets.yaml:24:5", true, ViaResource},
		{"overlays/dev", "dev-web", "", "base/widgets.yaml:2:1", true, ViaResource},
		{"overlays/dev", "dev-probe", "spec.color", "components/monitoring/probe.yaml:7:3", true, ViaResource},
		{"overlays/dev", "widgets.example.com", "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color].enum[1]", "base/crd.yaml:29:31", true, ViaResource},
		// Set by a patch: the patch.
		{"overlays/dev", "dev-web", "spec.color", "overlays/dev/color.yaml:7:3", true, ViaPatch},
		{"overlays/dev", "dev-web-api", "spec.replicas", "overlays/dev/replicas.yaml:3:3", true, ViaPatch},
		{"overlays/dev", "dev-web", "spec.size", "overlays/dev/kustomization.yaml:21:9", true, ViaPatch},
		{"overlays/dev", "dev-web-api", "spec.monitoring", "components/monitoring/kustomization.yaml:12:9", true, ViaPatch},
		// Set by a kustomization field.
		{"overlays/dev", "dev-web", "metadata.namespace", "overlays/dev/kustomization.yaml:4:1", true, ViaKustomization},
		{"overlays/dev", "dev-settings-8mf449b2gf", "metadata.namespace", "overlays/dev/kustomization.yaml:4:1", true, ViaKustomization},
		// Changed by a transformer: the field in the base, not exact.
		{"overlays/dev", "dev-web", "metadata.name", "base/widgets.yaml:5:3", false, ViaResource},
		// Absent everywhere: the nearest enclosing field in the base.
		{"overlays/dev", "dev-web", "spec.missing", "base/widgets.yaml:8:1", false, ViaResource},
		{"overlays/dev", "dev-web", "spec.template.missing[0]", "base/widgets.yaml:11:3", false, ViaResource},
		// Generated: the generator's entry.
		{"overlays/dev", "dev-settings-8mf449b2gf", "data[mode]", "overlays/dev/kustomization.yaml:25:9", true, ViaGenerator},
		{"overlays/dev", "dev-settings-8mf449b2gf", "data.level", "overlays/dev/kustomization.yaml:26:9", true, ViaGenerator},
		{"overlays/dev", "dev-settings-8mf449b2gf", "metadata.name", "overlays/dev/kustomization.yaml:23:5", false, ViaGenerator},
		{"overlays/dev", "dev-settings-8mf449b2gf", "kind", "overlays/dev/kustomization.yaml:23:5", false, ViaGenerator},
		// An overlay of an overlay patches the name dev gave.
		{"overlays/staging", "dev-web-s", "spec.color", "overlays/staging/kustomization.yaml:15:9", true, ViaPatch},
		{"overlays/staging", "dev-web-s", "spec.size", "overlays/dev/kustomization.yaml:21:9", true, ViaPatch},
		{"overlays/staging", "dev-web-api-s", "spec.replicas", "overlays/dev/replicas.yaml:3:3", true, ViaPatch},
		{"overlays/staging", "dev-web-s", "metadata.namespace", "overlays/dev/kustomization.yaml:4:1", true, ViaKustomization},
		// Deprecated fields.
		{"overlays/legacy", "web-old", "spec.size", "overlays/legacy/size.yaml:6:3", true, ViaPatch},
		{"overlays/legacy", "web-api-old", "spec.size", "overlays/legacy/size.yaml:13:3", true, ViaPatch},
		{"overlays/legacy", "web-api-old", "spec.template.image", "overlays/legacy/kustomization.yaml:19:9", true, ViaPatch},
		{"overlays/legacy", "web-old", "spec.template.image", "overlays/legacy/ops.yaml:5:5", true, ViaPatch},
		{"overlays/legacy", "web-old", "spec.template", "overlays/legacy/ops.yaml:4:3", true, ViaPatch},
		{"overlays/legacy", "web-old", "spec.labels[1]", "overlays/legacy/ops.yaml:8:14", true, ViaPatch},
		{"overlays/legacy", "web-old", "metadata.labels[tier]", "overlays/legacy/kustomization.yaml:7:3", true, ViaKustomization},
		{"overlays/legacy", "web-old", "metadata.labels[app]", "base/widgets.yaml:7:5", true, ViaResource},
		{"overlays/legacy", "web-old", "metadata.annotations[owner]", "overlays/legacy/kustomization.yaml:9:3", true, ViaKustomization},
		{"overlays/legacy", "creds-old-m877t8555m", "data[user]", "overlays/legacy/kustomization.yaml:30:9", true, ViaGenerator},
		{"overlays/legacy", "creds-old-m877t8555m", "data[token]", "overlays/legacy/kustomization.yaml:32:9", false, ViaGenerator},
		{"overlays/legacy", "creds-old-m877t8555m", "metadata.annotations[owner]", "overlays/legacy/kustomization.yaml:9:3", true, ViaKustomization},
		// Patch transformers configured under transformers, inline.
		{"overlays/plugins", "web-api", "spec.color", "overlays/plugins/color.yaml:6:3", true, ViaPatch},
		{"overlays/plugins", "web", "spec.size", "overlays/plugins/kustomization.yaml:22:9", true, ViaPatch},
		// A generator configured in a file of its own.
		{"overlays/plugins", "flags-h758mgkcmb", "data[beta]", "overlays/plugins/generator.yaml:6:5", true, ViaGenerator},
		{"overlays/plugins", "flags-h758mgkcmb", "metadata.name", "overlays/plugins/generator.yaml:4:3", false, ViaGenerator},
	}
	rendered := map[string]*Rendered{}
	for _, tt := range tests {
		t.Run(tt.dir+"/"+tt.object+"/"+tt.field, func(t *testing.T) {
			r := rendered[tt.dir]
			if r == nil {
				r = render(t, tt.dir)
				rendered[tt.dir] = r
			}
			got := r.Trace(doc(t, r, tt.object), tt.field)
			at := fmt.Sprintf("%s:%d:%d", filepath.ToSlash(strings.TrimPrefix(got.File, repo+string(filepath.Separator))), got.Line, got.Column)
			if at != tt.want || got.Exact != tt.exact || got.Via != tt.via {
				t.Errorf("got %s exact %v via %s, want %s exact %v via %s", at, got.Exact, got.Via, tt.want, tt.exact, tt.via)
			}
		})
	}
}

// TestExactTracesPointAtTheField: over every field of every fixture, an
// exact trace points at text that writes that field (its key, or the
// item) — the trace's own claim, checked against the file's text.
func TestExactTracesPointAtTheField(t *testing.T) {
	exact, total := 0, 0
	for _, dir := range builds {
		r := render(t, dir)
		for i, o := range r.Objects {
			var v any
			if err := json.Unmarshal(jsonOf(t, r, i), &v); err != nil {
				t.Fatal(err)
			}
			for _, f := range leaves(v, "") {
				total++
				tr := r.Trace(i, f.path)
				if tr.File == "" || tr.Line == 0 {
					t.Errorf("%s %s %s: no position: %+v", dir, o.Object, f.path, tr)
					continue
				}
				if !tr.Exact {
					continue
				}
				exact++
				text := lineAt(t, tr.File, tr.Line, tr.Column)
				if !writes(text, f) {
					t.Errorf("%s %s %s: %s:%d:%d reads %q, which does not write it", dir, o.Object, f.path, tr.File, tr.Line, tr.Column, text)
				}
			}
		}
	}
	t.Logf("%d of %d rendered fields traced exactly", exact, total)
	if exact == 0 {
		t.Fatal("no exact trace: the test checks nothing")
	}
}

func jsonOf(t *testing.T, r *Rendered, i int) []byte {
	t.Helper()
	for _, d := range r.Stream.Documents {
		if d.Index == i {
			return d.JSON
		}
	}
	t.Fatalf("no document %d", i)
	return nil
}

type leaf struct {
	path string
	key  string // the last key, or "" for a list item
	val  any
}

// leaves lists the scalar fields of a value with their paths in the
// server's notation.
func leaves(v any, path string) []leaf {
	var out []leaf
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := path + "[" + k + "]"
			if path == "" {
				p = k
			}
			if _, ok := x[k].(map[string]any); !ok {
				if _, ok := x[k].([]any); !ok {
					out = append(out, leaf{p, k, x[k]})
					continue
				}
			}
			out = append(out, leaves(x[k], p)...)
		}
	case []any:
		for i, e := range x {
			p := fmt.Sprintf("%s[%d]", path, i)
			if _, ok := e.(map[string]any); ok {
				out = append(out, leaves(e, p)...)
				continue
			}
			out = append(out, leaf{p, "", e})
		}
	}
	return out
}

// writes says whether text (a file from a position on) writes the
// field: its key, the JSON 6902 "value" key, a generator literal
// "key=...", or for a list item the item's value.
func writes(text string, f leaf) bool {
	s := fmt.Sprint(f.val)
	switch {
	case f.key == "":
		return strings.HasPrefix(text, s)
	case strings.HasPrefix(text, f.key+":"), strings.HasPrefix(text, "value:"), strings.HasPrefix(text, f.key+"="):
		return true
	}
	return false
}

func lineAt(t *testing.T, file string, line, col int) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if line > len(lines) || col-1 > len(lines[line-1]) {
		t.Fatalf("%s:%d:%d is past the end", file, line, col)
	}
	return lines[line-1][col-1:]
}

func TestMap(t *testing.T) {
	r := render(t, "overlays/dev")
	web := doc(t, r, "dev-web")
	in := report.Finding{
		Rule: "cr-schema", Severity: report.Error, Message: `Unsupported value: "purple"`,
		Field: "spec.color", File: r.Name, Document: web, Line: 40, Column: 3,
		Object: r.Objects[web].Object,
	}
	tests := []struct {
		name string
		in   report.Finding
		want report.Finding
	}{
		{"to the patch", in, with(in, func(f *report.Finding) {
			f.File, f.Line, f.Column, f.Document = filepath.Join(repo, "overlays/dev/color.yaml"), 7, 3, 0
		})},
		{"to the base", with(in, func(f *report.Finding) { f.Field = "spec.replicas" }), with(in, func(f *report.Finding) {
			f.Field, f.File, f.Line, f.Column, f.Document = "spec.replicas", filepath.Join(repo, "base/widgets.yaml"), 9, 3, 0
		})},
		{"another file", with(in, func(f *report.Finding) { f.File = "crds/a.yaml" }), with(in, func(f *report.Finding) { f.File = "crds/a.yaml" })},
		{"no such document", with(in, func(f *report.Finding) { f.Document = 99 }), with(in, func(f *report.Finding) { f.Document = 99 })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Map(tt.in); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func with(f report.Finding, change func(*report.Finding)) report.Finding {
	change(&f)
	return f
}

// TestMapObjectNotFound: an object whose file no longer holds it (here:
// a file that cannot be read) names the file at line 0 and keeps the
// rendered object's identity.
func TestMapObjectNotFound(t *testing.T) {
	obj := report.ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "shop", Name: "dev-web"}
	r := &Rendered{
		Name:    "kustomize build x",
		Stream:  source.Parse("kustomize build x", []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: dev-web\n  namespace: shop\n")),
		Objects: []Object{{Object: obj, Origin: Origin{Path: filepath.Join(t.TempDir(), "gone.yaml"), Document: -1}}},
		tree:    &tree{byDir: map[string]*kust{}},
		files:   map[string]*originFile{},
	}
	in := report.Finding{Rule: "cr-schema", Field: "metadata.name", File: r.Name, Line: 4, Column: 3, Object: obj}
	got := r.Map(in)
	want := with(in, func(f *report.Finding) { f.File, f.Line, f.Column = r.Objects[0].Origin.Path, 0, 0 })
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestTraceConcurrent: findings are judged in parallel, and may be
// mapped so (run with -race).
func TestTraceConcurrent(t *testing.T) {
	r := render(t, "overlays/staging")
	want := make([]Trace, len(r.Objects))
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range r.Objects {
				tr := r.Trace(i, "spec.size")
				if g == 0 {
					want[i] = tr
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	for i := range r.Objects {
		if got := r.Trace(i, "spec.size"); got != want[i] {
			t.Errorf("object %d: got %+v, then %+v", i, want[i], got)
		}
	}
}

// TestFiles: every file a trace names is among Files, and Files names
// nothing that does not exist.
func TestFiles(t *testing.T) {
	for _, dir := range builds {
		t.Run(dir, func(t *testing.T) {
			r := render(t, dir)
			files := r.Files()
			for _, f := range files {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("Files names %s: %v", f, err)
				}
			}
			for i := range r.Objects {
				var v any
				if err := json.Unmarshal(jsonOf(t, r, i), &v); err != nil {
					t.Fatal(err)
				}
				for _, f := range leaves(v, "") {
					if tr := r.Trace(i, f.path); !slices.Contains(files, tr.File) {
						t.Errorf("trace of %s %s names %s, not in Files %v", r.Objects[i].Object, f.path, tr.File, files)
					}
				}
			}
		})
	}
}
