// Package source reads manifests the way kubectl does, but keeps where
// everything came from, so that a problem the server would report at a
// field path can be reported at a file, line and column.
//
// A DocReader reads the text kubectl reads from a file (its FileVisitor's
// decoder: UTF-16 by its byte order mark, a UTF-8 mark dropped, bytes
// that are not UTF-8 replaced by U+FFFD) and cuts it into documents one at
// a time, exactly as kubectl's YAMLOrJSONDecoder
// (k8s.io/apimachinery/pkg/util/yaml) does, so document indexes are
// kubectl's; Parse and Read are DocReaders read to the end. The tests
// compare the objects and errors with those of kubectl's resource builder
// (k8s.io/cli-runtime) on the corpus, hostile inputs and fuzzed ones
// (kubectl_test.go). A stream is JSON when it starts with "{" (after white
// space, within its first 4096 bytes): its values are decoded by
// encoding/json one after the other, whatever separates them ({...}{...}
// is two documents); on a value that does not decode, kubectl reads the
// rest of the stream as YAML from there (a single object with a trailing
// comma is thus read, as YAML, by kubectl 1.33 and later: a
// json-read-as-yaml warning, as kubectl 1.32 refuses it), unless two
// values have decoded already, in which case the error ends the stream.
// A JSON document's JSON is what kubectl sends: the value as its
// unstructured decoder reads it, encoded again. Errors are kubectl's words
// ("invalid character '}' looking for beginning of object key string",
// "json: offset 81: ..."), positioned from the decoder's byte offset. A
// YAML stream is cut at "---" lines (CRLF and a missing final newline
// included): empty, comment-only and null documents take no index.
//
// Each YAML document is parsed twice: by go.yaml.in/yaml/v3 into a node
// tree whose positions are file positions, and by sigs.k8s.io/yaml into
// the JSON kubectl would send, with YAML 1.1 resolution ("on" and "yes"
// are true, "0x1F" is 31) and the last of repeated keys winning. A JSON
// document gets an equivalent tree built from its bytes. An object is one
// with a string apiVersion and kind, under those exact keys. An object
// with an items field is a list to kubectl whatever its kind (it needs no
// apiVersion), expanded
// into its items as kubectl's builder flattens it (its unstructured
// decoder and FlattenListVisitor decide), each keeping the list's Index;
// what kubectl refuses of a list is a list-invalid finding.
//
// Parse never fails. What is wrong with the text itself is a
// report.Finding at its position: syntax errors and invalid "---"
// separators (yaml-syntax, a hint added when a tab is the cause), repeated
// keys at the repetition (duplicate-field), keys that YAML 1.1 turns into
// booleans (yaml11-key), documents that are lists or scalars
// (document-not-object), nesting deeper than the JSON decoders' 10,000
// levels (yaml-syntax, kubectl's error), aliases whose expansion would go
// over MaxAliasNodes or MaxAliasBytes (yaml-alias-budget, decided on the
// unexpanded tree) and documents over DocReader.MaxDocumentSize
// (document-too-large, skipped unread). Objects whose request body, as
// kubectl sends it, is over what the server reads (3 MiB,
// object-over-request-limit) or what etcd stores by default (1.5 MiB,
// object-over-etcd-limit) are findings too. Documents without a string
// apiVersion and kind are counted in Skipped, not returned; repeated keys
// and YAML 1.1 keys are reported only in documents that are objects, as
// kubectl sends nothing else. A document that does not parse and whose
// every {{ ... }} is a Go template action is counted in Templates, not
// reported: a template to render first.
//
// ParseInput reads a file a command was given, which may be no manifest
// at all: a text that names no kind at its top level (HasKind: Hugo
// data, translations, JSON 6902 patches, KEP metadata) is read with
// DocReader.NoKind, its lists, scalars and syntax errors counted in
// Skipped. It also counts, rather than returns, the objects not meant to
// be applied as written: CRDs that are fragments of one (Partial:
// patches, overlays, a test's expected state) and templates whose
// placeholders a tool substitutes first (Substitutions: ${VAR} in a
// name or as a whole value, chainsaw's bindings in a name). Parse stays
// kubectl's reading.
//
// Memory follows the largest document: a DocReader holds one document's
// text at a time, and no walk of the loader recurses, so neither a huge
// stream nor deep nesting can exhaust memory or the stack.
//
// Document.Resolve (and Locate, its position) maps a field path to the
// key or item it names, following anchors, aliases and merge keys with
// sigs.k8s.io/yaml's precedence; for a field the document lacks it
// returns the nearest ancestor that exists and exact=false, so that
// "missing required field" lands on the object that misses it. It reads
// the one notation of findings (JoinPath, ParseField: keys that are not
// plain names quoted, metadata.labels["a.b/c"]) and every spelling of
// the server's libraries, whose keys are raw (field.Path's [a.b/c], the
// pruner's and kube-openapi's a.b/c joined with dots like names): the
// document's keys decide which dots and brackets belong to a key, and
// Resolved.Field writes the path back in the one notation.
//
// Left to others: what the documents mean (pkg/crd decides what is a CRD
// or a custom resource, and pkg/lint asks the server's code about them),
// and output (the report package). Expand and Read turn command-line paths
// into files and errors that make the command exit 2 (*InputError).
//
// Not mirrored (docs/rules.md, "How reading differs from kubectl's"):
// kubectl stops at the first document it cannot decode; the loader
// reports it and reads on, to the next "---" (but in a JSON stream whose
// first two values decoded, where nothing tells where the next value
// starts). Text after a YAML document's root ("{a: 1} junk"), which
// kubectl's parser never looks at, is a syntax error when
// go.yaml.in/yaml/v3 scans far enough to trip on it. The alias budget and
// the size bound are the loader's own: kubectl would expand and read such
// documents, given the memory.
//
// Reading is linear in the size of a document (BenchmarkParseLargeDocument),
// and so is locating fields in it (BenchmarkLocateLargeMapping).
//
// See the example of NewDocReader.
package source
