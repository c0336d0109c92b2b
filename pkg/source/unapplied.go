package source

import (
	"bytes"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Why the documents File.Partial and File.Substitutions count are
// skipped, as summaries say it.
const (
	SkipPartialCRD   = "partial CRD"
	SkipSubstitution = "substitution template"
)

// partialCRD reports whether obj, a CustomResourceDefinition, is a
// fragment of one rather than one to create: its spec has neither group
// nor names, which every create needs (the server refuses a CRD without
// them, and nothing defaults them) and no patch or assertion repeats, as
// they find the CRD by metadata.name. Such are a strategic-merge or
// merge patch of a CRD's conversion (kubebuilder's webhook_in_*.yaml,
// prometheus-operator's alertmanager-crd-conversion/patch.json), an
// overlay of a version's schema (openshift/api's
// manual-override-crd-manifests), a test's expected state (chainsaw's
// crd-assert.yaml: a status alone) or a reference to one (crossplane's
// crd-scale.yaml: spec: {}). A CRD that has one of group and names and
// lacks the other is an attempt at a whole CRD, and judged.
func partialCRD(obj map[string]any) bool {
	spec, _ := obj["spec"].(map[string]any)
	_, group := spec["group"]
	_, names := spec["names"]
	return !group && !names
}

// substitutionTemplate reports whether a document is a template that a
// tool substitutes before anything applies it, not a manifest: a
// placeholder stands in its identity (metadata.name, generateName or
// namespace: an envsubst ${VAR}, or a chainsaw binding such as
// ($test.metadata.name), which kubectl apply would send as is and the
// server refuse as a name), or is a whole value, whose type only the
// substitution decides (replicas: ${WORKER_MACHINE_COUNT} is a number
// once clusterctl, envsubst or Flux's post-build substitution has run,
// preLoadImages: ${IMAGES:-[]} a list). A placeholder inside a longer
// text (a script's ${HOME}, an image tag) leaves the value a string
// whatever is substituted, and the document is judged. text is the
// document's text: only one with "${" is walked.
func substitutionTemplate(meta any, root *yaml.Node, text []byte) bool {
	if m, ok := meta.(map[string]any); ok {
		for _, k := range []string{"name", "generateName", "namespace"} {
			if s, ok := m[k].(string); ok && (hasPlaceholder(s) || binding(s)) {
				return true
			}
		}
	}
	if !bytes.Contains(text, []byte("${")) {
		return false
	}
	stack := []*yaml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch n.Kind {
		case yaml.ScalarNode:
			if wholePlaceholder(n.Value) {
				return true
			}
		case yaml.MappingNode, yaml.SequenceNode, yaml.DocumentNode:
			stack = append(stack, n.Content...)
		}
	}
	return false
}

// hasPlaceholder reports whether s holds an envsubst variable reference.
func hasPlaceholder(s string) bool {
	for i := 0; ; i++ {
		j := strings.Index(s[i:], "${")
		if j < 0 {
			return false
		}
		if placeholderAt(s, i+j) {
			return true
		}
		i += j
	}
}

// placeholderAt reports whether s holds an envsubst variable reference
// at i: "${", optional spaces, a name's first letter.
func placeholderAt(s string, i int) bool {
	if i < 0 || !strings.HasPrefix(s[i:], "${") {
		return false
	}
	rest := strings.TrimLeft(s[i+2:], " ")
	return rest != "" && (rest[0] == '_' || rest[0] >= 'A' && rest[0] <= 'Z' || rest[0] >= 'a' && rest[0] <= 'z')
}

// wholePlaceholder reports whether s is one envsubst placeholder and
// nothing else: ${VAR}, ${VAR:-default}, ${ VAR }, defaults nested
// (${A:-${B}}); not ${A}-${B}, whose first placeholder ends before s.
func wholePlaceholder(s string) bool {
	if !placeholderAt(s, 0) || !strings.HasSuffix(s, "}") {
		return false
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '{':
			depth++
			i++
		case s[i] == '}':
			depth--
			if depth == 0 {
				return i == len(s)-1
			}
		}
	}
	return false
}

// binding reports whether s is a chainsaw expression that uses a
// binding: "(" ... ")" around a JMESPath expression with a $name in it,
// as chainsaw's templating evaluates in the files a test applies and
// asserts. No valid name or namespace has parentheses.
func binding(s string) bool {
	return len(s) > 2 && s[0] == '(' && s[len(s)-1] == ')' && strings.Contains(s, "$")
}
