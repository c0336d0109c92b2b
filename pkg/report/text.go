package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fatih/color"
)

// textStyle holds its own color.Color values rather than relying on the
// color.NoColor global, so that one render's choice cannot leak into
// another (or into tests running in parallel).
type textStyle struct {
	pos, err, warn, rule, field, object *color.Color
}

func newTextStyle(enabled bool) textStyle {
	c := func(a ...color.Attribute) *color.Color {
		c := color.New(a...)
		if enabled {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	return textStyle{
		pos:    c(color.Bold),
		err:    c(color.FgRed),
		warn:   c(color.FgYellow),
		rule:   c(color.FgCyan),
		field:  c(color.Faint),
		object: c(color.Bold),
	}
}

func (s textStyle) severity(sev Severity) string {
	switch sev {
	case Error:
		return s.err.Sprint(sev)
	case Warning:
		return s.warn.Sprint(sev)
	}
	return sev.String()
}

// RenderText writes one line per finding in the file:line:col: form that
// editors and terminals turn into links, optionally followed by a summary:
//
//	file:line:col: severity rule: Kind namespace/name: message [field]
//
// The object is named on every line, so that output from a stream of many
// objects reads on its own; it is left out only when unknown (a finding
// about the whole file or a document that is no object). Suppressed
// findings are not printed; the summary counts them.
func RenderText(w io.Writer, r Result, o Options) error {
	r = prepare(r)
	s := newTextStyle(o.Color)
	var b strings.Builder
	for _, f := range active(r.Findings) {
		f.minorsSuffix = minorsSuffix(f, r.Summary.Minors)
		s.line(&b, f, true)
	}
	if o.SummaryLine {
		for _, u := range r.Upgrades {
			b.WriteString(s.upgrade(u) + "\n")
		}
		for _, k := range r.Skews {
			b.WriteString(k.Text() + "\n")
		}
		for _, m := range r.Summary.Minors {
			b.WriteString(s.minor(m) + "\n")
		}
		b.WriteString(s.summary(r.Summary) + s.judgedBy(r.Summary) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// line writes one finding, naming its object when withObject is set and
// the object is known.
func (s textStyle) line(b *strings.Builder, f Finding, withObject bool) {
	pos := f.File
	if f.Line > 0 {
		pos += fmt.Sprintf(":%d", f.Line)
		if f.Column > 0 {
			pos += fmt.Sprintf(":%d", f.Column)
		}
	}
	// The field goes on the first line, not after the last: multi-line
	// messages (CEL errors) end in a caret diagram that it would spoil,
	// and this way one line carries everything grep needs.
	first, rest, _ := strings.Cut(f.Message, "\n")
	fmt.Fprintf(b, "%s: %s %s: ", s.pos.Sprint(pos), s.severity(f.Severity), s.rule.Sprint(f.Rule))
	if obj := subject(f); withObject && obj != "" {
		obj = strings.TrimSuffix(obj, ": ")
		if f.Via != "" {
			obj += " (" + f.Via + ")"
		}
		b.WriteString(s.object.Sprint(obj) + ": ")
	} else if f.Via != "" {
		b.WriteString(s.object.Sprint("("+f.Via+")") + ": ")
	}
	b.WriteString(strings.TrimSuffix(first, "\r"))
	if f.Field != "" {
		b.WriteString(" " + s.field.Sprint("["+f.Field+"]"))
	}
	if f.minorsSuffix != "" {
		b.WriteString(" " + f.minorsSuffix)
	}
	b.WriteByte('\n')
	if rest != "" {
		for line := range strings.SplitSeq(rest, "\n") {
			b.WriteString(strings.TrimRight("    "+strings.TrimSuffix(line, "\r"), " "))
			b.WriteByte('\n')
		}
	}
}

func (s textStyle) summary(sum Summary) string {
	var found []string
	if sum.Errors > 0 {
		found = append(found, s.err.Sprint(Plural(sum.Errors, "error")))
	}
	if sum.Warnings > 0 {
		found = append(found, s.warn.Sprint(Plural(sum.Warnings, "warning")))
	}
	what := "no problems"
	if len(found) > 0 {
		what = strings.Join(found, ", ")
	}
	if sum.Suppressed > 0 {
		what += fmt.Sprintf(" (%d suppressed)", sum.Suppressed)
	}
	docs := Plural(sum.Documents, "document")
	var parts []string
	if sum.CRDs > 0 {
		parts = append(parts, Plural(sum.CRDs, "CRD"))
	}
	parts = append(parts, pluralWord(sum.CustomResources, "custom resource", "custom resources")+" validated")
	if n := total(sum.NotValidated); n > 0 {
		parts = append(parts, fmt.Sprintf("%d not validated (%s)", n, reasons(sum.NotValidated)))
	}
	if sum.Skipped > 0 {
		parts = append(parts, sum.SkippedText())
	}
	if len(parts) > 0 {
		docs += ": " + strings.Join(parts, ", ")
	}
	if sum.StaleBaseline > 0 {
		what += fmt.Sprintf(", %s fixed (drop them: --write-baseline)", pluralWord(sum.StaleBaseline, "baseline entry", "baseline entries"))
	}
	if sum.Objects > 0 || sum.Live {
		where := Plural(sum.Objects, "live object")
		if sum.Files > 0 {
			where = Plural(sum.Files, "file") + " and " + where
		}
		return fmt.Sprintf("%s in %s (%s)", what, where, docs)
	}
	return fmt.Sprintf("%s in %s (%s)", what, Plural(sum.Files, "file"), docs)
}

// SkippedText says what was skipped and why, as the text summary says
// it: "6 skipped (2 kustomization, 2 not a Kubernetes object, 1 Helm
// chart template, 1 kustomize patch or configuration)"; "" when nothing
// was. Commands without a summary line (prune, fields) print it alone.
func (sum Summary) SkippedText() string {
	if sum.Skipped == 0 {
		return ""
	}
	s := fmt.Sprintf("%d skipped", sum.Skipped)
	if len(sum.SkippedBy) > 0 {
		s += " (" + reasons(sum.SkippedBy) + ")"
	}
	return s
}

// upgrade is one CRD's line of kubectl crdlint upgrade's summary.
func (s textStyle) upgrade(u UpgradeSummary) string {
	line := s.upgradeCounts(u)
	if l := u.KubernetesVersions.List(); len(l) > 0 {
		line += " (" + Span(l) + ")"
	}
	return line
}

func (s textStyle) upgradeCounts(u UpgradeSummary) string {
	verdict := "update accepted"
	if u.UpdateRefused {
		verdict = s.err.Sprint("update refused")
	}
	if u.Objects == 0 {
		return fmt.Sprintf("%s: %s; no objects replayed", u.CRD, verdict)
	}
	line := fmt.Sprintf("%s: %s; %s replayed", u.CRD, verdict, Plural(u.Objects, "object"))
	var broken []string
	for _, c := range []struct {
		n    int
		what string
	}{{u.WouldFailCreate, "would fail create"}, {u.WouldFailUpdate, "would fail update"}, {u.WouldLoseData, "would lose data"}, {u.NotReplayed, "not replayed"}} {
		if c.n > 0 {
			broken = append(broken, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(broken) == 0 {
		line += ": none broken"
	} else {
		line += ": " + strings.Join(broken, ", ")
	}
	// What fails the run besides the objects, so that "none broken"
	// and the exit code tell one story.
	if u.BreakingChanges > 0 {
		line += "; " + Plural(u.BreakingChanges, "breaking change")
	}
	return line
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func total(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// reasons lists counts by reason, most first, then by name.
func reasons(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(out, ", ")
}

// Plural is n and a noun, the noun with an s unless n is 1: "1 error",
// "2 errors". Every command counts in these words.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
