package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPatternGitExamples are the examples of gitignore(5), plus the
// cases each rule of the syntax implies, matched by one pattern alone.
func TestPatternGitExamples(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		dir     bool
		want    bool
	}{
		// "hello.*" matches any file or directory whose name begins with
		// "hello."; "/hello.*" only those in the base directory.
		{"hello.*", "hello.c", false, true},
		{"hello.*", "a/hello.java", false, true},
		{"hello.*", "a/b/hello.", true, true},
		{"hello.*", "hello", false, false},
		{"/hello.*", "hello.c", false, true},
		{"/hello.*", "a/hello.java", false, false},
		// "doc/frotz/" matches doc/frotz but not a/doc/frotz; "frotz/"
		// matches frotz and a/frotz, directories only.
		{"doc/frotz/", "doc/frotz", true, true},
		{"doc/frotz/", "a/doc/frotz", true, false},
		{"doc/frotz/", "doc/frotz", false, false},
		{"frotz/", "frotz", true, true},
		{"frotz/", "a/frotz", true, true},
		{"frotz/", "a/frotz", false, false},
		// "foo/*" matches foo/test.json and foo/bar, not foo/bar/hello.c
		// (the pattern itself; Patterns.Match excludes it through foo/bar).
		{"foo/*", "foo/test.json", false, true},
		{"foo/*", "foo/bar", true, true},
		{"foo/*", "foo/bar/hello.c", false, false},
		// Leading "**/": in all directories.
		{"**/foo", "foo", false, true},
		{"**/foo", "a/b/foo", true, true},
		{"**/foo/bar", "foo/bar", false, true},
		{"**/foo/bar", "x/foo/bar", false, true},
		{"**/foo/bar", "x/foo/y/bar", false, false},
		// Trailing "/**": everything inside, not the directory itself.
		{"abc/**", "abc/x", false, true},
		{"abc/**", "abc/x/y/z", false, true},
		{"abc/**", "abc", true, false},
		{"abc/**", "x/abc/y", false, false},
		// "/**/": zero or more directories.
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"a/**/b", "a/x/y/c", false, false},
		{"a/**/**/b", "a/b", false, true},
		// Other consecutive asterisks are ordinary asterisks.
		{"a**b", "axxb", false, true},
		{"a**b", "ax/xb", false, false},
		{"**.yaml", "deep/x.yaml", false, true},
		// "*" and "?" never match "/"; "?" is exactly one character.
		{"*.yaml", "x.yaml", false, true},
		{"*.yaml", "a/b/x.yaml", false, true},
		{"a/*.yaml", "a/b/x.yaml", false, false},
		{"a?c", "abc", false, true},
		{"a?c", "ac", false, false},
		{"a?c", "a/c", false, false},
		{"/*", "x", false, true},
		{"/*", "x/y", false, false},
		// Brackets, negated with "!" or "^", POSIX classes, "]" first.
		{"[a-c].yaml", "b.yaml", false, true},
		{"[a-c].yaml", "d.yaml", false, false},
		{"[!a-c].yaml", "d.yaml", false, true},
		{"[^a-c].yaml", "a.yaml", false, false},
		{"[[:digit:]]x", "7x", false, true},
		{"[[:digit:]]x", "ax", false, false},
		{"[]]x", "]x", false, true},
		{"[!]]x", "]x", false, false},
		{"v[.]1", "v.1", false, true},
		{"v[.]1", "vx1", false, false},
		// A backslash quotes: "\!" and "\#" and "\*" are literal.
		{`\!important!.txt`, "!important!.txt", false, true},
		{`\#x`, "#x", false, true},
		{`a\*`, "a*", false, true},
		{`a\*`, "ab", false, false},
		{`\?`, "?", false, true},
		// Trailing spaces are dropped unless quoted.
		{"foo  ", "foo", false, true},
		{`foo\ `, "foo ", false, true},
		// A leading "!" negates the meaning, not the match.
		{"!*.yaml", "x.yaml", false, true},
		// Regular-expression characters are literal.
		{"a+b(c).yaml", "a+b(c).yaml", false, true},
		{"a.yaml", "axyaml", false, false},
		{"^$|", "^$|", false, true},
		// Departures for YAML lists: "./" is the base directory, "#" plain.
		{"./vendor", "vendor", true, true},
		{"./vendor", "a/vendor", true, false},
		{"#x", "#x", false, true},
		// Non-ASCII names.
		{"héllo/*", "héllo/ü.yaml", false, true},
		{"h?llo", "héllo", false, true},
		{"[é]", "é", false, true},
		// Slashes are folded: "a//b" is "a/b".
		{"a//b", "a/b", false, true},
		// "**" alone is everything.
		{"**", "x", false, true},
		{"**", "x/y/z", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.path, func(t *testing.T) {
			p, err := ParsePattern(tt.pattern)
			if err != nil {
				t.Fatalf("ParsePattern(%q): %v", tt.pattern, err)
			}
			if got := p.Match(tt.path, tt.dir); got != tt.want {
				t.Errorf("%q.Match(%q, dir=%v) = %v, want %v", tt.pattern, tt.path, tt.dir, got, tt.want)
			}
		})
	}
}

func TestPatternErrors(t *testing.T) {
	tests := []struct {
		pattern string
		want    string
	}{
		{"", "empty pattern"},
		{"   ", "empty pattern"},
		{"!", "empty pattern"},
		{"/", `"/" alone matches nothing`},
		{"[a-", `unterminated "[" class`},
		{"[[:nope:]]", "unknown character class [:nope:]"},
		{"[[:alpha", `unterminated "[:" class`},
		{`a\`, `trailing "\" quotes nothing`},
		{"../x", `".." segments are not supported`},
		{"a/../b", `".." segments are not supported`},
		{"a/./b", `"." segments are not supported`},
		{"[z-a]", "invalid pattern"},
		{".", "names the base directory itself"},
		{"a\x00b", "NUL byte"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			_, err := ParsePattern(tt.pattern)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParsePattern(%q) = %v, want an error containing %q", tt.pattern, err, tt.want)
			}
		})
	}
}

// TestPatternsList checks the list semantics: last match wins, "!"
// re-includes, nothing comes back from inside an excluded directory, and
// each pattern is relative to its own base.
func TestPatternsList(t *testing.T) {
	root := filepath.FromSlash("/repo")
	tests := []struct {
		name     string
		patterns []string
		path     string
		dir      bool
		want     bool
	}{
		// gitignore(5): exclude everything except directory foo/bar.
		{"only foo/bar: bar", []string{"/*", "!/foo", "/foo/*", "!/foo/bar"}, "foo/bar/x.yaml", false, false},
		{"only foo/bar: sibling", []string{"/*", "!/foo", "/foo/*", "!/foo/bar"}, "foo/baz.yaml", false, true},
		{"only foo/bar: top", []string{"/*", "!/foo", "/foo/*", "!/foo/bar"}, "top.yaml", false, true},
		{"last match wins", []string{"*.yaml", "!keep.yaml"}, "a/keep.yaml", false, false},
		{"last match wins, reversed", []string{"!keep.yaml", "*.yaml"}, "a/keep.yaml", false, true},
		// A file inside an excluded directory cannot be re-included.
		{"no re-include below an excluded dir", []string{"build/", "!build/keep.yaml"}, "build/keep.yaml", false, true},
		{"re-include the directory itself", []string{"build/", "!build/"}, "build/keep.yaml", false, false},
		{"foo/* excludes foo/bar/hello.c through foo/bar", []string{"foo/*"}, "foo/bar/hello.c", false, true},
		{"dir pattern excludes its files", []string{"templates/"}, "charts/a/templates/x.yaml", false, true},
		{"dir pattern spares a file of that name", []string{"templates/"}, "charts/a/templates", false, false},
		{"chart templates", []string{"charts/*/templates/**"}, "charts/app/templates/deploy.yaml", false, true},
		{"chart templates: not crds", []string{"charts/*/templates/**"}, "charts/app/crds/x.yaml", false, false},
		{"absolute path inside the base", []string{"vendor/"}, "/repo/vendor/a.yaml", false, true},
		{"outside the base never matches", []string{"*.yaml"}, "/elsewhere/a.yaml", false, false},
		{"the base itself never matches", []string{"**"}, "/repo", true, false},
		{"stdin never matches", []string{"**"}, "<stdin>", false, false},
		{"relative path with ..", []string{"vendor/"}, "sub/../vendor/a.yaml", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := NewPatterns(root)
			if err != nil {
				t.Fatal(err)
			}
			if err := ps.Add(root, tt.patterns...); err != nil {
				t.Fatal(err)
			}
			if got := ps.Match(filepath.FromSlash(tt.path), tt.dir); got != tt.want {
				t.Errorf("%q.Match(%q) = %v, want %v", tt.patterns, tt.path, got, tt.want)
			}
		})
	}
}

// TestPatternsBases: a --exclude pattern is relative to the working
// directory, the configuration's to its own directory; order still
// decides between them.
func TestPatternsBases(t *testing.T) {
	wd := filepath.FromSlash("/repo/sub")
	ps, err := NewPatterns(wd)
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.Add(filepath.FromSlash("/repo"), "/gen/"); err != nil { // from /repo/.crdlint.yaml
		t.Fatal(err)
	}
	if err := ps.Add("", "/local.yaml", "!keep.yaml"); err != nil { // --exclude, relative to wd
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want bool
	}{
		{"../gen/a.yaml", true},  // /repo/gen
		{"gen/a.yaml", false},    // /repo/sub/gen: "/gen/" is anchored at /repo
		{"local.yaml", true},     // /repo/sub/local.yaml
		{"../local.yaml", false}, // /repo/local.yaml: outside wd
		{"keep.yaml", false},
		{"../gen/keep.yaml", true}, // below an excluded directory
	}
	for _, tt := range tests {
		if got := ps.Match(filepath.FromSlash(tt.path), false); got != tt.want {
			t.Errorf("Match(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
	if err := ps.Add("", "ok", "[bad"); err == nil || !strings.Contains(err.Error(), `pattern "[bad"`) {
		t.Errorf("Add with a bad pattern: %v, want an error naming it", err)
	}
	if ps.Len() != 4 {
		t.Errorf("Len = %d, want 4 (the valid pattern before the bad one is kept)", ps.Len())
	}
	var none *Patterns
	if none.Match("x", false) || none.Len() != 0 {
		t.Error("a nil *Patterns matches nothing")
	}
}

// TestPatternDeepStars: many "**" segments against a deep path stay fast
// (dynamic programming, not backtracking).
func TestPatternDeepStars(t *testing.T) {
	p, err := ParsePattern(strings.Repeat("**/a/", 40) + "b")
	if err != nil {
		t.Fatal(err)
	}
	path := strings.Repeat("a/", 200) + "c"
	if p.Match(path, false) {
		t.Error("matched a path that does not end in b")
	}
	if !p.Match(strings.Repeat("a/", 60)+"b", false) {
		t.Error("did not match 60 a's then b")
	}
}
