package testutil

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// WidgetCRD is a sketch of a namespaced CRD, widgets.example.com (kind
// Widget), with the given versions, each with the schema {type: object}
// for the test to fill in.
func WidgetCRD(versions ...apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{}
	c.Name = "widgets.example.com"
	c.Spec.Group = "example.com"
	c.Spec.Scope = apiextensionsv1.NamespaceScoped
	c.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"}
	for i := range versions {
		versions[i].Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}
	}
	c.Spec.Versions = versions
	return c
}
