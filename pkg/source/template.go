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
		j := actionEnd(text[i+2:])
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

// actionEnd returns the index in s, the text after an action's "{{", of
// the "}}" that closes the action, or -1. As text/template's lexer does,
// it skips the quoted strings, raw strings and character constants of
// the action, so that the escape of literal braces for another tool's
// templating, {{ "{{randomValue}}" }} (WireMock's, or Knative's in
// KServe's Helm files/), ends at the last "}}" and not inside the
// string; and a comment ends at "*/" followed by "}}", whatever quotes
// it holds. A quote left open on its line is no Go string: the first
// "}}" ends the action, and the action then tells.
func actionEnd(s []byte) int {
	first := bytes.Index(s, []byte("}}"))
	lead := bytes.TrimLeft(bytes.TrimPrefix(s, []byte("-")), " \t\r\n")
	if bytes.HasPrefix(lead, []byte("/*")) {
		start := len(s) - len(lead)
		k := bytes.Index(s[start:], []byte("*/"))
		if k < 0 {
			return first
		}
		if j := bytes.Index(s[start+k:], []byte("}}")); j >= 0 {
			return start + k + j
		}
		return -1
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'', '`':
			end := closeQuote(s[i+1:], c)
			if end < 0 {
				return first
			}
			i += 1 + end
		case '}':
			if i+1 < len(s) && s[i+1] == '}' {
				return i
			}
		}
	}
	return -1
}

// closeQuote returns the index in s of the quote q that closes a string
// opened just before s, or -1: a raw string (`) ends at the next
// backquote, a quoted string or character constant at the next
// unescaped q on its line.
func closeQuote(s []byte, q byte) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == q:
			return i
		case q == '`':
		case s[i] == '\\':
			i++
		case s[i] == '\n':
			return -1
		}
	}
	return -1
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
