// Package pathtest compares field paths across spellings, for tests that
// hold crdlint's findings against the server's own errors: crdlint says
// every path in one notation (source.JoinPath: keys that are not plain
// names quoted, ["example.com/x"]), the server's libraries in theirs
// (field.Path's raw [example.com/x], the dotted paths of kube-openapi and
// the pruner, example.com/x joined with dots like any name). Loose writes
// both the same way, so that a comparison fails on a different path but
// not on the notation (docs/rules.md, "Field paths"): the tests of
// the notation itself are pkg/source's and the report contract's.
package pathtest

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Loose writes a path in any spelling as its names and keys joined by
// dots, the brackets in them dots too, so that metadata.labels["a.b/c"],
// metadata.labels[a.b/c] and metadata.labels.a.b/c are all
// metadata.labels.a.b/c, and status["(c[?x])"] and the pruner's
// status.(c[?x]) are both status.(c.?x.). What it loses (which dots and
// brackets are in a key) is what the server's spellings do not say.
func Loose(p string) string {
	var names []string
	for _, s := range source.ParsePath(p) {
		names = append(names, s.Name)
	}
	flat := strings.NewReplacer("[", ".", "]", ".").Replace(strings.Join(names, "."))
	for strings.Contains(flat, "..") {
		flat = strings.ReplaceAll(flat, "..", ".")
	}
	return strings.Trim(flat, ".")
}

// Pair is "field: message" with the field and the paths the message
// quotes written Loose.
func Pair(field, msg string) string {
	return Loose(field) + ": " + Message(field, msg)
}

// quotedPathRE and barePathRE find the paths messages quote: unknown and
// duplicate fields, junctors ("spec.a" must validate ...), kube-openapi's
// "spec.a in body ...", a format's "... in spec.a", a warning's
// "spec.a: ...".
var (
	quotedPathRE = regexp.MustCompile(`((?:unknown|duplicate) field |^Invalid value: "": )("(?:[^"\\]|\\.)*")`)
	barePathRE   = regexp.MustCompile(`(^|: )(` + pathToken + `)( in body)|( in )(` + pathToken + `)$`)
)

// pathToken is a path in a text: no spaces but within quoted keys.
const pathToken = `(?:[^ "]|"(?:[^"\\]|\\.)*")+`

// Message is msg with the paths it quotes written Loose; field, the
// path of the error, is rewritten where it starts the message.
func Message(field, msg string) string {
	if field != "" && strings.HasPrefix(msg, field+": ") {
		msg = Loose(field) + msg[len(field):]
	}
	msg = quotedPathRE.ReplaceAllStringFunc(msg, func(m string) string {
		sm := quotedPathRE.FindStringSubmatch(m)
		p, err := strconv.Unquote(sm[2])
		if err != nil {
			return m
		}
		return sm[1] + `"` + Loose(p) + `"`
	})
	return barePathRE.ReplaceAllStringFunc(msg, func(m string) string {
		sm := barePathRE.FindStringSubmatch(m)
		if sm[2] != "" {
			return sm[1] + Loose(sm[2]) + sm[3]
		}
		if !strings.ContainsAny(sm[5], ".[") {
			return m
		}
		return sm[4] + Loose(sm[5])
	})
}

// Paths are the paths msg quotes, in the forms Message knows, unquoted:
// field where it starts the message, unknown and duplicate fields,
// junctors, kube-openapi's "... in body", a format's "... in spec.a".
func Paths(field, msg string) []string {
	var out []string
	if field != "" && strings.HasPrefix(msg, field+": ") {
		out = append(out, field)
	}
	for _, sm := range quotedPathRE.FindAllStringSubmatch(msg, -1) {
		if p, err := strconv.Unquote(sm[2]); err == nil {
			out = append(out, p)
		}
	}
	for _, sm := range barePathRE.FindAllStringSubmatch(msg, -1) {
		switch {
		case sm[2] != "":
			out = append(out, sm[2])
		case strings.ContainsAny(sm[5], ".["):
			out = append(out, sm[5])
		}
	}
	return out
}
