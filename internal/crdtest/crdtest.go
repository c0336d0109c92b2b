// Package crdtest reads CRDs for tests as the server stores them: decoded
// from apiextensions.k8s.io/v1 by the apiextensions scheme, and defaulted
// (the input pkg/upgrade/compare documents and pkg/upgrade/replay takes).
//
// Unlike pkg/crd's Decode it drops unknown fields rather than collect
// them, and keeps no verdict: tests of the comparison and the replay
// want the CRD object and, for positions, its document. A missing or
// undecodable file fails the test: nothing skips.
//
// Example, in a test:
//
//	old := crdtest.Read(t, "testdata/widget-v1.yaml")
//	cs := compare.Revisions(old.CRD, new.CRD, compare.Options{})
//	pos, _ := old.Doc.Locate(cs[0].Path)
package crdtest

import (
	"encoding/json"
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Decode decodes and defaults a v1 CRD from JSON, as engine.DecodeCRD
// does, dropping the unknown and duplicate fields it reports.
func Decode(js []byte) (*apiextensionsv1.CustomResourceDefinition, error) {
	crd, _, err := engine.DecodeCRD(js)
	return crd, err
}

// File is one CRD read from a file: the decoded object, its JSON as
// written, and the parsed document for positions.
type File struct {
	Path string
	CRD  *apiextensionsv1.CustomResourceDefinition
	Doc  *source.Document
	// Stored is the decoded and defaulted CRD as JSON, where every path
	// of a change must exist.
	Stored any
}

// Read reads a file holding exactly one CRD, failing the test if it
// cannot (a missing fixture is a failure, never a skip).
func Read(tb testing.TB, path string) *File {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	f := source.Parse(path, data)
	if len(f.Documents) != 1 {
		tb.Fatalf("%s: %d documents, want exactly one CRD", path, len(f.Documents))
	}
	d := f.Documents[0]
	crd, err := Decode(d.JSON)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return &File{Path: path, CRD: crd, Doc: d, Stored: StoredJSON(tb, crd)}
}

// StoredJSON is crd as decoded JSON (map[string]any, []any, scalars).
func StoredJSON(tb testing.TB, crd *apiextensionsv1.CustomResourceDefinition) any {
	tb.Helper()
	b, err := json.Marshal(crd)
	if err != nil {
		tb.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatal(err)
	}
	return v
}
