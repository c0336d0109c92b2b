package crdtest

import (
	"fmt"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/kubeminor"
)

// Minors are the Kubernetes minors a suite may name, oldest first: the
// project's supported minors (kubeminor.Supported).
var Minors = supported()

// Own is the minor whose server libraries this binary links: the
// in-process engine's. Each other minor is judged by its own engine, a
// build of kubectl-crdlint against that minor's libraries (RunMinors).
var Own = kubeminor.Own()

func supported() []string {
	out := make([]string, len(kubeminor.Supported))
	for i, r := range kubeminor.Supported {
		out[i] = r.Minor
	}
	return out
}

// minors reads kubernetesVersions: a minor ("1.35"), a range
// ("1.33-1.35", ">=1.34", "<=1.36"), or a list of those; each must name
// supported minors only.
func (r *reader) minors(v *yaml.Node) ([]string, error) {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	seen := map[string]bool{}
	for _, it := range items {
		s, err := r.str(it, "kubernetesVersions")
		if err != nil {
			return nil, err
		}
		got, err := ParseMinors(s)
		if err != nil {
			return nil, r.errorf(it, "kubernetesVersions: %v", err)
		}
		for _, m := range got {
			seen[m] = true
		}
	}
	var out []string
	for _, m := range Minors {
		if seen[m] {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, r.errorf(v, "kubernetesVersions names no minor")
	}
	return out, nil
}

// ParseMinors reads one kubernetesVersions entry.
func ParseMinors(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	lo, hi := "", ""
	switch {
	case strings.HasPrefix(s, ">="):
		lo, hi = strings.TrimSpace(s[2:]), Minors[len(Minors)-1]
	case strings.HasPrefix(s, "<="):
		lo, hi = Minors[0], strings.TrimSpace(s[2:])
	case strings.Contains(s, "-"):
		a, b, _ := strings.Cut(s, "-")
		lo, hi = strings.TrimSpace(a), strings.TrimSpace(b)
	default:
		lo, hi = s, s
	}
	i, err := minorIndex(lo)
	if err != nil {
		return nil, err
	}
	j, err := minorIndex(hi)
	if err != nil {
		return nil, err
	}
	if i > j {
		return nil, fmt.Errorf("%q is an empty range", s)
	}
	return Minors[i : j+1], nil
}

func minorIndex(m string) (int, error) {
	m = strings.TrimPrefix(m, "v")
	// "1.35.2" names its minor.
	if parts := strings.Split(m, "."); len(parts) == 3 {
		if _, err := strconv.Atoi(parts[2]); err == nil {
			m = parts[0] + "." + parts[1]
		}
	}
	for i, s := range Minors {
		if s == m {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%q is not a supported Kubernetes minor (supported: %s)", m, strings.Join(Minors, ", "))
}
