package helm

import (
	"bytes"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Source is where one document of a helm template stream came from.
type Source struct {
	// Document is the document's index as source.Parse counts documents
	// (and report.Finding.Document has it): empty, comment-only and null
	// documents take none.
	Document int
	// Line is the 1-based line of the stream where the document's text
	// starts, after its "---" separator.
	Line int
	// Path is the template the document was rendered from, as its
	// "# Source: PATH" comment names it, relative to the chart's parent
	// directory ("shop/templates/widget.yaml",
	// "shop/charts/db/templates/secret.yaml", "shop/crds/widget.yaml");
	// empty when the document has no such comment.
	Path string
	// PathLine is the line of that comment; 0 when there is none.
	PathLine int
}

// Sources are the documents of a stream, by Document.
type Sources []Source

// Parse reads the "# Source:" comments helm template writes before each
// document ("---\n# Source: PATH\n" then the document: Helm's action
// package prints every manifest so, hooks and chart CRDs included, and a
// template that renders several documents gives each its own comment).
// It returns one Source per document that source.Parse counts, in the
// same order, so that a finding's Document indexes it. The comment
// counts only in the document's leading comments, before its first
// content line: a "# Source:" further down is the template's own text.
//
// Parse never fails: a stream without comments (a post-renderer's
// output, a file written by hand) yields Sources with empty paths. A
// stream kubectl reads as JSON (a "{" first) has no comments and is not
// cut at "---" lines: it yields no Sources, so no document names a
// template.
func Parse(stream []byte) Sources {
	// The text kubectl and pkg/source read: UTF-16 transcoded, a byte
	// order mark dropped.
	stream = source.KubectlText(stream)
	if utilyaml.IsJSONBuffer(stream[:min(len(stream), jsonPeek)]) {
		return nil
	}
	var out Sources
	for _, c := range split(stream) {
		if !counts(c.text) {
			continue
		}
		s := Source{Document: len(out), Line: c.line}
		lines := strings.Split(string(c.text), "\n")
		if len(lines) > 0 && strings.HasPrefix(lines[0], "---") {
			lines, s.Line = lines[1:], s.Line+1
		}
		for i, l := range lines {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			if !strings.HasPrefix(l, "#") {
				break
			}
			if p, ok := strings.CutPrefix(l, "# Source:"); ok && strings.TrimSpace(p) != "" {
				s.Path, s.PathLine = strings.TrimSpace(p), s.Line+i
				break
			}
		}
		out = append(out, s)
	}
	return out
}

// jsonPeek is how far kubectl's reader looks for the "{" of a JSON
// stream (k8s.io/apimachinery/pkg/util/yaml.NewYAMLOrJSONDecoder's
// buffer).
const jsonPeek = 4096

// Path is the template document doc came from; "" when unknown.
func (s Sources) Path(doc int) string {
	if doc < 0 || doc >= len(s) {
		return ""
	}
	return s[doc].Path
}

// Found says whether any document names its template: whether the
// stream looks like helm template's.
func (s Sources) Found() bool {
	for _, x := range s {
		if x.Path != "" {
			return true
		}
	}
	return false
}

// chunk is one document's text as kubectl's YAMLReader returns it, and
// the 1-based line of the stream where it starts.
type chunk struct {
	text []byte
	line int
}

// split cuts a stream as k8s.io/apimachinery's YAMLReader cuts it for
// kubectl, and as pkg/source does (whose splitter is private): every
// line starting with "---" ends the current document, unless the
// document is still empty, in which case the line starts the next one.
// FuzzParse holds the two to the same cuts.
func split(data []byte) []chunk {
	var out []chunk
	start, line, first := 0, 1, 1
	for off := 0; off < len(data); line++ {
		next := len(data)
		if end := bytes.IndexByte(data[off:], '\n'); end >= 0 {
			next = off + end + 1
		}
		if bytes.HasPrefix(data[off:next], []byte("---")) && off > start {
			out = append(out, chunk{source.KubectlLines(data[start:off]), first})
			start, first = next, line+1
		}
		off = next
	}
	if start < len(data) {
		out = append(out, chunk{source.KubectlLines(data[start:]), first})
	}
	return out
}

// counts says whether source.Parse gives the chunk a document index:
// everything but empty, comment-only and null documents (which kubectl
// drops); a document that does not parse counts, as its syntax error
// does.
func counts(text []byte) bool {
	var n yaml.Node
	if err := yaml.Unmarshal(text, &n); err != nil {
		return true
	}
	if n.Kind == 0 || len(n.Content) == 0 {
		return false
	}
	js, err := sigsyaml.YAMLToJSON(text)
	return err != nil || string(js) != "null"
}
