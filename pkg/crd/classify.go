package crd

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// builtin holds the group/kinds of client-go's scheme: objects the API
// server knows without a CRD, which are not ours to judge.
var builtin = func() map[schema.GroupKind]bool {
	m := map[schema.GroupKind]bool{}
	for gvk := range clientgoscheme.Scheme.AllKnownTypes() {
		m[gvk.GroupKind()] = true
	}
	return m
}()

// Group is the API group of CustomResourceDefinitions.
const Group = "apiextensions.k8s.io"

// IsBuiltin reports whether a document is of a kind built into the server.
func IsBuiltin(d *source.Document) bool {
	g, _ := d.GroupVersion()
	return builtin[schema.GroupKind{Group: g, Kind: d.Object.Kind}]
}

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
// CRD would define: not a CRD, not built in, not a tool's configuration.
func IsCustomResource(d *source.Document) bool {
	return !IsCRD(d) && !IsBuiltin(d) && !IsConfig(d)
}

// IsConfig reports whether a document is a tool's configuration in the
// shape of an object (kustomize's Kustomization and Component), which no
// API server serves.
func IsConfig(d *source.Document) bool {
	g, _ := d.GroupVersion()
	return g == "kustomize.config.k8s.io"
}
