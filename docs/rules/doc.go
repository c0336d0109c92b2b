// Package rules holds the rule pages, docs/rules/<rule>.md, so that
// `kubectl crdlint explain RULE` prints exactly the page the repository
// shows, from the binary, offline.
//
// The pages are generated from the rule set (pkg/ruleset) and the
// rules' fixtures by
//
//	go test ./pkg/ruleset -run TestRulesDoc -update-rules
//
// and that test fails when a page is out of date. This package only embeds
// them: which rules exist, their severities and their prose are the rule
// set's (pkg/ruleset, from each rule's package); printing is the
// command's.
//
// Example:
//
//	page, ok := rules.Page("crd-group")
//	if ok {
//		os.Stdout.Write(page)
//	}
package rules

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.md
var pages embed.FS

// Page returns the Markdown page of the rule id, and false when there is
// none.
func Page(id string) ([]byte, bool) {
	// fs.ValidPath keeps "../x" and "a/b" from reaching the embedded tree's
	// other names; IDs never contain a slash.
	if !fs.ValidPath(id) || strings.Contains(id, "/") {
		return nil, false
	}
	b, err := pages.ReadFile(id + ".md")
	if err != nil {
		return nil, false
	}
	return b, true
}

// IDs lists the rules that have a page, sorted.
func IDs() []string {
	ents, _ := pages.ReadDir(".")
	ids := make([]string, 0, len(ents))
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}
