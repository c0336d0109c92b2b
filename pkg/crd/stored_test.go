package crd

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// storedOddities are CRDs whose decoding says more than the object: an
// unknown field, a field of the wrong type, the Immutable Fields markers,
// and an apiextensions version no server serves.
const storedOddities = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: odds.stored.example.com}
spec:
  group: stored.example.com
  colour: blue
  names: {kind: Odd, plural: odds}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-mutability: Immutable}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: evens.stored.example.com}
spec:
  group: stored.example.com
  names: {kind: Even, plural: evens}
  scope: Namespaced
  versions: {name: v1}
---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: olds.stored.example.com}
spec:
  group: stored.example.com
  names: {kind: Old, plural: olds}
  version: v1
`

// TestRestoreEqualsFind: CRDs kept with StoredOf, through gob as the
// cache keeps them, and decoded with Restore are the CRDs FindCRDs
// decoded from the file, for every corpus CRD file.
func TestRestoreEqualsFind(t *testing.T) {
	names, texts := deferredFiles(t)
	names, texts = append(names, "oddities.yaml"), append(texts, []byte(storedOddities))
	for i := range names {
		found := FindCRDs(source.Parse(names[i], texts[i]))
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(StoredOf(found)); err != nil {
			t.Fatal(err)
		}
		var stored []Stored
		if err := gob.NewDecoder(&buf).Decode(&stored); err != nil {
			t.Fatal(err)
		}
		got := Restore(stored)
		var want []Loaded
		for _, f := range found {
			if f.Def != nil {
				want = append(want, Loaded{Def: f.Def, Source: f.Source()})
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d CRDs restored, %d found", names[i], len(got), len(want))
		}
		for k := range want {
			if d := sameDefinition(got[k], want[k]); d != "" {
				t.Errorf("%s, CRD %d: %s", names[i], k, d)
			}
		}
		if names[i] == "oddities.yaml" && (len(got) != 2 || got[0].Def.Unknown == nil || got[0].Def.Markers == nil || got[1].Def.DecodeError == nil) {
			t.Errorf("too little exercised: the oddities restore as %+v", got)
		}
	}
}

func sameDefinition(a, b Loaded) string {
	switch {
	case a.Source != b.Source:
		return fmt.Sprintf("source %q, want %q", a.Source, b.Source)
	case !reflect.DeepEqual(a.Def.v1, b.Def.v1):
		return "object differs"
	case !reflect.DeepEqual(a.Def.Unknown, b.Def.Unknown):
		return fmt.Sprintf("unknown fields %q, want %q", a.Def.Unknown, b.Def.Unknown)
	case fmt.Sprint(a.Def.DecodeError) != fmt.Sprint(b.Def.DecodeError):
		return fmt.Sprintf("decode error %v, want %v", a.Def.DecodeError, b.Def.DecodeError)
	case !reflect.DeepEqual(a.Def.Markers, b.Def.Markers):
		return "markers differ"
	case !reflect.DeepEqual(a.Def.Origin, b.Def.Origin):
		return fmt.Sprintf("origin %+v, want %+v", a.Def.Origin, b.Def.Origin)
	case !bytes.Equal(a.Def.raw, b.Def.raw):
		return "JSON differs"
	}
	return ""
}

// BenchmarkLoadCRDFile reads every corpus CRD file's CRDs the two ways a
// run can: parsing the YAML (what a run that never read the file does) and
// decoding the JSON a run kept (Restore).
func BenchmarkLoadCRDFile(b *testing.B) {
	var (
		names  []string
		texts  [][]byte
		stored [][]Stored
		size   int
	)
	for _, p := range testutil.Files(b, "crds") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		names, texts, size = append(names, filepath.Base(p)), append(texts, data), size+len(data)
		stored = append(stored, StoredOf(FindCRDs(source.Parse(p, data))))
	}
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(size))
		for range b.N {
			for i := range texts {
				FindCRDs(source.Parse(names[i], texts[i]))
			}
		}
	})
	b.Run("restore", func(b *testing.B) {
		b.SetBytes(int64(size))
		for range b.N {
			for _, s := range stored {
				Restore(s)
			}
		}
	})
}
