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
		b.WriteString(GitHubCommand(cmd, f.File, f.Line, f.Column, f.Rule, subject(f)+withField(f.Message, f.Field)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// GitHubCommand is one workflow command (error, warning or notice) that
// annotates file at line and column (0: none) with title and message,
// escaped as the runner expects, ending in a newline.
func GitHubCommand(cmd, file string, line, col int, title, message string) string {
	props := "file=" + escapeProperty(slashPath(file))
	// A column without a line means nothing to GitHub.
	if line > 0 {
		props += fmt.Sprintf(",line=%d", line)
		if col > 0 {
			props += fmt.Sprintf(",col=%d", col)
		}
	}
	props += ",title=" + escapeProperty(title)
	return fmt.Sprintf("::%s %s::%s\n", cmd, props, escapeData(message))
}

// The escaping mirrors @actions/core (command.ts), which is what the runner
// undoes; a Replacer works in one pass, so "%25" is never escaped again.
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }
