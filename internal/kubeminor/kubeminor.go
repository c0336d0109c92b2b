// Package kubeminor names the Kubernetes minors kubectl-crdlint judges as
// (--kubernetes-version), the one whose server libraries this binary
// links (Own), and reads the flag's and the configuration's values.
//
// A binary links one version of each module, so every minor but the
// newest is judged by its own build of kubectl-crdlint, an engine (see
// engine.go): the same source tree built against that minor's
// k8s.io/apiextensions-apiserver, apiserver, apimachinery, client-go,
// kube-openapi and cel-go releases (hack/minors/k8sMINOR.mod), with the
// few calls whose signatures differ between minors in build-tagged files
// (tag k8sMINOR). docs/versions.md says how a minor is added or dropped.
package kubeminor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/version"
)

// Release is a supported minor and the newest patch release its engine is
// built from.
type Release struct {
	Minor string // "1.33"
	Patch string // "1.33.13": the k8s.io modules' v0.33.13
}

// Module is the version of the k8s.io library modules of the release
// (v0.33.13 for Kubernetes 1.33.13).
func (r Release) Module() string { return "v0." + strings.TrimPrefix(r.Patch, "1.") }

// Tag is the build tag of the minor's engine build; the newest minor is
// the main binary's and needs none.
func (r Release) Tag() string {
	if r.Minor == Newest() {
		return ""
	}
	return "k8s" + r.Minor
}

// Supported are the minors, oldest first: the three upstream supports and
// the two that managed offerings still run in extended support.
var Supported = []Release{
	{"1.33", "1.33.13"},
	{"1.34", "1.34.13"},
	{"1.35", "1.35.10"},
	{"1.36", "1.36.6"},
	{"1.37", "1.37.2"},
}

// Newest is the newest supported minor: the default, and the main
// binary's own.
func Newest() string { return Supported[len(Supported)-1].Minor }

// Own is the minor of the server libraries this binary links, as they say
// themselves (component-base's DefaultKubeBinaryVersion, which every
// release sets to its minor).
func Own() string { return version.DefaultKubeBinaryVersion }

// Lookup is the release of a supported minor.
func Lookup(minor string) (Release, bool) {
	for _, r := range Supported {
		if r.Minor == minor {
			return r, true
		}
	}
	return Release{}, false
}

// Names lists the supported minors for messages: "1.33, 1.34, ..., 1.37".
func Names() string {
	var out []string
	for _, r := range Supported {
		out = append(out, r.Minor)
	}
	return strings.Join(out, ", ")
}

// Parse reads a --kubernetes-version value: a minor ("1.35"), a range of
// minors ("1.33-1.37", both ends included), or a comma-separated list of
// either ("1.33,1.36"). A patch version ("1.35.2", "v1.35") names its
// minor. It returns the minors in order, oldest first, each once.
func Parse(spec string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := minorOf(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = minorOf(hi); err != nil {
				return nil, err
			}
		}
		ia, ib := index(a), index(b)
		if ia > ib {
			return nil, fmt.Errorf("invalid Kubernetes version range %q: %s is newer than %s", part, a, b)
		}
		for i := ia; i <= ib; i++ {
			out = append(out, Supported[i].Minor)
		}
	}
	slices.SortFunc(out, func(x, y string) int { return index(x) - index(y) })
	return slices.Compact(out), nil
}

// minorOf reads one minor, or a patch version of one, and refuses what
// is not supported, naming what is.
func minorOf(s string) (string, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return "", fmt.Errorf("invalid Kubernetes version %q: want a minor such as %s (supported: %s)", s, Newest(), Names())
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 32); err != nil {
			return "", fmt.Errorf("invalid Kubernetes version %q: want a minor such as %s (supported: %s)", s, Newest(), Names())
		}
	}
	m := parts[0] + "." + parts[1]
	if index(m) < 0 {
		return "", fmt.Errorf("Kubernetes %s is not supported: supported minors are %s", m, Names())
	}
	return m, nil
}

func index(minor string) int {
	return slices.IndexFunc(Supported, func(r Release) bool { return r.Minor == minor })
}

// OfServer is the minor of a server's reported version (its /version:
// major "1" and minor "36", or "36+" as some managed offerings say; else
// the gitVersion, "v1.36.2-gke.1000"), when it is a supported one;
// otherwise an error naming the version and the supported minors.
func OfServer(gitVersion, major, minor string) (string, error) {
	m := ""
	a, errA := strconv.ParseUint(major, 10, 32)
	b, errB := strconv.ParseUint(strings.TrimSuffix(minor, "+"), 10, 32)
	if errA == nil && errB == nil {
		m = fmt.Sprintf("%d.%d", a, b)
	} else if v, err := utilversion.ParseGeneric(gitVersion); err == nil {
		m = fmt.Sprintf("%d.%d", v.Major(), v.Minor())
	} else {
		return "", fmt.Errorf("reports no version that names a Kubernetes minor (major %q, minor %q, gitVersion %q)", major, minor, gitVersion)
	}
	if index(m) < 0 {
		return "", fmt.Errorf("runs Kubernetes %s, which kubectl-crdlint does not judge as (supported minors: %s)", m, Names())
	}
	return m, nil
}
