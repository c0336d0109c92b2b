// Package minors holds no code: its tests check the verdict of each
// supported Kubernetes minor with that minor's own engine (kubectl-crdlint
// built against the minor's apiextensions-apiserver, apiserver,
// kube-openapi and cel-go releases), that a run of several minors
// reports, per finding, exactly the minors whose single runs report it,
// that docs/versions.md's table of CEL libraries is what the engines
// answer, and that each engine links its minor's releases.
//
// The expectations in testdata were measured with each minor's libraries
// and agree with the releases' notes: a new CRD's rules compile in the
// previous minor's CEL environment, so Semver (arrived in 1.33) is
// usable from 1.34 and cel-go's lists v3 (1.34) from 1.35; the CRD
// strategy warns about unrecognized formats from 1.34.
//
// The engines are built once, outside the test (hack/minors/test.sh, which
// CI runs, puts every minor's engine and the main binary in one directory
// and sets CRDLINT_ENGINE_DIR); without them the tests are skipped.
package minors
