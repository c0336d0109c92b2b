package source

import (
	"bytes"
	"unicode/utf8"
)

// chunk is one document's text as kubectl's YAMLReader returns it, with the
// 1-based line in the file where the text starts.
type chunk struct {
	text []byte
	line int
	// col0 is the characters before the text on its first line: a YAML
	// stream that follows JSON on the same line (see DocReader).
	col0 int
	// starts is where each of the YAML parser's lines starts in the file,
	// when the text has line breaks only YAML counts; nil otherwise.
	starts []lineStart
}

// lineStart is a file line, counted from the chunk's first, and the
// characters before the position on that line.
type lineStart struct{ line, col int }

func newChunk(text []byte, line int) chunk {
	text = KubectlLines(text)
	return chunk{text: text, line: line, starts: yamlLineStarts(text)}
}

// pos turns the YAML parser's 1-based position in the chunk into a file
// position.
func (c chunk) pos(line, col int) Pos {
	if c.starts == nil || line < 1 {
		if line == 1 {
			col += c.col0
		}
		return Pos{Line: c.line + line - 1, Column: col}
	}
	s := c.starts[min(line, len(c.starts))-1]
	if s.line == 0 {
		col += c.col0
	}
	return Pos{Line: c.line + s.line, Column: col + s.col}
}

// filePos turns a position in the chunk whose lines are counted by "\n"
// alone, as editors count them, into a file position.
func (c chunk) filePos(p Pos) Pos {
	if p.Line == 1 {
		p.Column += c.col0
	}
	return Pos{Line: c.line + p.Line - 1, Column: p.Column}
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
// ("invalid Yaml document separator"); col is where the content may
// start, just after the dashes.
type badSeparator struct {
	line, col int
	rest      string
}

// KubectlLines gives a document's text the bytes kubectl parses:
// YAMLReader reads lines with bufio.Reader.ReadLine, which drops "\r\n"
// or "\n", and ends each line with "\n". The difference is not cosmetic:
// a block scalar on a last line without a newline is "x" to the YAML
// parser but "x\n" to kubectl. Line and column numbers are unchanged.
// pkg/helm cuts streams with it as this package does.
func KubectlLines(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	if b[len(b)-1] == '\n' && !bytes.Contains(b, []byte("\r\n")) {
		return b
	}
	out := bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	if out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}
