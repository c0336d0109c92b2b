package suppress

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/editdist"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// Directive prefixes, after "#" and blanks.
const (
	directivePrefix = "crdlint:"
	nameIgnore      = "ignore"
	nameDocument    = "ignore-document"
)

// Set is the suppressions of one file. Build it with Scan.
type Set struct {
	// File is the file as named in findings.
	File string
	// Invalid are the findings about malformed directives
	// (invalid-suppression). Those directives silence nothing.
	Invalid []report.Finding
	// Directives are the valid ones, in file order.
	Directives []*Directive
}

// Directive is one valid suppression comment.
type Directive struct {
	// Line and Column are where its "#" is.
	Line, Column int
	// Document is true for crdlint:ignore-document.
	Document bool
	Rules    []string
	Reason   string
	// First and Last are the file lines it covers: the node it is on or
	// above and everything below it, or the whole document.
	First, Last int
	// Index is the document's index among the file's non-empty ones.
	Index int
	used  map[string]bool
}

// Scan finds the crdlint:ignore and crdlint:ignore-document comments of
// a file. rules is the catalogue, against which rule IDs are checked.
// file names the file in findings; data is its content.
//
// Comments are told from text by the document's own YAML structure: a
// "#" inside a quoted or block scalar is text, not a directive. A
// document that does not parse as YAML yields no suppressions (its
// problem is already a finding of its own).
func Scan(file string, data []byte, rules []report.Rule) *Set {
	return ScanAt(file, data, 1, 0, rules)
}

// ScanAt is Scan for a part of a file read on its own (a document of a
// stream): data starts at the file's line line, with the document of
// index index.
func ScanAt(file string, data []byte, line, index int, rules []report.Rule) *Set {
	s := scan(file, data, rules)
	if line == 1 && index == 0 {
		return s
	}
	for _, d := range s.Directives {
		d.Line += line - 1
		d.First += line - 1
		d.Last += line - 1
		d.Index += index
	}
	for i := range s.Invalid {
		s.Invalid[i].Line += line - 1
		s.Invalid[i].Document += index
	}
	return s
}

func scan(file string, data []byte, rules []report.Rule) *Set {
	s := &Set{File: file}
	if !bytes.Contains(data, []byte(directivePrefix)) {
		return s
	}
	known := make(map[string]bool, len(rules))
	all := make([]string, len(rules))
	for i, r := range rules {
		known[r.ID] = true
		all[i] = r.ID
	}
	lines := splitLines(data)
	index := 0
	for _, c := range chunks(data) {
		text := data[c.start:c.end]
		var doc yaml.Node
		if err := yaml.Unmarshal(text, &doc); err != nil {
			index++ // the loader counts a document it cannot parse
			continue
		}
		if len(doc.Content) == 0 {
			continue // empty or comments only: not a document for kubectl
		}
		y := newYAMLLines(text, c.firstLine)
		t := &tree{}
		t.walk(y, &doc, 0)
		slices.SortFunc(t.masks, func(a, b span) int { return a.from - b.from })
		// The outermost entry starting on each line is the one that ends
		// last.
		ends := map[int]int{}
		for _, e := range t.entries {
			first, last := y.fileLine(e.first), y.fileLine(e.last)
			ends[first] = max(ends[first], last)
		}
		cs := comments(data, c, t.masks)
		invalid := len(s.Invalid)
		for i, cm := range cs {
			d := s.parse(cm, known, all)
			if d == nil {
				continue
			}
			d.Index = index
			if d.Document {
				d.First, d.Last = c.firstLine, c.lastLine
			} else if !s.target(d, cm, cs[i+1:], ends, lines, c) {
				continue
			}
			s.Directives = append(s.Directives, d)
		}
		for i := invalid; i < len(s.Invalid); i++ {
			s.Invalid[i].Document = index
		}
		if root := doc.Content[0]; !(root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
			index++
		}
	}
	return s
}

// invalid records a malformed directive.
func (s *Set) invalid(cm comment, format string, args ...any) {
	s.Invalid = append(s.Invalid, report.Finding{
		Rule: RuleInvalid, Severity: report.Warning, File: s.File, Line: cm.line, Column: cm.col,
		Message: fmt.Sprintf(format, args...),
	})
}

// parse reads a directive from a comment; nil when the comment is not one
// or is malformed (then reported). known are the rule IDs, all the same
// in the catalogue's order, for suggestions.
func (s *Set) parse(cm comment, known map[string]bool, all []string) *Directive {
	body, ok := strings.CutPrefix(strings.TrimLeft(cm.text, " \t"), directivePrefix)
	if !ok {
		return nil
	}
	name, rest := body, ""
	if i := strings.IndexAny(body, " \t"); i >= 0 {
		name, rest = body[:i], body[i+1:]
	}
	if name != nameIgnore && name != nameDocument {
		s.invalid(cm, "unknown directive %q: the directives are crdlint:ignore and crdlint:ignore-document", directivePrefix+name)
		return nil
	}
	list, reason, hasReason := strings.Cut(rest, "--")
	reason = strings.TrimSpace(reason)
	var ids []string
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if !known[f] {
			// Without a "--", the words after the IDs are likely the
			// writer's reason: "did you mean" for each would be noise.
			hint := ""
			if hasReason || strings.Contains(f, "-") {
				hint = suggest(f, all)
			}
			s.invalid(cm, "unknown rule %q in %s%s%s (kubectl crdlint check --list-rules lists them)", f, directivePrefix, name, hint)
			continue
		}
		if !slices.Contains(ids, f) {
			ids = append(ids, f)
		}
	}
	switch {
	case strings.TrimSpace(list) == "":
		s.invalid(cm, "%s%s names no rule: write # %s%s RULE[,RULE...] -- reason", directivePrefix, name, directivePrefix, name)
		return nil
	case !hasReason || reason == "":
		s.invalid(cm, "%s%s needs a reason: # %s%s %s -- why this is fine", directivePrefix, name, directivePrefix, name, strings.TrimSpace(list))
		return nil
	case len(ids) == 0:
		return nil
	}
	return &Directive{Line: cm.line, Column: cm.col, Document: name == nameDocument, Rules: ids, Reason: reason, used: map[string]bool{}}
}

// target sets what a crdlint:ignore covers: the outermost entry starting
// on its line (a trailing comment) or on the first line after the block
// of comment lines it belongs to (an own-line comment), to the entry's
// last line. A line that starts no entry (a flow collection's closing
// bracket) covers itself. It reports false, with an invalid-suppression,
// when an own-line comment has no node under it.
func (s *Set) target(d *Directive, cm comment, after []comment, ends map[int]int, lines [][]byte, c chunk) bool {
	line := cm.line
	if cm.ownLine {
		// Skip the comment lines right below it.
		line++
		for _, n := range after {
			if n.line != line || !n.ownLine {
				break
			}
			line++
		}
		if line > c.lastLine || line > len(lines) || isBlank(lines[line-1]) {
			s.invalid(cm, "%s%s silences the node on the next line, and there is none: put it on the node's line or directly above it", directivePrefix, nameIgnore)
			return false
		}
	}
	d.First, d.Last = line, max(line, ends[line])
	return true
}

// splitLines splits data into its lines (without their "\n").
func splitLines(data []byte) [][]byte {
	return bytes.Split(data, []byte("\n"))
}

// Apply splits a file's findings into those kept and those a directive
// silences (kind "inline", the directive's reason), and returns an
// unused-suppression warning for each rule of each directive that
// silenced nothing. ran tells whether a rule ran on this file at all
// (nil: all did): a directive for a rule turned off is not unused.
// Findings of other files pass through. Findings about suppressions
// themselves are never silenced. Give it all of the file's findings at
// once: whether a directive is used is judged per call.
func (s *Set) Apply(findings []report.Finding, ran func(rule string) bool) (kept []report.Finding, suppressed []Suppressed, unused []report.Finding) {
	for _, d := range s.Directives {
		d.used = map[string]bool{} // each call judges its own findings
	}
	for _, f := range findings {
		var by *Directive
		if f.File == s.File && f.Line > 0 && f.Rule != RuleInvalid && f.Rule != RuleUnused {
			for _, d := range s.Directives {
				if f.Line < d.First || f.Line > d.Last || !slices.Contains(d.Rules, f.Rule) {
					continue
				}
				d.used[f.Rule] = true
				// The narrowest directive gives the reason.
				if by == nil || d.Last-d.First < by.Last-by.First {
					by = d
				}
			}
		}
		if by == nil {
			kept = append(kept, f)
			continue
		}
		suppressed = append(suppressed, Suppressed{Finding: f, Suppression: Suppression{Kind: KindInline, Reason: by.Reason}})
	}
	for _, d := range s.Directives {
		name := nameIgnore
		if d.Document {
			name = nameDocument
		}
		for _, r := range d.Rules {
			if d.used[r] || ran != nil && !ran(r) {
				continue
			}
			where := "on this node"
			if d.Document {
				where = "in this document"
			}
			unused = append(unused, report.Finding{
				Rule: RuleUnused, Severity: report.Warning, File: s.File, Document: d.Index,
				Line: d.Line, Column: d.Column,
				Message: fmt.Sprintf("%s%s %s silences nothing: %s reports nothing %s", directivePrefix, name, r, r, where),
			})
		}
	}
	return kept, suppressed, unused
}

// suggest returns ` (did you mean "x"?)` for the rule IDs close enough to
// id to be a typo (editdist.Closest, as the configuration file's rules:
// and explain suggest them), or "". An ID that differs only in case is
// suggested, not accepted.
func suggest(id string, ids []string) string {
	close := editdist.Closest(id, ids)
	if len(close) == 0 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", editdist.OrList(editdist.Quoted(close)))
}
