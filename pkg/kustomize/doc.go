// Package kustomize renders a kustomization the way kubectl apply -k
// does, in-process and offline, and traces every rendered object — and
// every field of it — back to the file that wrote it, so that a finding
// about the rendered stream can be reported where the user can fix it.
//
// Render runs sigs.k8s.io/kustomize/api at the version kubectl v1.37
// (k8s.io/cli-runtime v0.37.2) uses, with kubectl's options: files load
// only from under the kustomization's root, plugins and Helm charts are
// off, resources come out in the legacy order. Its YAML is byte for byte
// what kubectl's build renders (a test keeps it so against krusty). It
// fetches nothing: every local kustomization is read first, and a remote
// base or resource (a git URL, an http(s) file) is an error naming it.
//
// Origins come from kustomize itself. Render turns on its origin
// annotations (config.kubernetes.io/origin), which it adds only when a
// kustomization asks for them and which no krusty option turns on, by
// handing kustomize the top kustomization with originAnnotations added to
// buildMetadata; it reads each object's origin and removes the
// annotations again, unless the kustomization asked for them.
//
// What is exact and what is not:
//
//   - The origin file of an object read from a file is kustomize's own
//     record. The object's place in that file is found by kind and name:
//     kustomize removes its record of the names it changed, so a renamed
//     object (namePrefix, nameSuffix) is matched with the longest name its
//     rendered name contains; a file of one object needs no matching.
//   - Trace puts a field where it is written with the rendered value: the
//     object's file; else the last patch that writes that value there
//     (strategic merge and JSON 6902 patches, files or inline; a list item
//     is matched by its name as strategic merge matches it, else by index;
//     label and annotation selectors of a patch's target are not judged,
//     the value must match); else a kustomization's namespace, labels,
//     commonLabels or commonAnnotations. Those are exact. A value another
//     transformer changed (names, images, replicas, replacements, vars)
//     lands on the field in the object's file, and a field written nowhere
//     on its nearest enclosing field there, not exact. Inline patches map
//     exactly from literal blocks (patch: |) only.
//   - A generated ConfigMap or Secret traces to its generator's entry; a
//     data key to its literal (exact when the value is the literal's) or
//     files entry.
//   - kustomize writes warnings about deprecated fields to the process's
//     standard error, as kubectl does; they are not findings.
//
// A run over a whole repository does not render kustomizations, but must
// not read as manifests the files they merge into others: NotResources
// lists what a kustomization names that is no resource (patches in every
// form, replacements, configurations, generator and transformer inputs),
// read as the walk reads a kustomization (one parsing, parseKust), for
// pkg/input to skip and `config init` to exclude.
//
// Left to others: judging the objects (the stream is a source.File like
// any other input) and printing findings. Map rewrites a report.Finding on
// the stream to its origin.
//
// Example:
//
//	r, err := kustomize.Render("overlays/dev") // a *source.InputError: exit 2
//	...
//	findings := lint(r.Stream)                 // File: "kustomize build overlays/dev"
//	for i, f := range findings {
//		findings[i] = r.Map(f)                 // File: "overlays/dev/color.yaml", Line: 7, ...
//	}
package kustomize
