package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
)

// gitlabIssue is one entry of a GitLab Code Quality report, the subset of
// the Code Climate issue format that GitLab reads. GitLab validates each
// entry against its codeclimate.json schema and stops reading the report
// at the first entry that fails; the test validates against that schema.
type gitlabIssue struct {
	Description string         `json:"description"`
	CheckName   string         `json:"check_name"`
	Fingerprint string         `json:"fingerprint"`
	Severity    string         `json:"severity"`
	Location    gitlabLocation `json:"location"`
}

type gitlabLocation struct {
	Path  string      `json:"path"`
	Lines gitlabLines `json:"lines"`
}

type gitlabLines struct {
	Begin int `json:"begin"`
}

// RenderGitLab writes a GitLab Code Quality report: a JSON array with one
// issue per finding, for artifacts:reports:codequality. Suppressed
// findings are left out.
//
// Severity: error is "major" and warning "minor", as ESLint's and most
// linters' GitLab formatters map them, so that a merge request mixing
// their reports ranks alike; "critical" and "blocker" are left to the
// security scanners that use them.
//
// Fingerprints are Finding.Fingerprint, with no line numbers, so that
// GitLab's comparison of the base and head reports shows only the
// findings a change introduced or fixed. GitLab keys issues by
// fingerprint, and a repeated one replaces the earlier issue, so the
// second and later of identical findings (same file, object, rule, field
// and message at different lines) get their ordinal hashed in.
func RenderGitLab(w io.Writer, r Result, _ Options) error {
	r = prepare(r)
	issues := []gitlabIssue{}
	seen := map[string]int{}
	for _, f := range active(r.Findings) {
		fp := f.Fingerprint()
		n := seen[fp]
		seen[fp]++
		if n > 0 {
			sum := sha256.Sum256([]byte(fp + "#" + strconv.Itoa(n)))
			fp = hex.EncodeToString(sum[:])
		}
		severity := "info"
		switch f.Severity {
		case Error:
			severity = "major"
		case Warning:
			severity = "minor"
		}
		issues = append(issues, gitlabIssue{
			Description: subject(f) + withField(f.Message, f.Field),
			CheckName:   f.Rule,
			Fingerprint: fp,
			Severity:    severity,
			Location:    gitlabLocation{Path: slashPath(f.File), Lines: gitlabLines{Begin: max(f.Line, 1)}},
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(issues)
}
