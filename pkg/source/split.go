package source

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// chunk is one document's text as kubectl's YAMLReader returns it, with the
// 1-based line in the file where the text starts.
type chunk struct {
	text []byte
	line int
	// starts is where each of the YAML parser's lines starts in the file,
	// when the text has line breaks only YAML counts; nil otherwise.
	starts []lineStart
}

// lineStart is a file line, counted from the chunk's first, and the
// characters before the position on that line.
type lineStart struct{ line, col int }

func newChunk(text []byte, line int) chunk {
	text = asRead(text)
	return chunk{text: text, line: line, starts: yamlLineStarts(text)}
}

// pos turns the YAML parser's 1-based position in the chunk into a file
// position.
func (c chunk) pos(line, col int) Pos {
	if c.starts == nil || line < 1 {
		return Pos{Line: c.line + line - 1, Column: col}
	}
	s := c.starts[min(line, len(c.starts))-1]
	return Pos{Line: c.line + s.line, Column: col + s.col}
}

// yamlLineStarts maps YAML lines to file lines. libyaml follows YAML 1.1
// and ends a line at a lone CR, NEL, LS or PS too; editors, grep and
// kubectl's reader do not, and without the map a U+2028 pasted into a
// description would move every later position of the document down a
// line.
func yamlLineStarts(b []byte) []lineStart {
	if bytes.IndexByte(b, '\r') < 0 && !bytes.Contains(b, []byte("\u0085")) &&
		!bytes.Contains(b, []byte("\u2028")) && !bytes.Contains(b, []byte("\u2029")) {
		return nil
	}
	starts := []lineStart{{0, 0}}
	line, col := 0, 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == '\n' || r == '\r' && i+1 < len(b) && b[i+1] == '\n':
			if r == '\r' {
				size = 2
			}
			line, col = line+1, 0
			starts = append(starts, lineStart{line, 0})
		case r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029':
			col++
			starts = append(starts, lineStart{line, col})
		default:
			col++
		}
		i += size
	}
	return starts
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
				out = append(out, newChunk(data[start:off], first))
				start, first = next, line+1
			}
		}
		off = next
	}
	if start < len(data) {
		out = append(out, newChunk(data[start:], first))
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
