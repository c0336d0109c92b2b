package crdtest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

// openshift/api decides which of its feature-set CRDs a gated suite runs
// on from the FeatureGate manifests of its payload
// (payload-manifests/featuregates/*.yaml: per cluster profile, feature
// set and major version, which gates are enabled), as its generator's
// perTestRuntimeInfo does (tests/crd_filter.go). The feature-set CRDs
// carry no per-gate annotations, so without these manifests no gated
// suite could run.

// featureGateManifest is one payload FeatureGate: its annotations and
// its gates, enabled (true) or disabled (false).
type featureGateManifest struct {
	annotations map[string]string
	gates       map[string]bool
}

var featureGateDirs sync.Map // dir -> []featureGateManifest or error

// FeatureGateDir is where openshift/api keeps the payload's FeatureGate
// manifests for a suite: payload-manifests/featuregates in the suite's
// directory or the nearest parent; "" when there is none.
func FeatureGateDir(suiteFile string) string {
	d := filepath.Dir(suiteFile)
	for i := 0; i < 8; i++ {
		p := filepath.Join(d, "payload-manifests", "featuregates")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return ""
}

// readFeatureGates reads a directory's manifests once, in the order the
// generator walks them (lexical).
func readFeatureGates(dir string) ([]featureGateManifest, error) {
	if v, ok := featureGateDirs.Load(dir); ok {
		if err, ok := v.(error); ok {
			return nil, err
		}
		return v.([]featureGateManifest), nil
	}
	var out []featureGateManifest
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var fg struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			Status struct {
				FeatureGates []struct {
					Enabled, Disabled []struct {
						Name string `json:"name"`
					}
				} `json:"featureGates"`
			} `json:"status"`
		}
		if err := sigsyaml.Unmarshal(data, &fg); err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		m := featureGateManifest{annotations: fg.Metadata.Annotations, gates: map[string]bool{}}
		if len(fg.Status.FeatureGates) > 0 {
			for _, g := range fg.Status.FeatureGates[0].Enabled {
				m.gates[g.Name] = true
			}
			for _, g := range fg.Status.FeatureGates[0].Disabled {
				m.gates[g.Name] = false
			}
		}
		out = append(out, m)
		return nil
	})
	if err != nil {
		featureGateDirs.Store(dir, err)
		return nil, err
	}
	featureGateDirs.Store(dir, out)
	return out, nil
}

// payloadGatesAllow says whether openshift's generator runs a suite with
// the given gates on a feature-set CRD, by its rules: a CustomNoUpgrade
// CRD has every field (any suite that needs no gate disabled runs on
// it); a CRD of no cluster profile runs every suite; otherwise the gates
// are looked up in the manifest of the CRD's first cluster profile, its
// feature sets (Default for none) and its major versions. A gate the
// manifest does not list is an error, as it is for the generator.
func payloadGatesAllow(c *apiextensionsv1.CustomResourceDefinition, gates []string, dir string) (bool, error) {
	sets := map[string]bool{}
	if fs := c.Annotations["release.openshift.io/feature-set"]; fs != "" {
		for _, s := range strings.Split(fs, ",") {
			sets[s] = true
		}
	}
	if sets["CustomNoUpgrade"] {
		for _, g := range gates {
			if strings.HasPrefix(g, "-") {
				return false, nil
			}
		}
		return true, nil
	}
	var profiles []string
	for k, v := range c.Annotations {
		if strings.HasPrefix(k, "include.release.openshift.io/") && v == "true" {
			profiles = append(profiles, k)
		}
	}
	if len(profiles) == 0 {
		return true, nil
	}
	sort.Strings(profiles)
	if len(sets) == 0 {
		sets["Default"] = true
	}
	versions := majorVersions(c.Annotations)
	manifests, err := readFeatureGates(dir)
	if err != nil {
		return false, err
	}
	var status map[string]bool
	for _, m := range manifests {
		if _, ok := m.annotations[profiles[0]]; !ok || !sets[m.annotations["release.openshift.io/feature-set"]] {
			continue
		}
		if len(versions) > 0 && !intersects(versions, majorVersions(m.annotations)) {
			continue
		}
		status = m.gates
		break
	}
	if status == nil {
		return false, fmt.Errorf("no FeatureGate manifest in %s for cluster profile %s, feature set %s", dir, profiles[0], c.Annotations["release.openshift.io/feature-set"])
	}
	for _, g := range gates {
		name := strings.TrimPrefix(g, "-")
		on, found := status[name]
		if !found {
			return false, fmt.Errorf("feature gate %s is not in the FeatureGate manifests of %s", name, dir)
		}
		if on == strings.HasPrefix(g, "-") {
			return false, nil
		}
	}
	return true, nil
}

// majorVersions reads release.openshift.io/major-version ("4,5,6").
func majorVersions(ann map[string]string) map[uint64]bool {
	out := map[uint64]bool{}
	keys := make([]string, 0, len(ann))
	for k := range ann {
		if strings.HasPrefix(k, "release.openshift.io/major-version") {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return out
	}
	sort.Strings(keys)
	for _, v := range strings.Split(ann[keys[0]], ",") {
		if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil {
			out[n] = true
		}
	}
	return out
}

func intersects(a, b map[uint64]bool) bool {
	for k := range a {
		if b[k] {
			return true
		}
	}
	return false
}
