package crd

import (
	"bytes"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Hint is what a file's text tells, without parsing it, of the kinds its
// CRDs may define: every value written after a "group" key and after a
// "kind" key, in any style (block, flow, JSON). A CRD defines the group
// and kind its spec.group and spec.names.kind say, so a file that holds
// no such pair of values defines no CRD of that kind, and a catalogue
// need not parse it to answer a lookup of it: with a thousand CRDs given,
// of which the inputs use a hundred, most files are never parsed.
//
// The reading is conservative: where the text could spell a key or a
// value in a way the scan does not follow (escapes, aliases, tags, block
// or multi-line scalars, explicit keys, flow collections or JSON over
// several lines, odd line breaks, very long lines), the hint is Opaque
// and the file may define anything. Extra values (a "kind" in a description, a
// schema property named "group") only make a file parsed when it need
// not be.
type Hint struct {
	// Opaque: the text may define any kind.
	Opaque bool
	// Groups and Kinds count the values written after each key; Nested
	// counts the kind values that may be spec.names.kind: in block style
	// those under a names key (not the top-level "kind:
	// CustomResourceDefinition" of every CRD, nor a schema's kind
	// values), so that two files of one group are not taken for defining
	// the same kind for those.
	Groups, Kinds, Nested map[string]int

	// merges: the text may merge or alias mappings (<<, *name), which can
	// put a names mapping's keys anywhere: every kind value may be
	// spec.names.kind.
	merges bool
}

// May reports whether the file may define a CRD of gk: false only when
// it certainly does not.
func (h *Hint) May(gk schema.GroupKind) bool {
	if h == nil || h.Opaque || gk.Kind == "" {
		return true
	}
	// A CRD without spec.group (which the server rejects, but which
	// still answers its kind's lookups) writes no group value.
	return (gk.Group == "" || h.Groups[gk.Group] > 0) && h.Kinds[gk.Kind] > 0
}

// selfDuplicate reports whether the file may define one kind twice:
// that needs its group and its (nested) kind written twice each.
func (h *Hint) selfDuplicate() bool {
	if h == nil || h.Opaque || h.mayLackNames() {
		return true
	}
	return twice(h.Groups) && twice(h.Nested)
}

// mayLackNames reports whether a CRD of the file may have no group or no
// kind: its kind is then one the values cannot tell (the server rejects
// such a CRD, but it still answers its kind's lookups and duplicates).
func (h *Hint) mayLackNames() bool {
	groups, kinds := 0, 0
	for _, n := range h.Groups {
		groups += n
	}
	for _, n := range h.Nested {
		kinds += n
	}
	crds := h.Kinds["CustomResourceDefinition"] - h.Nested["CustomResourceDefinition"]
	return groups == 0 || kinds == 0 || groups < crds || kinds < crds
}

func twice(m map[string]int) bool {
	for _, n := range m {
		if n > 1 {
			return true
		}
	}
	return false
}

// share reports whether two files may define the same kind.
func (h *Hint) share(o *Hint) bool {
	if h == nil || o == nil || h.Opaque || o.Opaque {
		return true
	}
	return overlap(h.Groups, o.Groups) && overlap(h.Nested, o.Nested)
}

func overlap(a, b map[string]int) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	for k := range a {
		if b[k] > 0 {
			return true
		}
	}
	return false
}

// ScanHint reads a file's text for its Hint.
func ScanHint(data []byte) *Hint {
	h := &Hint{Groups: map[string]int{}, Kinds: map[string]int{}, Nested: map[string]int{}}
	// An escape can spell a letter of a key (\x67 is the g of group), and
	// an escaped line break joins two lines; explicit keys (? key) put a
	// key's value on another line. (Escapes in a value are value's.) A
	// flow collection (or JSON) spanning lines puts keys, colons and
	// values on lines of their own, and line breaks the scan does not
	// split on (CR alone, NEL, LS, PS) or very long lines (minified
	// JSON, whose every key would cost a scan of the line) are not read
	// either: the file is parsed when a lookup comes.
	if keyEscape(data) || bytes.Contains(data, []byte("\\\n")) || bytes.Contains(data, []byte("\\\r")) || explicitKey(data) ||
		oddLines(data) || multiLineFlow(data) {
		return &Hint{Opaque: true}
	}
	h.merges = bytes.Contains(data, []byte("<<")) || anchored(data)
	for _, key := range []string{"group", "kind"} {
		if !scanKey(data, key, h) {
			return &Hint{Opaque: true}
		}
	}
	return h
}

// keyEscape reports whether the text has an escape (\xXX, \uXXXX,
// \UXXXXXXXX) that may spell a letter of "group" or "kind" — which a
// regular expression's \x60 in a schema pattern does not.
func keyEscape(data []byte) bool {
	for i := 0; ; i++ {
		j := bytes.IndexByte(data[i:], '\\')
		if j < 0 || i+j+1 >= len(data) {
			return false
		}
		i += j
		n := 0
		switch data[i+1] {
		case 'x':
			n = 2
		case 'u':
			n = 4
		case 'U':
			n = 8
		case '\\':
			i++ // an escaped backslash escapes nothing after it
			continue
		default:
			continue
		}
		if i+2+n > len(data) {
			return true
		}
		r, err := strconv.ParseUint(string(data[i+2:i+2+n]), 16, 32)
		if err != nil || strings.ContainsRune("groupkindnames", rune(r)) {
			return true
		}
	}
}

// maxLine is the longest line a hint is read from.
const maxLine = 64 << 10

// oddLines reports line breaks other than LF and CRLF, or a line longer
// than maxLine.
func oddLines(data []byte) bool {
	for _, nl := range []string{"\u0085", "\u2028", "\u2029"} {
		if bytes.Contains(data, []byte(nl)) {
			return true
		}
	}
	for rest := data; ; {
		i := bytes.IndexByte(rest, '\r')
		if i < 0 {
			break
		}
		if i+1 == len(rest) || rest[i+1] != '\n' {
			return true
		}
		rest = rest[i+1:]
	}
	for rest := data; ; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return len(rest) > maxLine
		}
		if i > maxLine {
			return true
		}
		rest = rest[i+1:]
	}
}

// multiLineFlow reports whether a flow collection may span lines: a
// line break inside brackets. Quoted scalars are skipped (they may span
// lines and hold brackets, as a description quoting JSON does) and so are
// comments; a quote or a bracket opens a scalar or a collection only
// where a token may start, so that an apostrophe or a bracket in plain
// text does not. A line of plain text starting with one still counts: a
// description quoting JSON makes the file opaque, which costs time, never
// an answer. A quote left open at the end means the reading went wrong:
// opaque too.
func multiLineFlow(data []byte) bool {
	depth := 0
	quote := byte(0)
	for i := 0; i < len(data); i++ {
		switch quote {
		case '"':
			for i < len(data) && data[i] != '"' && data[i] != '\\' {
				i++
			}
			if i == len(data) {
				return true
			}
			if data[i] == '\\' {
				i++
			} else {
				quote = 0
			}
			continue
		case '\'':
			j := bytes.IndexByte(data[i:], '\'')
			if j < 0 {
				return true
			}
			i += j
			if i+1 < len(data) && data[i+1] == '\'' {
				i++
			} else {
				quote = 0
			}
			continue
		}
		for i < len(data) && !flowByte[data[i]] {
			i++
		}
		if i == len(data) {
			break
		}
		b := data[i]
		switch b {
		case '\n':
			if depth > 0 {
				return true
			}
		case '#':
			if i == 0 || isBlank(data[i-1]) || data[i-1] == '\n' {
				k := bytes.IndexByte(data[i:], '\n')
				if k < 0 {
					return depth > 0
				}
				i += k - 1 // the line break is read next
			}
		case '"', '\'':
			if tokenStart(data, i) {
				quote = b
			}
		case '{', '[':
			// Like a quote, only where a token may start: "protocols
			// ['HTTP'," in a message is text.
			if depth > 0 || tokenStart(data, i) {
				depth++
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return quote != 0 || depth > 0
}

// anchored reports whether the text may alias a node: an anchor (&name)
// where a token may start, and its alias (*name) somewhere. ("- *Note*"
// in a description is text, and so is a CEL rule's line starting "&&".)
func anchored(data []byte) bool {
	anchors := map[string]bool{}
	for i := 0; ; i++ {
		j := bytes.IndexByte(data[i:], '&')
		if j < 0 {
			break
		}
		i += j
		if !tokenStart(data, i) {
			continue
		}
		end := i + 1
		for end < len(data) && !isBlank(data[end]) && bytes.IndexByte([]byte("\r\n,[]{}"), data[end]) < 0 {
			end++
		}
		if end > i+1 {
			anchors[string(data[i+1:end])] = true
		}
	}
	if len(anchors) == 0 {
		return false
	}
	// An alias is *name, the name ending where an anchor's would.
	for i := 0; ; i++ {
		j := bytes.IndexByte(data[i:], '*')
		if j < 0 {
			return false
		}
		i += j
		end := i + 1
		for end < len(data) && !isBlank(data[end]) && bytes.IndexByte([]byte("\r\n,[]{}"), data[end]) < 0 {
			end++
		}
		if anchors[string(data[i+1:end])] {
			return true
		}
		i = end - 1 // a "*" inside the name starts no alias
	}
}

// flowByte are the bytes multiLineFlow stops at outside quotes.
var flowByte = func() (t [256]bool) {
	for _, b := range []byte("\n#\"'{[]}") {
		t[b] = true
	}
	return t
}()

// tokenStart reports whether data[i] may start a token: the first thing
// on its line, or after an indicator (":", "[", "{", ",", "-", "?").
func tokenStart(data []byte, i int) bool {
	j := i - 1
	for j >= 0 && (isBlank(data[j]) || data[j] == '\r') {
		j--
	}
	return j < 0 || bytes.IndexByte([]byte("\n:[{,-?"), data[j]) >= 0
}

// explicitKey reports whether a "?" may be YAML's explicit key indicator
// (followed by a blank or a line break, and preceded only by indentation,
// a sequence entry or flow punctuation) for a key that may be group or
// kind: one the scan would not see as a key. A "? 1 : 0" on a line of a
// quoted CEL rule is not one.
func explicitKey(data []byte) bool {
	for i := 0; i < len(data); i++ {
		q := bytes.IndexByte(data[i:], '?')
		if q < 0 {
			return false
		}
		i += q
		if i+1 < len(data) && !isBlank(data[i+1]) && data[i+1] != '\n' && data[i+1] != '\r' {
			continue
		}
		j := i - 1
		for j >= 0 && isBlank(data[j]) {
			j--
		}
		if j >= 0 && bytes.IndexByte([]byte("\n\r-{[,:"), data[j]) < 0 {
			continue
		}
		k := i + 1
		for k < len(data) && isBlank(data[k]) {
			k++
		}
		if k == len(data) || bytes.IndexByte([]byte("\n\r\"'|>&!*gkn"), data[k]) >= 0 {
			return true
		}
	}
	return false
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' }

// isWord reports whether b can continue a key's name, so that "group" in
// "apiGroup" or "groups" is not the key group.
func isWord(b byte) bool {
	return b == '_' || b == '-' || b == '.' || b == '/' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// scanKey records the value of every occurrence of key written as a
// mapping key; false when one's value cannot be read from the text.
func scanKey(data []byte, key string, h *Hint) bool {
	k := []byte(key)
	for from := 0; ; {
		i := bytes.Index(data[from:], k)
		if i < 0 {
			return true
		}
		i += from
		from = i + len(k)
		start, end := i, i+len(k)
		// An optional quote around the key.
		quoted := false
		if start > 0 && end < len(data) && (data[start-1] == '"' || data[start-1] == '\'') && data[end] == data[start-1] {
			start--
			end++
			quoted = true
		}
		if start > 0 && isWord(data[start-1]) || !quoted && end < len(data) && isWord(data[end]) {
			continue
		}
		j := end
		for j < len(data) && isBlank(data[j]) {
			j++
		}
		if j < len(data) && (data[j] == ',' || data[j] == '}') {
			// A key without a value in a flow mapping ({kind, ...}):
			// null. Not "the kind, then" in prose.
			p := start - 1
			for p >= 0 && (isBlank(data[p]) || data[p] == '\n' || data[p] == '\r') {
				p--
			}
			if p < 0 || data[p] == '{' || data[p] == ',' {
				h.record(key, "", data, start)
			}
			continue
		}
		if j >= len(data) || data[j] != ':' {
			continue
		}
		j++
		// A plain key needs a blank or a line break after its colon
		// (group:x is one scalar); a quoted one may be followed directly
		// by its value, as in JSON.
		if !quoted && j < len(data) && !isBlank(data[j]) && data[j] != '\n' && data[j] != '\r' && data[j] != ',' && data[j] != '}' {
			continue
		}
		v, ok := value(data, j, col(data, start))
		if !ok {
			return false
		}
		for _, s := range v {
			h.record(key, s, data, start)
		}
	}
}

// record counts a value of key, whose key starts at data[start].
func (h *Hint) record(key, v string, data []byte, start int) {
	if key == "group" {
		h.Groups[v]++
		return
	}
	h.Kinds[v]++
	if h.merges || mayBeNamesKind(data, start) {
		h.Nested[v]++
	}
}

// mayBeNamesKind reports whether the kind key at data[start] may be
// spec.names.kind: not when, in block style, the line it belongs under
// (the nearest one above indented less) is not a names key, or it starts
// a line (a document's own kind). A key in a flow collection, or in a
// file that merges mappings (<<), which may carry a names mapping's keys
// elsewhere, may be.
func mayBeNamesKind(data []byte, start int) bool {
	c := col(data, start)
	if c == 0 {
		return false
	}
	ls := start - c
	if t := bytes.TrimLeft(data[ls:start], " \t-"); len(t) > 0 {
		return true // after a quote, "{" or "," on its line: flow, JSON
	}
	// spec.names.kind sits a few lines under its names key: a key whose
	// line above indented less is farther (every sibling of a big
	// mapping's kind property would walk its siblings) may be one.
	for end, lines := ls-1, 0; end > 0 && lines < namesReach; lines++ {
		begin := bytes.LastIndexByte(data[:end], '\n') + 1
		line := bytes.TrimRight(data[begin:end], " \t\r")
		t := bytes.TrimLeft(line, " \t")
		end = begin - 1
		if len(t) == 0 || t[0] == '#' || len(line)-len(t) >= c {
			continue
		}
		t = bytes.TrimLeft(t, "\"'")
		if !bytes.HasPrefix(t, []byte("names")) {
			return false
		}
		t = bytes.TrimLeft(t[len("names"):], "\"' \t")
		return len(t) > 0 && t[0] == ':'
	}
	return true
}

// namesReach is how many lines up mayBeNamesKind looks for a names key.
const namesReach = 256

// col is the offset of i in its line.
func col(data []byte, i int) int {
	return i - (bytes.LastIndexByte(data[:i], '\n') + 1)
}

// value reads the scalar after a key's colon at data[j:] (the key in
// column col): the strings it may be, none for a collection, or false
// when the text does not say.
func value(data []byte, j, col int) ([]string, bool) {
	for j < len(data) && isBlank(data[j]) {
		j++
	}
	// An anchor names the value, which follows it.
	if j < len(data) && data[j] == '&' {
		for j < len(data) && !isBlank(data[j]) && data[j] != '\n' && data[j] != '\r' {
			j++
		}
		for j < len(data) && isBlank(data[j]) {
			j++
		}
	}
	eol := bytes.IndexByte(data[j:], '\n')
	if eol < 0 {
		eol = len(data)
	} else {
		eol += j
	}
	line := bytes.TrimRight(data[j:eol], " \t\r")
	if len(line) == 0 || line[0] == '#' {
		return onNextLine(data, eol, col)
	}
	switch line[0] {
	case '*', '!', '|', '>':
		// An alias, a tag, a block scalar.
		return nil, false
	case '{', '[':
		return nil, true
	case '"':
		end := bytes.IndexByte(line[1:], '"')
		if end < 0 || bytes.IndexByte(line[1:end+1], '\\') >= 0 {
			return nil, false
		}
		return []string{string(line[1 : end+1])}, true
	case '\'':
		var s []byte
		for k := 1; k < len(line); k++ {
			if line[k] != '\'' {
				s = append(s, line[k])
				continue
			}
			if k+1 < len(line) && line[k+1] == '\'' {
				s = append(s, '\'')
				k++
				continue
			}
			return []string{string(s)}, true
		}
		return nil, false // continued on the next line
	}
	if c := bytes.Index(line, []byte(" #")); c >= 0 {
		line = bytes.TrimRight(line[:c], " \t")
	}
	if c := bytes.Index(line, []byte("\t#")); c >= 0 {
		line = bytes.TrimRight(line[:c], " \t")
	}
	out := []string{string(line)}
	// In a flow collection the scalar ends at its punctuation.
	if c := bytes.IndexAny(line, ",}]"); c >= 0 {
		out = append(out, string(bytes.TrimRight(line[:c], " \t")))
	}
	if !continued(data, eol, col) {
		return out, true
	}
	return nil, false
}

// onNextLine reads a value left empty on its key's line: a collection on
// the following lines, or null when the next line is not indented under
// the key; anything else (a scalar below its key) is not followed.
func onNextLine(data []byte, eol, col int) ([]string, bool) {
	indent, text, ok := nextLine(data, eol)
	if indent < 0 {
		return nil, false
	}
	if !ok {
		return []string{""}, true
	}
	if text[0] == '-' && (len(text) == 1 || isBlank(text[1])) && indent >= col {
		return nil, true // a block sequence
	}
	if indent <= col {
		return []string{""}, true
	}
	if keyLike(text) {
		return nil, true // a block mapping
	}
	return nil, false
}

// continued reports whether the line after a plain scalar may continue
// it: indented under its key and not a key or an entry of its own.
func continued(data []byte, eol, col int) bool {
	indent, text, ok := nextLine(data, eol)
	if indent < 0 {
		return true // not read: may be
	}
	if !ok || indent <= col {
		return false
	}
	return !keyLike(text) && !(text[0] == '-' && (len(text) == 1 || isBlank(text[1])))
}

// nextLine is the indentation and text of the first line after eol that
// holds more than blanks or a comment; indentation -1 when it is more than
// maxLine bytes away, which is not read (every key of a line may ask).
func nextLine(data []byte, eol int) (int, []byte, bool) {
	for i := eol + 1; i < len(data); {
		if i-eol > maxLine {
			return -1, nil, true
		}
		end := bytes.IndexByte(data[i:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += i
		}
		l := bytes.TrimRight(data[i:end], " \t\r")
		t := bytes.TrimLeft(l, " \t")
		if len(t) > 0 && t[0] != '#' {
			return len(l) - len(t), t, true
		}
		i = end + 1
	}
	return 0, nil, false
}

// keyLike reports whether a line starts a mapping entry: a colon followed
// by a blank or ending the line, outside quotes, or "}", "]" closing flow.
func keyLike(t []byte) bool {
	if t[0] == '}' || t[0] == ']' || t[0] == ',' {
		return true
	}
	inQuote := byte(0)
	for i := 0; i < len(t); i++ {
		switch {
		case inQuote != 0:
			if t[i] == inQuote {
				inQuote = 0
			}
		case t[i] == '"' || t[i] == '\'':
			if i == 0 {
				inQuote = t[i]
			}
		case t[i] == ':' && (i+1 == len(t) || isBlank(t[i+1])):
			return true
		case t[i] == ' ' && i+1 < len(t) && t[i+1] == '#':
			return false
		}
	}
	return false
}
