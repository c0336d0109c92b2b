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
//
// It also knows the names by which test tools mark files that hold no
// manifests to apply (Snapshot, Assertion): recorded outputs, fixtures
// and expected states, which a run over a whole repository skips and
// counts.
package layout

import (
	"regexp"
	"strings"
)

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

// snapshotDirs are the directories in which test tools record the output
// a test compares with: helm-unittest's __snapshot__ (beside a chart's
// tests/, and external-secrets' tests/__snapshot__ of its API types),
// Jest's __snapshots__. What they hold is a rendering kept for
// comparison (often a skeleton object without its name), never applied.
var snapshotDirs = map[string]bool{"__snapshot__": true, "__snapshots__": true}

// roundTripName is the name k8s.io/apimachinery's round-trip
// compatibility test (apitesting/roundtrip.CompatibilityTestOptions)
// gives the serialized objects it compares each release's decoding
// with: GROUP.VERSION.KIND.json or .yaml ("core" for the legacy group),
// in testdata/HEAD for the current code and testdata/<release> for each
// earlier one (Kubernetes' staging/src/k8s.io/api/testdata, KubeVirt's
// staging/src/kubevirt.io/api/apitesting/testdata). The objects are
// fuzzer output, every field filled with placeholders ("fieldNameValue",
// numbers for enums), never meant for a server.
var roundTripName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\.v[0-9]+((alpha|beta)[0-9]+)?\.[A-Z][A-Za-z0-9]*\.(json|yaml)$`)

// Snapshot reports whether a slash-separated path is a test's recorded
// output or input rather than a manifest (its last element is the file):
//
//   - a file in a test snapshot directory (snapshotDirs);
//   - a round-trip compatibility fixture (roundTripName) in
//     testdata/<release>/;
//   - a file under testdata/ of an Argo CD resource customization
//     (resource_customizations/GROUP/KIND/, its actions/ too): the live
//     objects, status and all, that the health and action Lua scripts'
//     tests (health_test.yaml, action_test.yaml) read and expect.
func Snapshot(path string) bool {
	parts := strings.Split(path, "/")
	dirs := parts[:len(parts)-1]
	for _, p := range dirs {
		if snapshotDirs[p] {
			return true
		}
	}
	if n := len(dirs); n >= 2 && dirs[n-2] == "testdata" && roundTripName.MatchString(parts[len(parts)-1]) {
		return true
	}
	for i, p := range dirs {
		if p != "resource_customizations" {
			continue
		}
		// GROUP/KIND/testdata or GROUP/KIND/actions/testdata below it.
		rest := dirs[i+1:]
		if len(rest) >= 3 && rest[2] == "testdata" || len(rest) >= 4 && rest[2] == "actions" && rest[3] == "testdata" {
			return true
		}
	}
	return false
}

// assertionName is the name kuttl and chainsaw give a test step's
// expected and forbidden states: NN-assert.yaml and NN-errors.yaml, the
// step's index first. kuttl reads what follows the index up to the next
// "-" or "." case-insensitively (01-assert-pods.yaml asserts too);
// chainsaw, when a test has no chainsaw-test.yaml, reads NN-assert.yaml
// and NN-errors.yaml (.yml too) as kuttl does.
var assertionName = regexp.MustCompile(`(?i)^\d+-(assert|errors)(-[^.]*)?\.ya?ml$`)

// Assertion reports whether a file's name (not its path) is a kuttl or
// chainsaw step's assertion: objects a test compares the cluster's with,
// partial and often not valid on their own (a status alone, a name that
// a JMESPath binding sets), never applied.
func Assertion(name string) bool { return assertionName.MatchString(name) }
