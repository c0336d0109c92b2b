package crdtest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Discover finds the suites of paths: a file is a suite whatever its
// name; a directory's suites are its files named *.crdtest.yaml (or
// .yml), and openshift/api's suites where that project keeps them,
// tests/<crd name>/*.yaml (files that read as its format: a crdName: and
// a tests: mapping). Below the paths given, hidden directories are
// skipped, and so are those Go's tools skip: testdata (fixtures, which a
// project's own tests run, some failing on purpose), vendor and
// node_modules (copies of other projects); a path given inside one is
// searched. The order is the paths', each directory's in lexical order.
func Discover(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if f != p && skipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if IsSuiteName(f) || openshiftPlace(f) {
				out = append(out, f)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules"
}

// IsSuiteName says whether a file's name follows the naming convention.
func IsSuiteName(f string) bool {
	b := filepath.Base(f)
	return strings.HasSuffix(b, Suffix) || strings.HasSuffix(b, ".crdtest.yml")
}

// openshiftPlace: tests/<crd>/<name>.yaml holding an openshift suite.
func openshiftPlace(f string) bool {
	if filepath.Ext(f) != ".yaml" || filepath.Base(filepath.Dir(filepath.Dir(f))) != "tests" {
		return false
	}
	data, err := os.ReadFile(f)
	return err == nil && bytes.Contains(data, []byte("\ncrdName:")) && bytes.Contains(data, []byte("\ntests:"))
}

// DefaultCRDs are where a suite's CRDs are when neither the suite nor the
// command names any: for openshift/api's suites, the feature sets' CRDs
// its generator writes (../../zz_generated.crd-manifests; the
// per-gate manifests beside them are not installable: their
// "feature-gate.release.openshift.io/" annotation has an empty name);
// nil otherwise.
func DefaultCRDs(s *Suite) []string {
	if s.Format != OpenShift {
		return nil
	}
	d := filepath.Join(filepath.Dir(s.File), "..", "..", "zz_generated.crd-manifests")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return []string{filepath.Clean(d)}
	}
	return nil
}
