package source

import (
	"bytes"
	"strings"
)

// chunk is one document's text as kubectl's YAMLReader returns it, with the
// 1-based line in the file where the text starts.
type chunk struct {
	text []byte
	line int
}

// badSeparator is a "---" line followed by content, which kubectl refuses
// ("invalid Yaml document separator").
type badSeparator struct {
	line int
	rest string
}

// split cuts a file the way k8s.io/apimachinery's YAMLReader does, so that
// document indexes match what kubectl sees: a line starting with "---"
// followed only by blanks or a comment ends the current document; when the
// current document is still empty, the separator line becomes part of the
// next one (so a leading "---" after comments does not start a second
// document once empty documents are dropped).
func split(data []byte) ([]chunk, []badSeparator) {
	var (
		out   []chunk
		bad   []badSeparator
		start = 0 // byte offset of the current chunk
		line  = 1 // line number of the line at off
		first = 1 // line number where the current chunk starts
	)
	for off := 0; off < len(data); line++ {
		next := len(data)
		if end := bytes.IndexByte(data[off:], '\n'); end >= 0 {
			next = off + end + 1
		}
		if l := data[off:next]; bytes.HasPrefix(l, []byte("---")) {
			if rest := strings.TrimSpace(string(l[3:])); rest != "" && rest[0] != '#' {
				bad = append(bad, badSeparator{line: line, rest: rest})
			}
			if off > start {
				out = append(out, chunk{text: asRead(data[start:off]), line: first})
				start, first = next, line+1
			}
		}
		off = next
	}
	if start < len(data) {
		out = append(out, chunk{text: asRead(data[start:]), line: first})
	}
	return out, bad
}

// asRead gives a chunk the bytes kubectl parses: YAMLReader reads lines
// with bufio.Reader.ReadLine, which drops "\r\n" or "\n", and ends each
// line with "\n". The difference is not cosmetic: a block scalar on a last
// line without a newline is "x" to the YAML parser but "x\n" to kubectl.
// Line and column numbers are unchanged.
func asRead(b []byte) []byte {
	if b[len(b)-1] == '\n' && !bytes.Contains(b, []byte("\r\n")) {
		return b
	}
	out := bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	if out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}
