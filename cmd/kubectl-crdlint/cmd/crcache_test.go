package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/cachedir"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

const cacheWidgetCRD = `apiVersion: apiextensions.k8s.io/v1
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
              size: {type: integer, maximum: MAX}
`

const cacheGadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
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
`

// Custom resources with findings of several rules, an inline
// suppression and a Helm source comment: what is applied after the
// cache must be applied to replayed files too.
const cacheWidgets = `apiVersion: example.com/v1
kind: Widget
metadata: {name: small}
spec: {size: 5}
---
# Source: chart/templates/widget.yaml
apiVersion: example.com/v1
kind: Widget
metadata: {name: big}
spec:
  size: 20
  extra: 1
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: quiet}
spec:
  size: 50 # crdlint:ignore cr-schema -- too big on purpose
`

const cacheGadgets = `apiVersion: example.com/v1
kind: Gadget
metadata: {name: green}
spec: {color: green}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: builtin}
`

// writeFile writes a test's file (an absolute path), its directory first.
func writeFile(t *testing.T, p, data string) {
	t.Helper()
	testutil.WriteFiles(t, filepath.Dir(p), map[string]string{filepath.Base(p): data})
}

// checkOutput runs check -o json (then args) and returns its output; it
// must exit 0 or 1.
func checkOutput(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runMain(t, append([]string{"check", "-o", "json", "--no-config"}, args...)...)
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return out
}

// sameAsNoCache runs check with args with and without the cache in
// cache, fails unless the outputs are equal, and returns the output and
// the work the cached run did.
func sameAsNoCache(t *testing.T, cache, what string, args ...string) (string, count.Snapshot) {
	t.Helper()
	want := checkOutput(t, append([]string{"--no-cache"}, args...)...)
	before := count.Now()
	got := checkOutput(t, append([]string{"--cache-dir", cache}, args...)...)
	if got != want {
		t.Fatalf("%s: the output differs from --no-cache's:\n%s\nwant:\n%s", what, got, want)
	}
	return got, count.Now().Sub(before)
}

// damageEntries truncates, then flips a byte of, then empties every
// entry of the cache, calling check (which compares with --no-cache)
// after each.
func damageEntries(t *testing.T, cache string, check func()) {
	t.Helper()
	var entries []string
	filepath.WalkDir(filepath.Join(cache, cachedir.Verdicts), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			entries = append(entries, p)
		}
		return nil
	})
	if len(entries) == 0 {
		t.Fatal("no cache entries to damage")
	}
	for _, damage := range []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)/2] },
		func(b []byte) []byte { c := bytes.Clone(b); c[len(c)/2] ^= 0x20; return c },
		func([]byte) []byte { return nil },
	} {
		for _, p := range entries {
			data, err := os.ReadFile(p)
			if err != nil {
				continue // trimmed
			}
			os.WriteFile(p, damage(data), 0o600)
		}
		check()
	}
}

// TestFileCacheChangesNothing checks that the cache of custom resource
// files gives the output of a run without it whatever changed between
// runs: nothing (no custom resource validated), a CRD (only the files of
// its kind judged again), a CRD removed, a file, the options, and
// damaged entries.
func TestFileCacheChangesNothing(t *testing.T) {
	root := t.TempDir()
	crds, crs, cache := filepath.Join(root, "crds"), filepath.Join(root, "crs"), filepath.Join(root, "cache")
	write := func(p, data string) { writeFile(t, p, data) }
	write(filepath.Join(crds, "widget.yaml"), strings.Replace(cacheWidgetCRD, "MAX", "10", 1))
	write(filepath.Join(crds, "gadget.yaml"), cacheGadgetCRD)
	write(filepath.Join(crs, "widgets.yaml"), cacheWidgets)
	write(filepath.Join(crs, "gadgets.yaml"), cacheGadgets)

	// same runs with and without the cache and returns the output and
	// the custom resources the cached run validated.
	same := func(what string, args ...string) (string, int64) {
		t.Helper()
		out, n := sameAsNoCache(t, cache, what, args...)
		return out, n.CRValidations
	}
	for _, layout := range []struct {
		name string
		args []string
	}{
		{"--crd", []string{"--crd", crds, crs}},
		{"inputs", []string{crds, crs}},
	} {
		t.Run(layout.name, func(t *testing.T) {
			os.RemoveAll(cache)
			write(filepath.Join(crds, "widget.yaml"), strings.Replace(cacheWidgetCRD, "MAX", "10", 1))
			write(filepath.Join(crds, "gadget.yaml"), cacheGadgetCRD)
			write(filepath.Join(crs, "gadgets.yaml"), cacheGadgets)
			args := layout.args
			out, n := same("cold", args...)
			for _, want := range []string{`"cr-schema"`, `"unknown-field"`, `"via": "chart/templates/widget.yaml"`, `"kind": "inline"`} {
				if !strings.Contains(out, want) {
					t.Fatalf("too little exercised: no %s in %s", want, out)
				}
			}
			if n != 4 {
				t.Fatalf("the cold run validated %d custom resources, want 4", n)
			}
			if _, n := same("warm", args...); n != 0 {
				t.Errorf("the warm run validated %d custom resources, want none", n)
			}

			write(filepath.Join(crds, "widget.yaml"), strings.Replace(cacheWidgetCRD, "MAX", "30", 1))
			edited, n := same("Widget CRD edited", args...)
			if edited == out {
				t.Error("editing the Widget CRD changed nothing: the test proves nothing")
			}
			if n != 3 {
				t.Errorf("with the Widget CRD edited, %d custom resources were validated, want the 3 widgets", n)
			}

			os.Remove(filepath.Join(crds, "gadget.yaml"))
			gone, n := same("Gadget CRD removed", args...)
			if !strings.Contains(gone, `"cr-no-crd"`) {
				t.Error("with the Gadget CRD removed, no cr-no-crd finding")
			}
			if n != 1 {
				t.Errorf("with the Gadget CRD removed, %d custom resources were validated, want the gadget", n)
			}
			same("Gadget CRD removed, warm", args...)
			same("--missing-crds warn", append([]string{"--missing-crds", "warn"}, args...)...)
			write(filepath.Join(crds, "gadget.yaml"), cacheGadgetCRD)

			write(filepath.Join(crs, "gadgets.yaml"), strings.Replace(cacheGadgets, "green", "red", 2))
			if _, n := same("file edited", args...); n != 1 {
				t.Errorf("with gadgets.yaml edited, %d custom resources were validated, want its one", n)
			}
			same("--strict", append([]string{"--strict"}, args...)...)
			same("--disable", append([]string{"--disable", "cr-schema"}, args...)...)
			same("--max-document-size", append([]string{"--max-document-size", "100"}, args...)...)
			if _, n := same("warm again", args...); n != 0 {
				t.Errorf("the warm run validated %d custom resources, want none", n)
			}

			damageEntries(t, cache, func() { same("damaged entries", args...) })
		})
	}
}

// TestFileCacheReplaysEveryFile: a warm run judges no unchanged file
// again, whatever the collect phase had to parse it for — a file of
// custom resources whose text mentions CustomResourceDefinition (an
// Argo CD Application's ignoreDifferences, a Kyverno policy's match, a
// ClusterResourceSet's ConfigMap: the collect phase must parse it to see
// that it holds no CRD), and a file that holds CRDs and custom resources
// together. Both were judged on every run: a generated workload of 200
// files of 17 projects' kinds had 7 such files, a fifth of a warm run.
// Each run's output is --no-cache's.
func TestFileCacheReplaysEveryFile(t *testing.T) {
	root := t.TempDir()
	crds, crs, cache := filepath.Join(root, "crds"), filepath.Join(root, "crs"), filepath.Join(root, "cache")
	write := func(p, data string) { writeFile(t, p, data) }
	widgetCRD := func(max string) string { return strings.Replace(cacheWidgetCRD, "MAX", max, 1) }
	gizmoCRD := func(max string) string {
		return strings.NewReplacer("widgets", "gizmos", "Widget", "Gizmo", "MAX", max).Replace(cacheWidgetCRD)
	}
	// The word in a comment, in a value, and in a document of a kind
	// without a CRD: none of them is a CRD.
	const mentions = `# Synced by an Application that ignores differences in CustomResourceDefinition objects.
apiVersion: example.com/v1
kind: Widget
metadata: {name: one}
spec: {size: 50} # crdlint:ignore cr-schema -- on purpose
---
# Source: chart/templates/widget.yaml
apiVersion: example.com/v1
kind: Widget
metadata: {name: two}
spec: {size: 20, kinds: [CustomResourceDefinition]}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: crds}
spec: {match: {kinds: [CustomResourceDefinition]}}
`
	bundle := func(max string) string {
		return gizmoCRD(max) + `---
apiVersion: example.com/v1
kind: Gizmo
metadata: {name: big}
spec: {size: 20}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: three}
spec: {size: 30} # crdlint:ignore cr-schema
`
	}
	same := func(what string, args ...string) (string, count.Snapshot) {
		t.Helper()
		return sameAsNoCache(t, cache, what, args...)
	}
	for _, tc := range []struct {
		name string
		// bundle adds crs/bundle.yaml, which holds a CRD: it is parsed
		// on every run, to collect its CRD.
		bundle bool
	}{
		{"a file that mentions CRDs", false},
		{"and a file of CRDs and custom resources", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(root)
			write(filepath.Join(crds, "widget.yaml"), widgetCRD("10"))
			write(filepath.Join(crs, "mentions.yaml"), mentions)
			write(filepath.Join(crs, "plain.yaml"), cacheGadgets)
			write(filepath.Join(crds, "gadget.yaml"), cacheGadgetCRD)
			want := 4 // mentions.yaml's 3, plain.yaml's 2 less the ConfigMap
			if tc.bundle {
				write(filepath.Join(crs, "bundle.yaml"), bundle("10"))
				want += 2
			}
			args := []string{"--crd", crds, crs}
			out, n := same("cold", args...)
			for _, s := range []string{`"cr-schema"`, `"unknown-field"`, `"via": "chart/templates/widget.yaml"`, `"kind": "inline"`, `"cr-no-crd"`} {
				if !strings.Contains(out, s) {
					t.Fatalf("too little exercised: no %s in %s", s, out)
				}
			}
			if n.CRValidations != int64(want) {
				t.Fatalf("the cold run validated %d custom resources, want %d", n.CRValidations, want)
			}
			for _, what := range []string{"warm", "warm again"} {
				_, n = same(what, args...)
				if n.CRValidations != 0 || n.VersionCompiles != 0 {
					t.Errorf("%s: %d custom resources validated, %d versions compiled; want none", what, n.CRValidations, n.VersionCompiles)
				}
				if !tc.bundle && n.Parses != 0 {
					t.Errorf("%s: %d documents parsed, want none", what, n.Parses)
				}
			}

			// JUnit lists every object, passing ones too: replayed
			// files list theirs as judged ones do.
			if out, n := same("warm, JUnit", append([]string{"-o", "junit"}, args...)...); n.CRValidations != 0 || !strings.Contains(out, "<testcase") {
				t.Errorf("warm, JUnit: %d custom resources validated, want none; output:\n%s", n.CRValidations, out)
			}

			write(filepath.Join(crds, "widget.yaml"), widgetCRD("30"))
			if _, n := same("Widget CRD edited", args...); n.CRValidations != 3+map[bool]int64{true: 2}[tc.bundle] {
				t.Errorf("with the Widget CRD edited, %d custom resources validated, want those of the files with widgets", n.CRValidations)
			}
			if tc.bundle {
				write(filepath.Join(crs, "bundle.yaml"), bundle("30"))
				if _, n := same("bundle edited", args...); n.CRValidations != 2 {
					t.Errorf("with bundle.yaml edited, %d custom resources validated, want its 2", n.CRValidations)
				}
			}
			write(filepath.Join(crs, "mentions.yaml"), strings.Replace(mentions, "two", "deux", 1))
			if _, n := same("mentions.yaml edited", args...); n.CRValidations != 3 {
				t.Errorf("with mentions.yaml edited, %d custom resources validated, want its 3", n.CRValidations)
			}
			same("--strict", append([]string{"--strict"}, args...)...)
			same("--missing-crds warn", append([]string{"--missing-crds", "warn"}, args...)...)
			if _, n := same("warm at last", args...); n.CRValidations != 0 {
				t.Errorf("warm at last: %d custom resources validated, want none", n.CRValidations)
			}

			damageEntries(t, cache, func() { same("damaged entries", args...) })
		})
	}
}
