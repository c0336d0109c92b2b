package readfuzz

import (
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crdtest"
)

// FuzzRead: the reader never panics, and what it reads has named cases
// with at least one step each.
//
// The seeds are small suites, one per shape the reader knows, rather than
// the testdata files: the fuzzer minimizes every input that finds new
// coverage, and minimizing inputs of kilobytes held its workers to a few
// inputs in ten seconds (12 against 1,100 a second with small seeds).
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		// crdlint's format: create, update, status, expectations.
		"apiVersion: crdlint.dev/v1alpha1\nkind: CRDTestSuite\ncrds: [c.yaml]\nkubernetesVersions: 1.33-1.37\ntests:\n- name: a\n  object: {apiVersion: example.com/v1, kind: W, spec: {x: 1}}\n  expect: {errors: [{field: spec.x, reason: FieldValueInvalid, messageContains: m}]}\n",
		"apiVersion: crdlint.dev/v1alpha1\nkind: CRDTestSuite\ntests:\n- name: b\n  subresource: status\n  oldObject: &o {apiVersion: example.com/v1, kind: W, metadata: {name: w}}\n  object: *o\n  expect: {accepted: true, stored: {a: 1}, pruned: [a], warnings: [w]}\n",
		"apiVersion: crdlint.dev/v1alpha1\nkind: CRDTestSuite\nfieldValidation: Strict\ntests:\n- name: c\n  objectFile: missing.yaml\n  kubernetesVersions: ['>=1.34']\n",
		// openshift/api's format as its generator reads it: aliases,
		// merge keys, keys in any case, keys it ignores.
		"crdName: a.b\nfeatureGate: X\nfeatureGates: [A, -B]\ntests:\n  OnCreate:\n  - &t {name: a, initial: &o 'a: 1', expectedError: e}\n  - <<: *t\n    name: b\n    initial: *o\n",
		"crdName: a.b\ntests:\n  onUpdate:\n  - name: a\n    initialCRDPatches: [{op: remove, path: /spec}]\n    initial: 'a: 1'\n    updated: 'b: {status: {}}'\n    expectedStatusError: s\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := crdtest.Read("fuzz.yaml", data)
		if err != nil {
			if _, ok := err.(*crdtest.Error); !ok {
				t.Fatalf("not an *Error: %T %v", err, err)
			}
			return
		}
		for _, c := range s.Cases {
			if c.Name == "" || len(c.Steps) == 0 {
				t.Fatalf("case %+v", c)
			}
		}
	})
}
