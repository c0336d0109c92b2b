package source

import (
	"bytes"
	"strings"
	"text/template/parse"
)

// SkipTemplate is why the documents File.Templates counts are skipped,
// as summaries say it.
const SkipTemplate = "Go template"

// maxActions bounds the actions isTemplate tries in one document.
const maxActions = 64

// isTemplate reports whether a document's text, which does not parse as
// YAML or JSON, holds a Go template action: a {{ ... }} that
// text/template parses (functions unchecked, as every tool brings its
// own: Helm's files/, clusterloader2's DefaultParam, Hugo's partial), or
// a control action ({{ end }}, {{ else }}) whose block another document
// of the file opens. Such a document is a template to render, not a
// manifest with a syntax error. Each action is tried alone, so that a
// document cut from a template by "---" still tells. Text that only looks
// like one is no action: Argo's {{args.linkerd-enabled}} unquoted is
// neither a Go template nor YAML, a syntax error as kubectl says.
func isTemplate(text []byte) bool {
	for tried := 0; tried < maxActions; tried++ {
		i := bytes.Index(text, []byte("{{"))
		if i < 0 {
			return false
		}
		j := bytes.Index(text[i+2:], []byte("}}"))
		if j < 0 {
			return false
		}
		if isAction(string(text[i+2 : i+2+j])) {
			return true
		}
		text = text[i+2+j+2:]
	}
	return false
}

// isAction reports whether inner, the text between "{{" and "}}", is a
// Go template action.
func isAction(inner string) bool {
	a := strings.TrimPrefix(inner, "-")
	a = strings.TrimSuffix(a, "-")
	a = strings.TrimSpace(a)
	if a == "" || strings.HasPrefix(a, "/*") {
		return strings.HasPrefix(a, "/*")
	}
	word, _, _ := strings.Cut(a, " ")
	text := "{{" + inner + "}}"
	switch word {
	case "end", "else", "break", "continue":
		return true
	case "if", "range", "with", "define", "block":
		text += "{{end}}"
	}
	t := parse.New("t")
	t.Mode = parse.SkipFuncCheck | parse.ParseComments
	_, err := t.Parse(text, "{{", "}}", map[string]*parse.Tree{})
	return err == nil
}
