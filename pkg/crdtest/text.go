package crdtest

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Summary counts a run.
type Summary struct {
	Suites, Cases, Passed, Failed int
	Elapsed                       time.Duration
	// Unreadable are the suites that could not be read, each at the
	// position of its first error: the others ran, and the run fails
	// (exit 2) as go test does with a package that does not build.
	Unreadable []*Error
	// Warnings are what reading the suites ignored.
	Warnings []*Error
}

// Summarize counts results.
func Summarize(suites int, rs []*Result, elapsed time.Duration) Summary {
	s := Summary{Suites: suites, Cases: len(rs), Elapsed: elapsed}
	s.Passed = Passed(rs)
	s.Failed = s.Cases - s.Passed
	return s
}

// RenderText writes a line per case (PASS or FAIL, where, name, the
// minors), and under each failure what was expected and what the server
// said, one above the other; then the summary.
func RenderText(w io.Writer, rs []*Result, sum Summary) error {
	var b strings.Builder
	for _, r := range rs {
		verdict := "PASS"
		if !r.Passed {
			verdict = "FAIL"
		}
		fmt.Fprintf(&b, "%s %s:%d: %s (%s)\n", verdict, r.File, r.Line, r.Name(), minorsText(r))
		if r.Error != "" {
			fmt.Fprintf(&b, "    error: %s\n", r.Error)
		}
		for _, d := range r.Diffs {
			fmt.Fprintf(&b, "    %s:\n", d.What)
			writeBlock(&b, "expected: ", d.Expected)
			writeBlock(&b, "actual:   ", d.Actual)
		}
	}
	// The unreadable suites' errors are the command's, on stderr; the
	// summary counts them.
	unreadable := ""
	if len(sum.Unreadable) > 0 {
		unreadable = fmt.Sprintf(", %d %s unreadable", len(sum.Unreadable), plural(len(sum.Unreadable), "suite", "suites"))
	}
	fmt.Fprintf(&b, "%d cases in %d suites: %d passed, %d failed%s (%s)\n", sum.Cases, sum.Suites, sum.Passed, sum.Failed, unreadable, sum.Elapsed.Round(time.Millisecond))
	_, err := io.WriteString(w, b.String())
	return err
}

func writeBlock(b *strings.Builder, label, text string) {
	pad := strings.Repeat(" ", len(label))
	for i, line := range strings.Split(text, "\n") {
		if i == 0 {
			fmt.Fprintf(b, "      %s%s\n", label, line)
		} else {
			fmt.Fprintf(b, "      %s%s\n", pad, line)
		}
	}
}

// minorsText names the minors a result holds for, each judged by its
// own engine: "1.37", "1.33-1.36".
func minorsText(r *Result) string {
	return rangeText(r.Minors)
}

// rangeText writes consecutive supported minors as a range.
func rangeText(ms []string) string {
	idx := map[string]int{}
	for i, m := range Minors {
		idx[m] = i
	}
	var parts []string
	for i := 0; i < len(ms); {
		j := i
		for j+1 < len(ms) && idx[ms[j+1]] == idx[ms[j]]+1 {
			j++
		}
		if j == i {
			parts = append(parts, ms[i])
		} else {
			parts = append(parts, ms[i]+"-"+ms[j])
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
