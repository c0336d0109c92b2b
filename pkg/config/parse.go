package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/kubeminor"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/editdist"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/remote"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Keys are the top-level keys of a configuration file, in the order the
// documentation and `config view` give them.
var Keys = []string{"crds", "exclude", "configKinds", "validate", "strict", "failOn", "missingCRDs", "rules", "overrides", "baseline", "tests", "kubernetesVersion"}

var overrideKeys = []string{"files", "rules"}

// Parse reads a configuration from data; path names it in findings and
// anchors its relative paths. It never fails: each unknown key, value of
// the wrong type or bad value is a config-invalid finding at its
// position, and the entry is left out of the returned Config. Local
// crds: entries are checked to exist (relative to path's directory).
func Parse(path string, data []byte, rules []report.Rule) (*Config, []report.Finding) {
	c := &Config{Path: path, Dir: filepath.Dir(path)}
	c.setCatalogue(rules)
	p := &parser{c: c, file: path}
	var err error
	if c.exclude, err = NewPatterns(""); err != nil {
		// Every finding has a position: the file's start.
		p.errorf(&yaml.Node{Line: 1, Column: 1}, "", "%v", err)
		return c, p.findings
	}
	root, ok := p.document(data)
	if ok && root != nil {
		p.top(root)
	}
	report.Sort(p.findings)
	return c, p.findings
}

type parser struct {
	c        *Config
	file     string
	findings []report.Finding
}

func (p *parser) errorf(n *yaml.Node, field, format string, args ...any) {
	f := report.Finding{
		Rule: RuleInvalid, Severity: report.Error, File: p.file, Field: field,
		Message: fmt.Sprintf(format, args...),
	}
	if n != nil {
		f.Line, f.Column = n.Line, n.Column
	}
	p.findings = append(p.findings, f)
}

// document decodes the file's one document and returns its root (nil for
// an empty file). ok is false after a syntax error.
func (p *parser) document(data []byte) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, true
		}
		p.syntax(data, err)
		return nil, false
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		at := &next
		if len(next.Content) > 0 {
			at = next.Content[0]
		}
		p.errorf(at, "", "a configuration file holds one YAML document; this is a second one")
	case !errors.Is(err, io.EOF):
		p.syntax(data, err)
	}
	if len(doc.Content) == 0 {
		return nil, true
	}
	return deref(doc.Content[0]), true
}

// syntax reports a YAML syntax error where the source package places it
// (its messages and lines are what kubectl users see for manifests).
func (p *parser) syntax(data []byte, err error) {
	for _, f := range source.Parse(p.file, data).Findings {
		if f.Rule == source.RuleSyntax {
			f.Rule, f.Severity = RuleInvalid, report.Error
			p.findings = append(p.findings, f)
			return
		}
	}
	p.errorf(&yaml.Node{Line: 1, Column: 1}, "", "%s", strings.TrimPrefix(err.Error(), "yaml: "))
}

// deref follows aliases, boundedly (yaml.v3 already refuses cycles).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func isString(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!str"
}

// describe names what a node is, for "must be X, not Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		case "!!bool":
			return "the boolean " + n.Value
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!null":
			return "null"
		}
		return fmt.Sprintf("%s %q", n.Tag, n.Value)
	}
	return "an alias"
}

// pairs iterates over a mapping's key-value pairs, reporting keys that
// are not plain strings, merge keys and repeated keys.
func (p *parser) pairs(m *yaml.Node, field string, fn func(key string, k, v *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := deref(m.Content[i]), deref(m.Content[i+1])
		switch {
		case k.Kind == yaml.ScalarNode && k.Tag == "!!merge":
			p.errorf(k, field, "merge keys (<<) are not supported in the configuration")
			continue
		case !isString(k):
			p.errorf(k, field, "keys must be strings, not %s", describe(k))
			continue
		}
		if line, dup := seen[k.Value]; dup {
			p.errorf(k, join(field, k.Value), "duplicate key %q (first at line %d)", k.Value, line)
			continue
		}
		seen[k.Value] = k.Line
		fn(k.Value, k, v)
	}
}

// join is field's child key in the findings' one notation: a key that
// is not a plain name quoted (rules["a.b"]).
func join(field, key string) string {
	seg := source.JoinPath([]source.Segment{{Name: key}})
	if field == "" || strings.HasPrefix(seg, "[") {
		return field + seg
	}
	return field + "." + seg
}

func index(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

func (p *parser) top(root *yaml.Node) {
	if isNull(root) {
		return
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(root, "", "the configuration must be a mapping of %s, not %s", strings.Join(Keys, ", "), describe(root))
		return
	}
	c := p.c
	var strictAt *yaml.Node
	p.pairs(root, "", func(key string, k, v *yaml.Node) {
		switch key {
		case "crds":
			p.crds(v)
		case "exclude":
			for _, it := range p.strings(v, key) {
				pat, err := ParsePattern(it.Value)
				if err != nil {
					p.errorf(it.Node, it.field, "%v", err)
					continue
				}
				c.Exclude = append(c.Exclude, it.Value)
				c.exclude.add(c.Dir, pat)
			}
		case "configKinds":
			for _, it := range p.strings(v, key) {
				gk, err := ParseConfigKind(it.Value)
				if err != nil {
					p.errorf(it.Node, it.field, "%v", err)
					continue
				}
				c.ConfigKinds = append(c.ConfigKinds, gk)
			}
		case "strict":
			if isNull(v) {
				return
			}
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
				p.errorf(v, key, "strict must be true or false, not %s", describe(v))
				return
			}
			var b bool
			if err := v.Decode(&b); err != nil { // True and TRUE are YAML 1.2 booleans too
				p.errorf(v, key, "strict must be true or false, not %s", describe(v))
				return
			}
			c.Strict, strictAt = &b, v
		case "validate":
			if isNull(v) {
				return
			}
			// kubectl's values: strict, warn, ignore, and the booleans
			// (true is strict, false ignore), quoted or not.
			if v.Kind == yaml.ScalarNode && (v.Tag == "!!str" || v.Tag == "!!bool" || v.Tag == "!!int") {
				if d, err := fieldvalidation.Parse(v.Value); err == nil {
					c.Validate = d
					return
				}
			}
			p.errorf(v, key, "validate must be strict (or true), warn or ignore (or false), as kubectl's --validate, not %s", describe(v))
		case "failOn":
			if isNull(v) {
				return
			}
			if sev, ok := map[string]report.Severity{"error": report.Error, "warning": report.Warning, "none": report.None}[v.Value]; ok && isString(v) {
				c.FailOn = &sev
				return
			}
			p.errorf(v, key, "failOn must be error, warning or none, not %s", describe(v))
		case "missingCRDs":
			if isNull(v) {
				return
			}
			switch {
			case isString(v) && (v.Value == "error" || v.Value == "warn" || v.Value == "ignore"):
				c.MissingCRDs = MissingCRDs(v.Value)
			case isString(v) && v.Value == "warning":
				c.MissingCRDs = MissingWarn
			default:
				p.errorf(v, key, "missingCRDs must be error, warn or ignore, not %s", describe(v))
			}
		case "rules":
			c.Rules = p.rules(v, key)
		case "overrides":
			p.overrides(v)
		case "baseline":
			if isNull(v) {
				return
			}
			if !isString(v) || v.Value == "" {
				p.errorf(v, key, "baseline must be a file name, not %s", describe(v))
				return
			}
			c.Baseline = v.Value
		case "kubernetesVersion", "kubernetesVersions":
			c.KubernetesVersions = p.kubernetesVersions(v, key)
		case "tests":
			for _, it := range p.strings(v, "tests") {
				t, _, _ := configPath(c.Dir, it.Value)
				c.Tests = append(c.Tests, t)
			}
		default:
			p.errorf(k, key, "unknown key %q%s; the keys are %s", key, suggest(key, Keys), strings.Join(Keys, ", "))
		}
	})
	if c.Strict != nil && c.Validate != "" && fieldvalidation.Of(*c.Strict) != c.Validate {
		// Two answers to one question: validate: is the current key.
		p.errorf(strictAt, "strict", "strict: %t means validate: %s, but validate: is %s; remove strict:", *c.Strict, fieldvalidation.Of(*c.Strict), c.Validate)
		c.Strict = nil
	}
}

// ParseConfigKind reads one configKinds entry: "Kind.group" as
// apimachinery prints a GroupKind ("Configuration.config.example.com";
// "Kind" alone for the core group), or "*.group" for every kind of a
// group (Kind "*").
func ParseConfigKind(s string) (schema.GroupKind, error) {
	const want = "want Kind.group (e.g. Configuration.config.example.com) or *.group"
	if strings.TrimSpace(s) != s || s == "" || strings.ContainsAny(s, "/ \t") {
		return schema.GroupKind{}, fmt.Errorf("%q: %s", s, want)
	}
	gk := schema.ParseGroupKind(s)
	switch {
	case gk.Kind == "*" && gk.Group != "" && !strings.Contains(gk.Group, "*"):
		return gk, nil
	case gk.Kind == "" || strings.Contains(s, "*"):
		return schema.GroupKind{}, fmt.Errorf("%q: %s", s, want)
	case gk.Kind[0] < 'A' || gk.Kind[0] > 'Z':
		return schema.GroupKind{}, fmt.Errorf("%q: a kind starts with an upper-case letter: %s", s, want)
	}
	return gk, nil
}

// item is a string list entry with its position and field path.
type item struct {
	*yaml.Node
	field string
}

// strings reads a list of non-empty strings; null is an empty list.
func (p *parser) strings(v *yaml.Node, field string) []item {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		p.errorf(v, field, "%s must be a list of strings, not %s", field, describe(v))
		return nil
	}
	var out []item
	for i, e := range v.Content {
		e = deref(e)
		f := index(field, i)
		switch {
		case !isString(e):
			p.errorf(e, f, "%s entries must be strings, not %s", field, describe(e))
		case strings.TrimSpace(e.Value) == "":
			p.errorf(e, f, "%s entries must not be empty", field)
		default:
			out = append(out, item{e, f})
		}
	}
	return out
}

func (p *parser) crds(v *yaml.Node) {
	c := p.c
	for _, it := range p.strings(v, "crds") {
		e := CRDEntry{Value: it.Value, Pos: source.Pos{Line: it.Line, Column: it.Column}}
		if remote.IsURL(it.Value) {
			src, err := remote.ParseSource(it.Value)
			if err != nil {
				p.errorf(it.Node, it.field, "%s: %v", it.Value, err)
				continue
			}
			e.URL = &src
			c.CRDs = append(c.CRDs, e)
			continue
		}
		// An absolute path is used as given; a relative one is relative
		// to the file's directory.
		e.Path, e.base, e.rel = configPath(c.Dir, it.Value)
		if strings.ContainsAny(it.Value, "*?[") {
			pat, err := parsePattern(e.rel, true)
			if err != nil {
				p.errorf(it.Node, it.field, "%s: %v", it.Value, err)
				continue
			}
			if pat.Negate || pat.DirOnly {
				p.errorf(it.Node, it.field, "%s: crds globs cannot start with \"!\" or end with \"/\"", it.Value)
				continue
			}
			e.Glob, e.glob = true, pat
		} else if _, err := os.Stat(e.Path); err != nil {
			msg := "no such file or directory"
			if !errors.Is(err, os.ErrNotExist) {
				msg = err.Error()
			}
			if e.base == c.Dir {
				msg += " (relative to " + c.Dir + ")"
			}
			p.errorf(it.Node, it.field, "%s: %s", it.Value, msg)
			continue
		}
		c.CRDs = append(c.CRDs, e)
	}
}

// rules reads a mapping of rule IDs to levels.
func (p *parser) rules(v *yaml.Node, field string) []RuleLevel {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		p.errorf(v, field, "%s must be a mapping of rule IDs to error, warning or off, not %s", field, describe(v))
		return nil
	}
	ids := make([]string, 0, len(p.c.defaults))
	for id := range p.c.defaults {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []RuleLevel
	p.pairs(v, field, func(id string, k, lv *yaml.Node) {
		f := join(field, id)
		def, known := p.c.defaults[id]
		if !known {
			p.errorf(k, f, "unknown rule %q%s (kubectl crdlint check --list-rules lists them)", id, suggest(id, ids))
			return
		}
		lvl := Level(lv.Value)
		if !isString(lv) || lvl != LevelError && lvl != LevelWarning && lvl != LevelOff {
			p.errorf(lv, f, "%s must be error, warning or off, not %s", id, describe(lv))
			return
		}
		if def == report.Error && lvl == LevelWarning {
			p.errorf(lv, f, "%s means the API server rejects the object: it can be off, not a warning", id)
			return
		}
		out = append(out, RuleLevel{Rule: id, Level: lvl})
	})
	return out
}

func (p *parser) overrides(v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		p.errorf(v, "overrides", "overrides must be a list of {files, rules}, not %s", describe(v))
		return
	}
	for i, e := range v.Content {
		e = deref(e)
		field := index("overrides", i)
		if e.Kind != yaml.MappingNode {
			p.errorf(e, field, "an override must be a mapping with files and rules, not %s", describe(e))
			continue
		}
		o := Override{files: &Patterns{wd: p.c.exclude.wd}}
		hasFiles, hasRules := false, false
		p.pairs(e, field, func(key string, k, v *yaml.Node) {
			switch key {
			case "files":
				hasFiles = true
				items := p.strings(v, join(field, key))
				if isNull(v) || v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
					p.errorf(v, join(field, key), "files must list at least one pattern")
				}
				for _, it := range items {
					pat, err := ParsePattern(it.Value)
					if err != nil {
						p.errorf(it.Node, it.field, "%v", err)
						continue
					}
					o.Files = append(o.Files, it.Value)
					o.files.add(p.c.Dir, pat)
				}
			case "rules":
				hasRules = true
				if isNull(v) || v.Kind == yaml.MappingNode && len(v.Content) == 0 {
					p.errorf(v, join(field, key), "rules must name at least one rule")
				}
				o.Rules = p.rules(v, join(field, key))
			default:
				p.errorf(k, join(field, key), "unknown key %q in an override%s; the keys are files and rules", key, suggest(key, overrideKeys))
			}
		})
		if !hasFiles {
			p.errorf(e, field, "an override needs files: the patterns it applies to")
		}
		if !hasRules {
			p.errorf(e, field, "an override needs rules: what it changes")
		}
		// An override with some bad patterns applies where the good ones
		// say (the bad ones are findings); one with none applies nowhere.
		if len(o.Files) > 0 && len(o.Rules) > 0 {
			p.c.Overrides = append(p.c.Overrides, o)
		}
	}
}

// suggest returns ` (did you mean "x"?)` for the known names close enough
// to be a typo (editdist.Closest: the rule of every "did you mean"),
// closest first, or "".
func suggest(s string, known []string) string {
	close := editdist.Closest(s, known)
	if len(close) == 0 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", editdist.OrList(editdist.Quoted(close)))
}

// kubernetesVersions reads kubernetesVersion: or kubernetesVersions:, a
// minor, a range or a list as --kubernetes-version takes them, or a YAML
// list of those.
func (p *parser) kubernetesVersions(v *yaml.Node, key string) []string {
	if isNull(v) {
		return nil
	}
	var specs []*yaml.Node
	switch {
	case v.Kind == yaml.SequenceNode:
		specs = v.Content
	default:
		specs = []*yaml.Node{v}
	}
	var out []string
	for _, s := range specs {
		// 1.35 is a YAML number: its text is the minor all the same.
		if s.Kind != yaml.ScalarNode || (s.Tag != "!!str" && s.Tag != "!!float") {
			p.errorf(s, key, "%s must be a Kubernetes minor such as %s, a range such as %s-%s, or a list of them, not %s", key, kubeminor.Newest(), kubeminor.Supported[0].Minor, kubeminor.Newest(), describe(s))
			return nil
		}
		m, err := kubeminor.Parse(s.Value)
		if err != nil {
			p.errorf(s, key, "%v", err)
			return nil
		}
		out = append(out, m...)
	}
	m, _ := kubeminor.Parse(strings.Join(out, ","))
	return m
}
