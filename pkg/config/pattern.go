package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Pattern is one gitignore-style pattern, compiled. The semantics are
// git's (gitignore(5)): "*" and "?" never match "/", "[...]" is a
// character class ("!" or "^" negates it, POSIX classes such as
// [:alpha:] work), "\" quotes the next character, a "**" segment matches
// any number of directories, a leading "/" anchors the pattern to its
// base directory (so does any other "/" but a trailing one), a pattern
// without "/" matches a name at any depth, a trailing "/" matches
// directories only, and a leading "!" re-includes what an earlier
// pattern matched.
//
// Two departures, both because the patterns live in YAML lists rather
// than in a .gitignore file: a leading "#" is an ordinary character (a
// YAML comment never reaches us), and a leading "./" is dropped (git
// would never match it; users write it meaning the base directory).
type Pattern struct {
	// Text is the pattern as written.
	Text string
	// Negate is a leading "!": a match re-includes the path.
	Negate bool
	// DirOnly is a trailing "/": only directories match.
	DirOnly bool
	segs    []segment
}

// segment matches one path segment; any is a "**" segment.
type segment struct {
	any     bool
	literal string
	re      *regexp.Regexp // nil for a literal
}

func (s segment) match(part string) bool {
	if s.re == nil {
		return s.literal == part
	}
	return s.re.MatchString(part)
}

// ParsePattern compiles one gitignore-style pattern. Errors are one line
// and do not repeat the pattern.
func ParsePattern(text string) (Pattern, error) {
	return parsePattern(text, false)
}

// parsePattern compiles text; glob makes it a shell glob (crds:
// entries): anchored even without "/", and ".." segments allowed, as
// literal names, since a glob is a path and may leave its directory.
func parsePattern(text string, glob bool) (Pattern, error) {
	anchored := glob
	p := Pattern{Text: text}
	s := trimTrailingSpace(text)
	if strings.HasPrefix(s, "!") {
		p.Negate = true
		s = s[1:]
	}
	if s == "" {
		return p, errors.New("empty pattern")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return p, errors.New("NUL byte in pattern")
	}
	if strings.HasSuffix(s, "/") {
		p.DirOnly = true
		s = strings.TrimRight(s, "/")
		if s == "" {
			return p, errors.New(`"/" alone matches nothing: name a directory, or use "**" for everything`)
		}
	}
	for strings.HasPrefix(s, "./") {
		s = strings.TrimLeft(s[2:], "/")
		anchored = true
	}
	if strings.HasPrefix(s, "/") {
		s = strings.TrimLeft(s, "/")
		anchored = true
	} else if strings.Contains(s, "/") {
		anchored = true
	}
	if s == "" || s == "." {
		return p, errors.New("the pattern names the base directory itself: use \"**\" for everything in it")
	}
	if !anchored {
		p.segs = append(p.segs, segment{any: true})
	}
	for _, seg := range strings.Split(s, "/") {
		switch seg {
		case "..", ".":
			if glob {
				p.segs = append(p.segs, segment{literal: seg})
				continue
			}
			return p, fmt.Errorf("%q segments are not supported: patterns are relative to the directory they apply to", seg)
		case "":
			continue // "a//b" is "a/b"
		case "**":
			if n := len(p.segs); n > 0 && p.segs[n-1].any {
				continue // "**/**" is "**"
			}
			p.segs = append(p.segs, segment{any: true})
			continue
		}
		sg, err := globSegment(seg)
		if err != nil {
			return p, err
		}
		p.segs = append(p.segs, sg)
	}
	return p, nil
}

// trimTrailingSpace drops trailing spaces unless the last is quoted with
// a backslash, as git does.
func trimTrailingSpace(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// globSegment compiles one segment (no "/"): a literal when it has no
// wildcard, a regular expression otherwise.
func globSegment(seg string) (segment, error) {
	var b strings.Builder
	literal, wild := strings.Builder{}, false
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch c {
		case '*':
			wild = true
			b.WriteString(".*")
		case '?':
			wild = true
			b.WriteString(".")
		case '\\':
			if i+1 == len(seg) {
				return segment{}, errors.New(`trailing "\" quotes nothing`)
			}
			i++
			b.WriteString(regexp.QuoteMeta(seg[i : i+1]))
			literal.WriteByte(seg[i])
		case '[':
			class, n, err := globClass(seg[i:])
			if err != nil {
				return segment{}, err
			}
			wild = true
			b.WriteString(class)
			i += n - 1
		default:
			b.WriteString(regexp.QuoteMeta(seg[i : i+1]))
			literal.WriteByte(c)
		}
	}
	if !wild {
		return segment{literal: literal.String()}, nil
	}
	re, err := regexp.Compile("^(?s:" + b.String() + ")$")
	if err != nil {
		return segment{}, fmt.Errorf("invalid pattern: %v", err)
	}
	return segment{re: re}, nil
}

// globClass translates the bracket expression at the start of s and
// returns it with the number of bytes it used.
func globClass(s string) (string, int, error) {
	var b strings.Builder
	b.WriteString("[")
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		b.WriteString("^")
		i++
	}
	for first := true; i < len(s); i, first = i+1, false {
		c := s[i]
		switch {
		case c == ']' && !first:
			b.WriteString("]")
			return b.String(), i + 1, nil
		case c == '[' && i+1 < len(s) && s[i+1] == ':':
			end := strings.Index(s[i+2:], ":]")
			if end < 0 {
				return "", 0, errors.New(`unterminated "[:" class`)
			}
			name := s[i+2 : i+2+end]
			if !posixClasses[name] {
				return "", 0, fmt.Errorf("unknown character class [:%s:]", name)
			}
			b.WriteString("[:" + name + ":]")
			i += 2 + end + 1
		case c == '\\':
			if i+1 == len(s) {
				return "", 0, errors.New(`unterminated "[" class`)
			}
			i++
			b.WriteString(quoteClassByte(s[i]))
		case c == '-':
			b.WriteString("-")
		default:
			b.WriteString(quoteClassByte(c))
		}
	}
	return "", 0, errors.New(`unterminated "[" class`)
}

// quoteClassByte writes c so that RE2 reads it literally inside a class.
func quoteClassByte(c byte) string {
	if c < 0x80 && !isAlnum(c) {
		return `\` + string(c)
	}
	// Bytes of a UTF-8 sequence go through as they are, so the class
	// holds the character.
	return string([]byte{c})
}

var posixClasses = map[string]bool{
	"alnum": true, "alpha": true, "blank": true, "cntrl": true, "digit": true, "graph": true,
	"lower": true, "print": true, "punct": true, "space": true, "upper": true, "xdigit": true,
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Match reports whether the slash-separated path rel (relative to the
// pattern's base directory, no leading "/") matches the pattern itself.
// It does not look at rel's parent directories; Patterns.Match does.
// Negate does not change the answer: it says what a match means.
func (p Pattern) Match(rel string, isDir bool) bool {
	if len(p.segs) == 0 || p.DirOnly && !isDir || rel == "" {
		return false
	}
	return matchSegments(p.segs, strings.Split(rel, "/"))
}

// matchSegments matches pattern segments against path segments. A "**"
// matches zero or more segments, except last, where it matches one or
// more ("abc/**" is what is inside abc). Dynamic programming keeps
// patterns such as "**/a/**/a/**/a" linear in the path's depth.
func matchSegments(segs []segment, parts []string) bool {
	// ok[j] says segs[i:] matches parts[j:], for the current i.
	ok := make([]bool, len(parts)+1)
	ok[len(parts)] = true
	for i := len(segs) - 1; i >= 0; i-- {
		s := segs[i]
		next := make([]bool, len(parts)+1)
		if s.any {
			last := i == len(segs)-1
			// next[j] = ok[j] (zero segments, not last) || next[j+1] (take one)
			for j := len(parts); j >= 0; j-- {
				if !last && ok[j] || j < len(parts) && (next[j+1] || last && j+1 == len(parts)) {
					next[j] = true
				}
			}
		} else {
			for j := 0; j < len(parts); j++ {
				next[j] = ok[j+1] && s.match(parts[j])
			}
		}
		ok = next
	}
	return ok[0]
}

// Patterns is an ordered list of gitignore-style patterns, each relative
// to its own base directory (the configuration file's for exclude and
// overrides, the working directory for --exclude), evaluated as git
// evaluates one .gitignore: the last matching pattern decides, and a
// path inside an excluded directory stays excluded whatever follows.
//
// The zero value matches nothing. Patterns is safe for concurrent reads.
type Patterns struct {
	list []basedPattern
	// wd resolves relative paths given to Match.
	wd string
}

type basedPattern struct {
	Pattern
	base string // absolute, slash-separated, no trailing "/" (but "/")
}

// NewPatterns returns an empty list that resolves relative paths against
// wd (an absolute directory; "" means the process's working directory,
// read once, now).
func NewPatterns(wd string) (*Patterns, error) {
	if wd == "" {
		w, err := filepath.Abs(".")
		if err != nil {
			return nil, err
		}
		wd = w
	}
	return &Patterns{wd: filepath.Clean(wd)}, nil
}

// Add appends patterns relative to base (absolute, or relative to the
// list's working directory). It stops at the first invalid pattern, naming
// it; the patterns before it are added.
func (ps *Patterns) Add(base string, texts ...string) error {
	for _, t := range texts {
		p, err := ParsePattern(t)
		if err != nil {
			return fmt.Errorf("pattern %q: %v", t, err)
		}
		ps.add(base, p)
	}
	return nil
}

func (ps *Patterns) add(base string, p Pattern) {
	ps.list = append(ps.list, basedPattern{Pattern: p, base: ps.abs(base)})
}

// Len is the number of patterns.
func (ps *Patterns) Len() int {
	if ps == nil {
		return 0
	}
	return len(ps.list)
}

func (ps *Patterns) abs(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(ps.wd, p)
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// Match reports whether path (absolute, or relative to the working
// directory) is matched: excluded, for an exclude list. isDir says that
// path is a directory (trailing-"/" patterns match only those). Paths
// outside a pattern's base directory never match it; "<stdin>" and ""
// match nothing.
func (ps *Patterns) Match(path string, isDir bool) bool {
	if ps == nil || len(ps.list) == 0 || path == "" || path == "<stdin>" {
		return false
	}
	abs := ps.abs(path)
	// A directory that is excluded hides everything below it: git does not
	// even look inside, so a later "!" cannot bring a file back.
	for i := 1; i < len(abs); i++ {
		if abs[i] == '/' && ps.last(abs[:i], true) {
			return true
		}
	}
	return ps.last(abs, isDir)
}

// last is the verdict of the last pattern matching abs itself.
func (ps *Patterns) last(abs string, isDir bool) bool {
	matched := false
	for i := range ps.list {
		p := &ps.list[i]
		rel, ok := relTo(p.base, abs)
		if ok && p.Pattern.Match(rel, isDir) {
			matched = !p.Negate
		}
	}
	return matched
}

// relTo returns abs relative to base, when abs is strictly inside base.
func relTo(base, abs string) (string, bool) {
	if base == "/" {
		return abs[1:], len(abs) > 1
	}
	if len(abs) <= len(base)+1 || abs[len(base)] != '/' || abs[:len(base)] != base {
		return "", false
	}
	return abs[len(base)+1:], true
}
