package crdtest

import (
	"bytes"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/fsutil"
)

// recorded is an expectation as --update writes it: the server's
// verdict, reason, message and causes in its order; warnings, pruned
// paths; the stored object when the case compared one.
type recorded struct {
	Accepted bool            `yaml:"accepted"`
	Reason   string          `yaml:"reason,omitempty"`
	Message  string          `yaml:"message,omitempty"`
	Errors   []recordedError `yaml:"errors,omitempty"`
	Warnings []string        `yaml:"warnings,omitempty"`
	Pruned   []string        `yaml:"pruned,omitempty"`
	Stored   map[string]any  `yaml:"stored,omitempty"`
}

type recordedError struct {
	Field   string `yaml:"field"`
	Reason  string `yaml:"reason"`
	Message string `yaml:"message"`
}

// Split are the failed cases whose minors answer differently (one result
// per case, its first): one expectation cannot hold on all of them, so Record
// leaves them as written; split by kubernetesVersions, each part records.
func Split(rs []*Result) []*Result {
	split := splitCases(rs)
	var out []*Result
	for _, r := range rs {
		if split[r.c] {
			out = append(out, r)
			delete(split, r.c)
		}
	}
	return out
}

// splitCases are the failed cases with two results for one variant:
// their minors answered differently (merge makes the results that agree
// one).
func splitCases(rs []*Result) map[*Case]bool {
	type key struct {
		c       *Case
		variant string
	}
	seen := map[key]bool{}
	failed := map[*Case]bool{}
	twice := map[*Case]bool{}
	for _, r := range rs {
		if r.c == nil {
			continue
		}
		k := key{r.c, r.Variant}
		twice[r.c] = twice[r.c] || seen[k]
		seen[k] = true
		failed[r.c] = failed[r.c] || !r.Passed
	}
	out := map[*Case]bool{}
	for c := range twice {
		if twice[c] && failed[c] {
			out[c] = true
		}
	}
	return out
}

// Record writes into a suite of crdlint's format the expectations of its
// failed cases (and of those without one) as the results say the server
// answered (but for cases its minors answer differently: Split), replacing each such case's expect: block, or adding one at
// the case's end. Everything else of the file — other cases, comments,
// order, formatting — is kept byte for byte; the file is replaced
// atomically, and only when something changed.
func Record(s *Suite, rs []*Result) error {
	if s.Format != Crdlint {
		return nil
	}
	byCase := map[*Case]*Result{}
	split := splitCases(rs)
	for _, r := range rs {
		if r.c == nil || r.Passed || r.Actual == nil || split[r.c] {
			continue
		}
		if _, ok := byCase[r.c]; !ok {
			byCase[r.c] = r
		}
	}
	if len(byCase) == 0 {
		return nil
	}
	lines := splitLines(s.data)
	type edit struct {
		from, to int // lines [from, to) replaced, 0-based
		text     string
	}
	var edits []edit
	for _, c := range s.Cases {
		r, ok := byCase[c]
		if !ok || c.node == nil {
			continue
		}
		if c.node.Style&yaml.FlowStyle != 0 {
			return fmt.Errorf("%s:%d: %q is written in flow style ({...}): --update records into block-style cases only", s.File, c.Pos.Line, c.Name)
		}
		indent := c.node.Column - 1
		if len(c.node.Content) > 0 {
			indent = c.node.Content[0].Column - 1
		}
		text, err := expectText(r, indent)
		if err != nil {
			return fmt.Errorf("%s: %q: %w", s.File, c.Name, err)
		}
		var k *yaml.Node
		for i := 0; i+1 < len(c.node.Content); i += 2 {
			if c.node.Content[i].Value == "expect" {
				k = c.node.Content[i]
			}
		}
		if k != nil {
			from := k.Line - 1
			to := spanEnd(lines, k.Line, indent)
			edits = append(edits, edit{from, to, text})
			continue
		}
		first := c.node.Line
		if len(c.node.Content) > 0 {
			first = c.node.Content[0].Line
		}
		at := spanEnd(lines, first, indent-1)
		edits = append(edits, edit{at, at, text})
	}
	var out bytes.Buffer
	next := 0
	for _, e := range edits {
		for ; next < e.from; next++ {
			out.WriteString(lines[next])
		}
		out.WriteString(e.text)
		next = e.to
	}
	for ; next < len(lines); next++ {
		out.WriteString(lines[next])
	}
	if bytes.Equal(out.Bytes(), s.data) {
		return nil
	}
	// The rewritten suite must read back: a bug here must never leave a
	// broken suite behind.
	if _, err := Read(s.File, out.Bytes()); err != nil {
		return fmt.Errorf("--update would break %s: %w", s.File, err)
	}
	return fsutil.WriteAtomic(s.File, out.Bytes())
}

// expectText renders an expectation as a block at indent.
func expectText(r *Result, indent int) (string, error) {
	o := r.Actual
	rec := recorded{Accepted: o.Accepted, Reason: o.Reason, Message: o.Message, Warnings: o.Warnings}
	// A refused request stores nothing: what it would have pruned is
	// noise (under Strict, the message names it).
	if o.Accepted {
		rec.Pruned = o.Pruned
	}
	for _, c := range o.Errors {
		rec.Errors = append(rec.Errors, recordedError(c))
	}
	if r.expect != nil && r.expect.Stored != nil && o.Accepted {
		rec.Stored = o.Stored
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(map[string]recorded{"expect": rec}); err != nil {
		return "", err
	}
	pad := strings.Repeat(" ", indent)
	var out strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimRight(b.String(), "\n")+"\n", "\n") {
		if l == "" {
			continue
		}
		out.WriteString(pad + l)
	}
	return out.String(), nil
}

// splitLines keeps each line's end.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b)+"\n")
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// spanEnd is the 0-based line after the block that starts at line (1-
// based) and whose lines are indented more than indent: up to the next
// line, after it, that is indented at most indent and is not blank or a
// comment, less the blank lines and comments before that line (they
// belong to what follows).
func spanEnd(lines []string, line, indent int) int {
	end := len(lines)
	for i := line; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " ")
		if strings.TrimSpace(t) == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if len(lines[i])-len(t) <= indent {
			end = i
			break
		}
	}
	for end > line && isBlankOrComment(lines[end-1]) {
		end--
	}
	return end
}

func isBlankOrComment(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || strings.HasPrefix(t, "#")
}
