package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// callScript sources hack/action/run.sh (its main does not run when
// sourced) and runs the shell code with the arguments; it returns stdout
// and whether the code succeeded.
func callScript(t *testing.T, code, stdin string, args ...string) (string, bool) {
	t.Helper()
	script := filepath.Join(repoRoot, "hack", "action", "run.sh")
	// $0 is not the script: run.sh runs main when $0 names it.
	cmd := exec.Command("bash", append([]string{"-c", `source "$RUN_SH"; ` + code, "bash"}, args...)...)
	mustLookPath(t, "bash")
	cmd.Env = append(baseEnv(), "PATH="+os.Getenv("PATH"), "RUN_SH="+script)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return string(out), err == nil
}

func mustLookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not on PATH: the action's steps are %s scripts", name, name)
	}
	return p
}

// items runs a splitter and returns the items it set.
func items(t *testing.T, fn, input string) ([]string, bool) {
	t.Helper()
	out, ok := callScript(t, fn+` "$1" || exit 1; for i in ${ITEMS[@]+"${ITEMS[@]}"}; do printf '%s\0' "$i"; done`, "", input)
	if !ok {
		return nil, false
	}
	list := strings.Split(out, "\x00")
	return list[:len(list)-1], true
}

// TestSplitList pins how paths and crds are split: several lines give one
// item each (spaces kept), one line splits on blanks, nothing is globbed,
// and quotes on one line are refused rather than kept literally.
func TestSplitList(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // nil: refused
	}{
		{"one", "config/", []string{"config/"}},
		{"blanks on one line", " a  b\tc ", []string{"a", "b", "c"}},
		{"lines keep spaces", "my dir\n  other dir  \n\nlast", []string{"my dir", "other dir", "last"}},
		{"CRLF lines", "a b\r\nc\r\n", []string{"a b", "c"}},
		{"no globbing", "*.yaml", []string{"*.yaml"}},
		{"no expansion", "$HOME ~ $(id)", []string{"$HOME", "~", "$(id)"}},
		{"empty", "", []string{}},
		{"double quotes on one line", `"my dir"`, nil},
		{"single quotes on one line", `'my dir'`, nil},
		{"quotes on a line of their own are literal", "it's\nhere", []string{"it's", "here"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := items(t, "split_list", tt.input)
			if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
				t.Errorf("split_list %q: got %q (ok %v), want %q", tt.input, got, ok, tt.want)
			}
		})
	}
}

// TestSplitWords pins how args is split: as a shell splits words, with
// quotes and backslashes, and without any expansion.
func TestSplitWords(t *testing.T) {
	tests := []struct {
		input string
		want  []string // nil: refused
	}{
		{"--strict", []string{"--strict"}},
		{"--strict  --disable\tcr-schema\n--fail-on=warning", []string{"--strict", "--disable", "cr-schema", "--fail-on=warning"}},
		{`--baseline "my file.json"`, []string{"--baseline", "my file.json"}},
		{`--baseline 'my "file".json'`, []string{"--baseline", `my "file".json`}},
		{`a\ b c\\d`, []string{"a b", `c\d`}},
		{`"a\"b" "c\d"`, []string{`a"b`, `c\d`}},
		{`''`, []string{""}},
		{`$HOME $(id) *`, []string{"$HOME", "$(id)", "*"}},
		{"", []string{}},
		{`"open`, nil},
		{`'open`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			got, ok := items(t, "split_words", tt.input)
			if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
				t.Errorf("split_words %q: got %q (ok %v), want %q", tt.input, got, ok, tt.want)
			}
		})
	}
}

// TestRebase pins how findings are renamed from the working directory to
// the repository root: escaped as each format escapes, ../ resolved,
// absolute names and stdin left alone.
func TestRebase(t *testing.T) {
	tests := []struct {
		name, fn, prefix, in, want string
	}{
		{
			name: "annotation", fn: "rebase_github", prefix: "deploy",
			in:   "::error file=crs/a.yaml,line=3,col=1,title=cr-schema::Widget a: bad, really: bad\n",
			want: "::error file=deploy/crs/a.yaml,line=3,col=1,title=cr-schema::Widget a: bad, really: bad\n",
		},
		{
			name: "annotation prefix escaped as a property", fn: "rebase_github", prefix: "a dir,x:y/100%",
			in:   "::warning file=b.yaml,line=1::m\n",
			want: "::warning file=a dir%2Cx%3Ay/100%25/b.yaml,line=1::m\n",
		},
		{
			name: "annotation ../ resolved", fn: "rebase_github", prefix: "a/b",
			in:   "::error file=../../c.yaml,line=1::m\n::error file=../c.yaml,line=1::m\n",
			want: "::error file=c.yaml,line=1::m\n::error file=a/c.yaml,line=1::m\n",
		},
		{
			name: "annotation absolute and stdin kept", fn: "rebase_github", prefix: "a",
			in:   "::error file=/abs/c.yaml,line=1::m\n::error file=C%3A/c.yaml,line=1::m\n::error file=<stdin>,line=1::m\nplain log line\n",
			want: "::error file=/abs/c.yaml,line=1::m\n::error file=C%3A/c.yaml,line=1::m\n::error file=<stdin>,line=1::m\nplain log line\n",
		},
		{
			name: "no prefix: unchanged", fn: "rebase_github", prefix: "",
			in:   "::error file=../c.yaml,line=1::m\n",
			want: "::error file=../c.yaml,line=1::m\n",
		},
		{
			name: "SARIF uri", fn: "rebase_sarif", prefix: "my dir/x",
			in:   "{\n  \"uri\": \"crs/a%20b.yaml\"\n}\n",
			want: "{\n  \"uri\": \"my%20dir/x/crs/a%20b.yaml\"\n}\n",
		},
		{
			name: "SARIF compact, ./ and ../", fn: "rebase_sarif", prefix: "a/b",
			in:   `{"uri":"./c.yaml"},{"uri":"../d.yaml"}` + "\n",
			want: `{"uri":"a/b/c.yaml"},{"uri":"a/d.yaml"}` + "\n",
		},
		{
			name: "SARIF absolute, stdin and message text kept", fn: "rebase_sarif", prefix: "a",
			in:   `{"uri": "file:///abs/c.yaml"},{"uri": "\u003cstdin\u003e"},{"text": "the \"uri\": \"x\" field"}` + "\n",
			want: `{"uri": "file:///abs/c.yaml"},{"uri": "\u003cstdin\u003e"},{"text": "the \"uri\": \"x\" field"}` + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := callScript(t, tt.fn+` "$1"`, tt.in, tt.prefix)
			if !ok || got != tt.want {
				t.Errorf("%s %q:\n got %q\nwant %q", tt.fn, tt.prefix, got, tt.want)
			}
		})
	}
}

// TestFindingsTable checks the job summary's table of findings: messages
// unescaped, Markdown table syntax and HTML escaped, rows capped.
func TestFindingsTable(t *testing.T) {
	in := "::error file=a%2Cb.yaml,line=3,col=1,title=crd-cel::x | y <input>:1 100%25 done%0Anext\n" +
		"not an annotation\n" +
		"::warning file=c.yaml,line=4,col=2,title=unknown-field::z\n" +
		"::warning file=d.yaml,title=yaml-syntax::w\n"
	tests := []struct {
		max  string
		want string
	}{
		{"10", "| severity | where | rule | finding |\n| --- | --- | --- | --- |\n" +
			"| error | `a,b.yaml:3` | crd-cel | x \\| y &lt;input>:1 100% done next |\n" +
			"| warning | `c.yaml:4` | unknown-field | z |\n" +
			"| warning | `d.yaml` | yaml-syntax | w |\n"},
		{"1", "| severity | where | rule | finding |\n| --- | --- | --- | --- |\n" +
			"| error | `a,b.yaml:3` | crd-cel | x \\| y &lt;input>:1 100% done next |\n" +
			"\n2 more findings are in the log.\n"},
	}
	for _, tt := range tests {
		t.Run("max "+tt.max, func(t *testing.T) {
			got, ok := callScript(t, `findings_table /dev/stdin "$1"`, in, tt.max)
			if !ok || got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
