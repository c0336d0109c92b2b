package kustomize

import (
	"path/filepath"
)

// resourceFields are the refs (kust.refs) that name resources, which
// are whole objects: everything else a kustomization names is not.
var resourceFields = map[string]bool{"resource": true, "component": true, "crd": true}

// NotResources reads the kustomization (or Component) in dir, if any, and
// lists the local files it names that are not resources: partial objects
// and configuration kustomize merges into, or generates, others. That is
// patches in every form (patches, patchesStrategicMerge,
// patchesJson6902), replacements, configurations, generators,
// transformers and validators and the files their configurations name
// (a PatchTransformer's path), configMapGenerator and secretGenerator
// files and env files, and the openapi schema. Paths are dir joined with
// the entry, cleaned. Inline patches and remote references are left out,
// and so is a kustomization kustomize could not read. file is the
// kustomization's path ("" when dir has none).
//
// It reads the file as kustomize does (types.Kustomization, with
// FixKustomization's spellings), with the walk's own list of what a
// kustomization names, so that a run over a repository skips exactly
// what -k would use as a patch.
func NotResources(dir string) (file string, paths []string) {
	file, data := readKustomization(dir)
	if file == "" {
		return "", nil
	}
	k, ok := parseKust(dir, file, data)
	if !ok {
		return file, nil
	}
	for _, r := range append(k.refs(), k.pluginRefs()...) {
		if resourceFields[r.field] || r.value == "" || isRemote(r.value) {
			continue
		}
		p := r.value
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, filepath.FromSlash(p))
		}
		paths = append(paths, filepath.Clean(p))
	}
	return file, paths
}

// FileNames are the names a kustomization's file may have, in the order
// kustomize looks for them.
func FileNames() []string { return kustomizationNames() }
