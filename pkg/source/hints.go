package source

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// tabHint says so when a YAML error is about a tab, which looks like
// spaces in most editors: libyaml's words ("found character that cannot
// start any token") do not name it. The position moves to the tab, on
// the line the error names or, when that is the context the parser was
// in, the next one.
func tabHint(c chunk, pos Pos, msg string) (Pos, string) {
	if !strings.Contains(msg, "cannot start any token") && !strings.Contains(msg, "tab character") {
		return pos, msg
	}
	for _, line := range []int{pos.Line, pos.Line + 1} {
		text, ok := chunkLine(c.text, line-c.line)
		if !ok {
			continue
		}
		// A tab among the indentation and block indicators that begin
		// the line.
		for i := 0; i < len(text); i++ {
			switch text[i] {
			case ' ', '-', '?', ':':
				continue
			case '\t':
				col := utf8.RuneCount(text[:i]) + 1
				return c.filePos(Pos{Line: line - c.line + 1, Column: col}),
					msg + " (a tab: YAML indentation must use spaces)"
			}
			break
		}
	}
	return pos, msg
}

// chunkLine returns the 0-based line i of text, lines ending at "\n".
func chunkLine(text []byte, i int) ([]byte, bool) {
	if i < 0 {
		return nil, false
	}
	for ; i > 0; i-- {
		j := bytes.IndexByte(text, '\n')
		if j < 0 {
			return nil, false
		}
		text = text[j+1:]
	}
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return text, true
}
