package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: any text parses without panicking, every finding has a
// position and the config-invalid rule, and what is kept is valid.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "load", dir, "*.yaml"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("rules: {crd-cel: warning}\noverrides: [{files: ['**'], rules: {crd-cel: off}}]"))
	f.Add([]byte("exclude: &a [*a]"))
	rules := catalogue()
	f.Fuzz(func(t *testing.T, data []byte) {
		c, fs := Parse("c.yaml", data, rules)
		for _, x := range fs {
			if x.Rule != RuleInvalid || x.Line < 1 || x.Column < 1 || x.Message == "" {
				t.Fatalf("bad finding %+v", x)
			}
		}
		for _, r := range c.Rules {
			if sev, ok := c.defaults[r.Rule]; !ok || sev.String() == "error" && r.Level == LevelWarning {
				t.Fatalf("kept an invalid rule level %+v", r)
			}
		}
		for _, o := range c.Overrides {
			if len(o.Files) == 0 || len(o.Rules) == 0 {
				t.Fatalf("kept an empty override %+v", o)
			}
		}
		_, _ = c.RuleSeverity("crd-cel", "a/b.yaml")
		_ = c.Excluded("a/b.yaml", false)
	})
}

// FuzzPattern: any pattern compiles or fails without panicking, matching
// never panics, and a pattern without special characters matches the
// path it spells.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{"*.yaml", "**/a/**/b", "[!a-c]?x", `\!x`, "a/**", "/x/", "[[:alpha:]]", "héllo/[é]"} {
		f.Add(s, "a/b/c.yaml", false)
	}
	f.Fuzz(func(t *testing.T, pattern, path string, isDir bool) {
		p, err := ParsePattern(pattern)
		if err != nil {
			return
		}
		_ = p.Match(path, isDir)
		// Only slashes: leading spaces are part of a gitignore pattern
		// (" 0" names " 0"), and trailing ones are excluded below.
		plain := strings.Trim(pattern, "/")
		if plain != "" && !strings.ContainsAny(pattern, `*?[\!#`) && !strings.Contains(pattern, "//") &&
			!strings.HasPrefix(pattern, "./") && !strings.Contains("/"+plain+"/", "/./") && !strings.Contains("/"+plain+"/", "/../") &&
			!strings.HasSuffix(pattern, " ") && !p.DirOnly && !strings.Contains(pattern, "\x00") {
			if !p.Match(plain, false) {
				t.Fatalf("%q does not match itself", pattern)
			}
		}
	})
}
