package source

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Segment is one step of a field path: a name (".name") or a bracket
// ("[x]", a sequence index or a mapping key).
type Segment struct {
	Name    string
	Bracket bool
}

// The one path notation of every finding's field (and of the paths its
// message quotes), written down in docs/rules.md:
//
//	path    = [ first { step } ]
//	first   = name | bracket
//	step    = "." name | bracket
//	bracket = "[" name "]" | "[" quoted "]"
//	name    = one or more characters, none of . / [ ] " ' ` ? \
//	          white space or control characters (PlainName)
//	quoted  = a JSON string (RFC 8259, escaped as encoding/json does)
//
// Names are joined by ".", list indexes are "[N]", and a mapping key is
// written as the server's field.Path writes one, "[key]", when it is a
// plain name; a key or name that is not ("edge.harbor.dev/canary", "",
// "a b") is quoted: ["edge.harbor.dev/canary"]. The notation says which
// key a segment is, never whether it indexes a list or keys a map: the
// document's node tree says that.

// PlainName reports whether s can be written bare in a path: it is not
// empty, is valid UTF-8, and holds none of the characters that separate,
// open or quote segments (. / [ ] " ' ` ? \), white space, or characters
// that do not print.
func PlainName(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch r {
		case '.', '/', '[', ']', '"', '\'', '`', '?', '\\':
			return false
		}
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// JoinPath writes segments in the one notation: plain names after "."
// (or first), brackets as "[name]", and every name that is not plain as
// a quoted bracket, ["name"]. ParseField reads it back.
func JoinPath(segs []Segment) string {
	var b strings.Builder
	for i, s := range segs {
		switch {
		case !PlainName(s.Name):
			b.WriteString("[" + quoteName(s.Name) + "]")
		case s.Bracket:
			b.WriteString("[" + s.Name + "]")
		case i > 0:
			b.WriteString("." + s.Name)
		default:
			b.WriteString(s.Name)
		}
	}
	return b.String()
}

// quoteName is s as a JSON string, without encoding/json's HTML escapes
// (a key "a<b" reads as such). A name that is not valid UTF-8 cannot be
// written in JSON; its invalid bytes become U+FFFD, as encoding/json
// writes them (kubectl sends none: its JSON is valid UTF-8).
func quoteName(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// ParseField parses a path in the one notation (see JoinPath) strictly:
// an error says what is wrong and where. A path is canonical when
// JoinPath gives it back from its segments: a quoted name that is plain
// (["spec"]) parses, but is written [spec].
func ParseField(p string) ([]Segment, error) {
	var segs []Segment
	for i := 0; i < len(p); {
		switch {
		case p[i] == '[':
			seg, next, err := parseBracket(p, i)
			if err != nil {
				return nil, err
			}
			segs = append(segs, seg)
			i = next
		case p[i] == '.' && i > 0:
			j := nameEnd(p, i+1)
			if name := p[i+1 : j]; !PlainName(name) {
				return nil, fmt.Errorf("offset %d: %q is not a plain name: quote it as [%s]", i+1, name, quoteName(name))
			}
			segs = append(segs, Segment{Name: p[i+1 : j]})
			i = j
		case i == 0:
			j := nameEnd(p, 0)
			if name := p[:j]; !PlainName(name) {
				return nil, fmt.Errorf("offset 0: %q is not a plain name: quote it as [%s]", name, quoteName(name))
			}
			segs = append(segs, Segment{Name: p[:j]})
			i = j
		default:
			return nil, fmt.Errorf("offset %d: want \".\" or \"[\" after a segment, got %q", i, p[i])
		}
	}
	return segs, nil
}

// nameEnd is where the name starting at i ends: at the next "." or "[".
func nameEnd(p string, i int) int {
	for i < len(p) && p[i] != '.' && p[i] != '[' {
		i++
	}
	return i
}

// parseBracket reads the bracket at p[i] ("[name]" or "[\"quoted\"]"),
// returning its segment and the offset after it.
func parseBracket(p string, i int) (Segment, int, error) {
	if i+1 < len(p) && p[i+1] == '"' {
		end, ok := quotedEnd(p, i+1)
		if !ok {
			return Segment{}, 0, fmt.Errorf("offset %d: unterminated quoted name", i+1)
		}
		lit := p[i+1 : end]
		var name string
		if !utf8.ValidString(lit) || json.Unmarshal([]byte(lit), &name) != nil {
			return Segment{}, 0, fmt.Errorf("offset %d: %s is not a JSON string", i+1, lit)
		}
		if end >= len(p) || p[end] != ']' {
			return Segment{}, 0, fmt.Errorf("offset %d: want \"]\" after the quoted name", end)
		}
		return Segment{Name: name, Bracket: true}, end + 1, nil
	}
	j := strings.IndexByte(p[i+1:], ']')
	if j < 0 {
		return Segment{}, 0, fmt.Errorf("offset %d: unterminated bracket", i)
	}
	name := p[i+1 : i+1+j]
	if !PlainName(name) {
		return Segment{}, 0, fmt.Errorf("offset %d: %q is not a plain name: quote it as [%s]", i+1, name, quoteName(name))
	}
	return Segment{Name: name, Bracket: true}, i + j + 2, nil
}

// quotedEnd is the offset just after the JSON string that starts with
// the quote at p[i].
func quotedEnd(p string, i int) (int, bool) {
	for j := i + 1; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// ParsePath splits a path in any of the spellings the server's libraries
// use into segments, leniently: the one notation (quoted names
// included), field.Path's raw "[key]" (brackets nest, for keys such as
// "[a[0]]"; an unbalanced bracket runs to the end of the path) and the
// dotted paths of the strict decoder and the pruner. "<nil>" and "" are
// the root; empty names are dropped. A dotted key ("example.com/x") is
// split at its dots: only the document's tree tells which dots are
// separators (Document.Resolve).
func ParsePath(p string) []Segment {
	if p == "<nil>" || p == "" {
		return nil
	}
	var segs []Segment
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			i++
		case '[':
			if i+1 < len(p) && p[i+1] == '"' {
				if seg, next, err := parseBracket(p, i); err == nil {
					segs = append(segs, seg)
					i = next
					continue
				}
			}
			depth, j := 0, i
			for ; j < len(p); j++ {
				if p[j] == '[' {
					depth++
				} else if p[j] == ']' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			segs = append(segs, Segment{Name: p[i+1 : min(j, len(p))], Bracket: true})
			i = j + 1
		default:
			j := nameEnd(p, i)
			segs = append(segs, Segment{Name: p[i:j]})
			i = j
		}
	}
	return segs
}
