package crd

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Group is the API group of CustomResourceDefinitions.
const Group = "apiextensions.k8s.io"

// DefaultNamespace is where kubectl sends a namespaced object that names
// none (with no namespace set in the kubeconfig context).
const DefaultNamespace = "default"

// Class is what a document is to the API server.
type Class int

const (
	// ClassCustomResource: an object of a kind a CRD would define.
	ClassCustomResource Class = iota
	// ClassCRD: a CustomResourceDefinition.
	ClassCRD
	// ClassBuiltin: a kind built into the server (kinds.go); not ours to
	// judge.
	ClassBuiltin
	// ClassConfig: a tool's configuration in the shape of an object, which
	// no API server serves.
	ClassConfig
)

// Why documents of a class are skipped, as summaries count them.
const (
	SkipBuiltin = "built-in kind"
	SkipConfig  = "tool configuration"
)

// Skip is why a document of class c is skipped, or "" for the classes
// that are judged.
func (c Class) Skip() string {
	switch c {
	case ClassBuiltin:
		return SkipBuiltin
	case ClassConfig:
		return SkipConfig
	}
	return ""
}

// Classify says what a document is; extra are configuration kinds beyond
// the well-known ones (nil: none). A CRD is a ClassCRD before anything
// else, a built-in kind is built in even when extra names it.
func Classify(d *source.Document, extra *ConfigKinds) Class {
	g, _ := d.GroupVersion()
	gk := schema.GroupKind{Group: g, Kind: d.Object.Kind}
	switch {
	case g == Group && gk.Kind == "CustomResourceDefinition":
		return ClassCRD
	case BuiltinGroupKind(gk):
		return ClassBuiltin
	case ConfigGroupKind(gk) || extra.Has(gk), unservable(d, g):
		return ClassConfig
	}
	return ClassCustomResource
}

// unservable reports whether a document is data in an object's shape that
// no cluster could serve: its API group has no dot, so no CRD can define
// it (the server refuses a CRD whose group has none), and is no built-in
// group, and the document has no metadata, which every object sent to a
// server has. Such is istio's release notes (apiVersion:
// release-notes/v2, kind: feature, 1,834 files), which a tool reads and
// nobody applies. An object with metadata whose group is misspelt
// (app/v1) is still judged: kubectl refuses it.
func unservable(d *source.Document, group string) bool {
	if group == "" || strings.Contains(group, ".") || kinds.builtinGroups[group] || d.Root == nil {
		return false
	}
	for i := 0; i+1 < len(d.Root.Content); i += 2 {
		if d.Root.Content[i].Value == "metadata" {
			return false
		}
	}
	return true
}

// IsBuiltin reports whether a document is of a kind built into the server.
func IsBuiltin(d *source.Document) bool { return Classify(d, nil) == ClassBuiltin }

// IsCRD reports whether a document is a CustomResourceDefinition of any
// apiextensions version.
func IsCRD(d *source.Document) bool {
	g, _ := d.GroupVersion()
	return g == Group && d.Object.Kind == "CustomResourceDefinition"
}

// IsV1CRD reports whether a document is an apiextensions.k8s.io/v1
// CustomResourceDefinition, the only version servers still serve.
func IsV1CRD(d *source.Document) bool {
	_, v := d.GroupVersion()
	return IsCRD(d) && v == "v1"
}

// GVK is the document's group, version and kind.
func GVK(d *source.Document) schema.GroupVersionKind {
	g, v := d.GroupVersion()
	return schema.GroupVersionKind{Group: g, Version: v, Kind: d.Object.Kind}
}

// IsCustomResource reports whether a document is an object of a kind a
// CRD would define: not a CRD, not built in, not a well-known tool's
// configuration.
func IsCustomResource(d *source.Document) bool { return Classify(d, nil) == ClassCustomResource }

// IsConfig reports whether a document is a well-known tool's
// configuration in the shape of an object (kustomize's Kustomization, an
// audit policy, a kind cluster, ...), which no API server serves.
func IsConfig(d *source.Document) bool { return Classify(d, nil) == ClassConfig }
