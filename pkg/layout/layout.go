// Package layout knows where repositories keep copies of their CRDs
// rather than their sources: release bundles, vendored trees, OLM
// bundles. A copy may lag its source (a release from last year, a bundle
// regenerated at release time), so the CRD that judges a custom resource
// is never a copy when a source defines the kind (pkg/crd), and `config
// init` does not propose a copy as a CRD source (pkg/config).
//
// The names are conventions of real repositories:
//
//   - releases: historical release manifests (cloudnative-pg keeps 44,
//     cnpg-1.15.0.yaml to cnpg-1.30.0.yaml, beside config/crd/bases);
//   - dist: built artefacts (kubebuilder v4's dist/install.yaml from
//     make build-installer, and dist/chart);
//   - bundle, packagemanifests, olm-catalog: Operator Lifecycle Manager
//     bundles (operator-sdk's bundle/manifests from make bundle, the
//     older packagemanifests/<version>/ and deploy/olm-catalog/ trees,
//     one directory per released version);
//   - vendor, third_party, third-party: other projects' files, copied.
package layout

import "strings"

// copyDirs are the directory names that hold copies (see the package
// documentation).
var copyDirs = map[string]bool{
	"releases":         true,
	"dist":             true,
	"bundle":           true,
	"packagemanifests": true,
	"olm-catalog":      true,
	"vendor":           true,
	"third_party":      true,
	"third-party":      true,
}

// CopyDir reports whether a directory of this name holds copies of CRDs
// rather than their sources.
func CopyDir(name string) bool { return copyDirs[name] }

// CopyDirs lists the names CopyDir knows, sorted, for documentation and
// messages.
func CopyDirs() []string {
	return []string{"bundle", "dist", "olm-catalog", "packagemanifests", "releases", "third-party", "third_party", "vendor"}
}

// CopyIn is the index of the first of the directories of a
// slash-separated path (its last element, the file, is not a directory)
// that is a copy directory, or -1.
func CopyIn(path string) int {
	parts := strings.Split(path, "/")
	for i, p := range parts[:len(parts)-1] {
		if CopyDir(p) {
			return i
		}
	}
	return -1
}
