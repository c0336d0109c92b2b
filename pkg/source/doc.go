// Package source reads manifests the way kubectl does, but keeps where
// everything came from, so that a problem the server would report at a
// field path can be reported at a file, line and column.
//
// A file is cut into documents exactly as k8s.io/apimachinery's
// YAMLReader cuts it for kubectl ("---" lines, CRLF and a missing final
// newline included), so document indexes are kubectl's: empty,
// comment-only and null documents take none. Each document is parsed
// twice: by go.yaml.in/yaml/v3 into a node tree whose positions are file
// positions, and by sigs.k8s.io/yaml into the JSON kubectl would send,
// with YAML 1.1 resolution ("on" and "yes" are true, "0x1F" is 31) and
// the last of repeated keys winning. kind: List documents are expanded
// into their items, each keeping the list's Index.
//
// Parse never fails. What is wrong with the text itself is a
// report.Finding at its position: syntax errors and invalid "---"
// separators (yaml-syntax), repeated keys at the repetition
// (duplicate-field), and documents that are lists or scalars
// (document-not-object). Documents without a string apiVersion and kind
// are counted in Skipped, not returned.
//
// Document.Locate maps a field path in the server's notation, or the
// strict decoder's dotted one, to the key or item it names, following
// anchors, aliases and merge keys with sigs.k8s.io/yaml's precedence; for
// a field the document lacks it returns the nearest ancestor that exists
// and exact=false, so that "missing required field" lands on the object
// that misses it.
//
// Left to others: what the documents mean (the lint package decides what
// is a CRD or a custom resource and asks the server's code about it), and
// output (the report package). Expand and Read turn command-line paths
// into files and errors that make the command exit 2 (*InputError).
//
// Not mirrored: a file of several JSON objects ({...}{...}), which
// kubectl reads with encoding/json, yields only its first object here;
// and text after a document's root ("{a: 1} junk"), which kubectl's
// parser never looks at, is a syntax error when go.yaml.in/yaml/v3 scans
// far enough to trip on it.
//
// Example:
//
//	f := source.Parse("crds/widget.yaml", data)
//	for _, x := range f.Findings { // syntax, duplicates, non-objects
//		fmt.Printf("%s:%d:%d: %s\n", x.File, x.Line, x.Column, x.Message)
//	}
//	for _, d := range f.Documents {
//		if d.Object.Kind != "CustomResourceDefinition" {
//			continue
//		}
//		pos, exact := d.Locate("spec.versions[0].schema.openAPIV3Schema.properties[spec].type")
//		fmt.Printf("%s:%d:%d (exact: %v)\n", d.File, pos.Line, pos.Column, exact)
//	}
package source
