package input

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// chainsawTestNames are the names chainsaw reads a test from by default
// (its --test-file, chainsaw-test, with .yaml or .yml).
var chainsawTestNames = []string{"chainsaw-test.yaml", "chainsaw-test.yml"}

// chainsawChecks are the operations of a chainsaw test step whose file
// holds no objects to apply: assert (the state to wait for) and error
// (a state that fails the test). apply, create, update, patch and delete
// name manifests, which stay judged.
var chainsawChecks = map[string]bool{"assert": true, "error": true}

// maxTestFile bounds the size of a chainsaw test read for the files it
// names: a test is a page of steps.
const maxTestFile = 4 << 20

// chainsawAssertions reads the chainsaw tests of dir, if any, and lists
// the files their steps assert or forbid (an assert: or error: operation
// with a file:, in try, catch, finally or cleanup), as absolute paths,
// globs expanded. Such a file holds expected states: partial objects
// (a status alone), JMESPath keys and bindings (($test.metadata.name)),
// not manifests. A file: that is an expression or a URL names nothing
// here. A test chainsaw could not read names nothing either.
func chainsawAssertions(dir string) []string {
	var out []string
	for _, name := range chainsawTestNames {
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() || st.Size() > maxTestFile {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, f := range chainsawFiles(data) {
			out = append(out, resolve(dir, f)...)
		}
	}
	return out
}

// chainsawFiles are the file: values of the assert: and error:
// operations of the chainsaw Tests in data.
func chainsawFiles(data []byte) []string {
	var out []string
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			break // what follows cannot be read either
		}
		av, _ := doc["apiVersion"].(string)
		if !strings.HasPrefix(av, "chainsaw.kyverno.io/") || doc["kind"] != "Test" {
			continue
		}
		walkChecks(doc["spec"], &out)
	}
	return out
}

// walkChecks adds to out the file: of every check operation under v.
func walkChecks(v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if op, ok := x.(map[string]any); ok && chainsawChecks[k] {
				if f, ok := op["file"].(string); ok && f != "" {
					*out = append(*out, f)
				}
			}
			walkChecks(x, out)
		}
	case []any:
		for _, x := range v {
			walkChecks(x, out)
		}
	}
}

// resolve is the files a chainsaw file: names, relative to the test's
// directory: a path, or a glob's matches. Expressions ("($file)") and
// URLs name no file of the repository.
func resolve(dir, f string) []string {
	if strings.HasPrefix(f, "(") || strings.Contains(f, "://") {
		return nil
	}
	p := filepath.FromSlash(f)
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if strings.ContainsAny(f, "*?[") {
		matches, _ := filepath.Glob(p)
		return matches
	}
	return []string{filepath.Clean(p)}
}
