package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// speedSources are the suites SpeedSuite draws its cases from: real
// projects' CEL tables (gateway-api, Envoy Gateway) and the in-repo
// suite's creates, updates and status writes, each with its CRDs.
var speedSources = []struct{ suite, crds string }{
	{"pkg/crdtest/testdata/upstream/gateway-api/cel.crdtest.yaml", "pkg/crdtest/testdata/upstream/gateway-api/crds"},
	{"pkg/crdtest/testdata/upstream/envoy-gateway/cel-validation.crdtest.yaml", "pkg/crdtest/testdata/upstream/envoy-gateway/crds"},
	{"pkg/crdtest/testdata/suites/widgets.crdtest.yaml", "pkg/crdtest/testdata/suites/widgets-crd.yaml"},
}

// SpeedSuite writes into dir a crdlint test suite of n cases, cycling
// through speedSources' cases (renamed "NAME #i"), against all their CRDs
// (absolute paths), with the suite's kubernetesVersions (minors; "" for
// none), and returns its path: the speed bound is stated for a
// suite of 500 cases.
func SpeedSuite(tb testing.TB, dir string, n int, minors string) string {
	tb.Helper()
	root := RepoRoot(tb)
	var cases []*yaml.Node
	var crds []string
	for _, s := range speedSources {
		b, err := os.ReadFile(filepath.Join(root, s.suite))
		if err != nil {
			tb.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err != nil {
			tb.Fatal(err)
		}
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == "tests" {
				cases = append(cases, m.Content[i+1].Content...)
			}
		}
		crds = append(crds, filepath.Join(root, s.crds))
	}
	var tests []any
	for i := range n {
		var c map[string]any
		if err := cases[i%len(cases)].Decode(&c); err != nil {
			tb.Fatal(err)
		}
		c["name"] = fmt.Sprintf("%v #%d", c["name"], i)
		tests = append(tests, c)
	}
	suite := map[string]any{"apiVersion": "crdlint.dev/v1alpha1", "kind": "CRDTestSuite", "name": fmt.Sprintf("speed %d", n), "crds": crds, "tests": tests}
	if minors != "" {
		suite["kubernetesVersions"] = minors
	}
	b, err := yaml.Marshal(suite)
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(dir, fmt.Sprintf("speed%d.crdtest.yaml", n))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}
