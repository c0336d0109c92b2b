// Package source reads manifests the way kubectl does, but keeps where
// everything came from, so that a problem the server would report at a
// field path can be reported at a file, line and column.
//
// A DocReader cuts a stream into documents one at a time, exactly as
// kubectl's YAMLOrJSONDecoder (k8s.io/apimachinery/pkg/util/yaml) does,
// so document indexes are kubectl's; Parse and Read are DocReaders read
// to the end. A stream is JSON when it starts with "{" (after white
// space, within its first 4096 bytes): its values are decoded by
// encoding/json one after the other, whatever separates them ({...}{...}
// is two documents); on a value that does not decode, kubectl reads the
// rest of the stream as YAML from there (a single object with a trailing
// comma is thus read, as YAML), unless two values have decoded already,
// in which case the error ends the stream. Errors are kubectl's words
// ("invalid character '}' looking for beginning of object key string",
// "json: offset 81: ..."), positioned from the decoder's byte offset. A
// YAML stream is cut at "---" lines (CRLF and a missing final newline
// included): empty, comment-only and null documents take no index.
//
// Each YAML document is parsed twice: by go.yaml.in/yaml/v3 into a node
// tree whose positions are file positions, and by sigs.k8s.io/yaml into
// the JSON kubectl would send, with YAML 1.1 resolution ("on" and "yes"
// are true, "0x1F" is 31) and the last of repeated keys winning. A JSON
// document gets an equivalent tree built from its bytes. kind: List
// documents are expanded into their items, each keeping the list's Index.
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
// (document-too-large, skipped unread). Documents without a string
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
// Skipped. Parse stays kubectl's reading.
//
// Memory follows the largest document: a DocReader holds one document's
// text at a time, and no walk of the loader recurses, so neither a huge
// stream nor deep nesting can exhaust memory or the stack.
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
// Not mirrored: kubectl stops at the first document it cannot decode;
// the loader reports it and reads on, to the next "---" (but in a JSON
// stream whose first two values decoded, where nothing tells where the
// next value starts). Text after a YAML document's root ("{a: 1} junk"),
// which kubectl's parser never looks at, is a syntax error when
// go.yaml.in/yaml/v3 scans far enough to trip on it. kubectl reads files
// through a byte-order-mark-aware UTF-8 decoder (cli-runtime's
// FileVisitor): it transcodes UTF-16 and turns bytes that are not UTF-8
// into U+FFFD, where the loader reads the bytes as they are (a stray
// Latin-1 byte is a syntax error here, a replacement character there).
// The alias budget and the size bound are the loader's own: kubectl would
// expand and read such documents, given the memory.
//
// See the example of NewDocReader.
package source
