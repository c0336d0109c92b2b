package report

import (
	"fmt"
	"io"
	"strings"
)

// RenderGitHub writes one GitHub Actions workflow command per finding, so
// that a job running the linter annotates the pull request without any
// SARIF upload. It writes no summary: the annotations are the output, and
// the exit status decides whether the job fails. Like text, each message
// names its object; suppressed findings are left out.
func RenderGitHub(w io.Writer, r Result, _ Options) error {
	r = prepare(r)
	var b strings.Builder
	for _, f := range active(r.Findings) {
		cmd := "error"
		switch f.Severity {
		case Warning:
			cmd = "warning"
		case None:
			cmd = "notice"
		}
		props := "file=" + escapeProperty(slashPath(f.File))
		// A column without a line means nothing to GitHub.
		if f.Line > 0 {
			props += fmt.Sprintf(",line=%d", f.Line)
			if f.Column > 0 {
				props += fmt.Sprintf(",col=%d", f.Column)
			}
		}
		props += ",title=" + escapeProperty(f.Rule)
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, props, escapeData(subject(f)+withField(f.Message, f.Field)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// The escaping mirrors @actions/core (command.ts), which is what the runner
// undoes; a Replacer works in one pass, so "%25" is never escaped again.
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }
