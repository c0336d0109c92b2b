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
// YAML or JSON, is a Go template: it holds {{ ... }} actions, and every
// one of them is an action text/template parses (functions unchecked, as
// every tool brings its own: Helm's files/, clusterloader2's
// DefaultParam, Hugo's partial), or a control action ({{ end }},
// {{ else }}) whose block another document of the file opens. Such a
// document is a template to render, not a manifest with a syntax error.
// Each action is tried alone, so that a document cut from a template by
// "---" still tells. Braces that are no action make it a manifest with a
// syntax error, as kubectl says: Argo's {{args.linkerd-enabled}}
// unquoted is neither a Go template nor YAML, even beside a
// {{ args.namespace }} that could be one.
func isTemplate(text []byte) bool {
	actions := 0
	for tried := 0; tried < maxActions; tried++ {
		i := bytes.Index(text, []byte("{{"))
		if i < 0 {
			break
		}
		j := bytes.Index(text[i+2:], []byte("}}"))
		if j < 0 {
			return false // an unclosed {{
		}
		if !isAction(string(text[i+2 : i+2+j])) {
			return false
		}
		actions++
		text = text[i+2+j+2:]
	}
	return actions > 0
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
	// A variable declared by another action ({{$n := 1}} ... {{$n}}) is
	// undefined in an action tried alone.
	return err == nil || strings.Contains(err.Error(), "undefined variable")
}
