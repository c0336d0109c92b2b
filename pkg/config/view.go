package config

import (
	"bytes"
	"fmt"
	"slices"

	yaml "go.yaml.in/yaml/v3"
)

// View renders the settings as a configuration file, for `config view`:
// every key with the value in effect, a comment naming the flag or
// "default" where the file did not set it. Values from the file are as
// written (relative to its directory); values from flags as given
// (relative to the working directory), which the comments say.
func (s *Settings) View() ([]byte, error) {
	c := s.Config
	root := &yaml.Node{Kind: yaml.MappingNode}
	if c.Path != "" {
		root.HeadComment = "Effective configuration: flags over " + c.Path + " over the defaults."
	} else {
		root.HeadComment = "Effective configuration: no configuration file, flags over the defaults."
	}
	add := func(key string, v *yaml.Node, comment string) {
		if len(v.Content) > 0 {
			v.Style = 0 // block lists and mappings; only empty ones flow ([] and {})
		}
		k := str(key)
		if comment != "" && v.Kind == yaml.ScalarNode {
			v.LineComment = comment
		} else if comment != "" {
			k.LineComment = comment
		}
		root.Content = append(root.Content, k, v)
	}
	origin := func(flag string, fromFlag, inFile bool) string {
		switch {
		case fromFlag:
			return "--" + flag
		case inFile:
			return ""
		}
		return "default"
	}

	crds := seq()
	for _, e := range c.CRDs {
		crds.Content = append(crds.Content, str(e.Value))
	}
	for _, v := range s.flags.CRDs {
		n := str(v)
		n.LineComment = "--" + FlagCRD
		crds.Content = append(crds.Content, n)
	}
	add("crds", crds, "")

	excl := seq()
	for _, p := range c.Exclude {
		excl.Content = append(excl.Content, str(p))
	}
	for _, p := range s.flags.Exclude {
		n := str(p)
		n.LineComment = "--" + FlagExclude + " (relative to the working directory)"
		excl.Content = append(excl.Content, n)
	}
	add("exclude", excl, "")

	kinds := seq()
	for _, gk := range s.ConfigKinds {
		kinds.Content = append(kinds.Content, str(gk.String()))
	}
	add("configKinds", kinds, "")

	validate := origin(FlagValidate, s.flags.Validate != nil, c.Validate != "")
	switch {
	case s.flags.Validate == nil && s.flags.Strict != nil:
		validate = fmt.Sprintf("--%s=%t", FlagStrict, *s.flags.Strict)
	case s.flags.Validate == nil && c.Validate == "" && c.Strict != nil:
		validate = fmt.Sprintf("strict: %t", *c.Strict)
	}
	add("validate", str(s.Validate.String()), validate)
	add("failOn", str(s.FailOn.String()), origin(FlagFailOn, s.flags.FailOn != nil, c.FailOn != nil))
	flag := FlagMissingCRDs
	if s.flags.RequireCRDs != nil && *s.flags.RequireCRDs {
		flag = FlagRequireCRDs
	}
	add("missingCRDs", str(string(s.MissingCRDs)), origin(flag, s.flags.MissingCRDs != nil || s.flags.RequireCRDs != nil && *s.flags.RequireCRDs, c.MissingCRDs != ""))

	rules := &yaml.Node{Kind: yaml.MappingNode}
	for _, r := range c.Rules {
		rules.Content = append(rules.Content, str(r.Rule), str(string(r.Level)))
	}
	disabled := make([]string, 0, len(s.Disabled))
	for id := range s.Disabled {
		disabled = append(disabled, id)
	}
	slices.Sort(disabled)
	for _, id := range disabled {
		v := str(string(LevelOff))
		v.LineComment = "--" + FlagDisable
		i := slices.IndexFunc(c.Rules, func(r RuleLevel) bool { return r.Rule == id })
		if i >= 0 {
			rules.Content[2*i+1] = v // the flag wins over the file's level
			continue
		}
		rules.Content = append(rules.Content, str(id), v)
	}
	rules.Style = yaml.FlowStyle
	add("rules", rules, "")

	overrides := seq()
	for _, o := range c.Overrides {
		files := seq()
		files.Style = yaml.FlowStyle
		for _, f := range o.Files {
			files.Content = append(files.Content, str(f))
		}
		rs := &yaml.Node{Kind: yaml.MappingNode}
		for _, r := range o.Rules {
			rs.Content = append(rs.Content, str(r.Rule), str(string(r.Level)))
		}
		overrides.Content = append(overrides.Content, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("files"), files, str("rules"), rs}})
	}
	add("overrides", overrides, "")

	switch {
	case s.flags.Baseline != nil:
		add("baseline", str(*s.flags.Baseline), "--"+FlagBaseline+" (relative to the working directory)")
	case c.Baseline != "":
		add("baseline", str(c.Baseline), "")
	default:
		add("baseline", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, "none")
	}

	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func seq() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle} }
