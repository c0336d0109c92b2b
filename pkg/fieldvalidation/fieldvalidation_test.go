package fieldvalidation

import (
	"testing"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestParse pins kubectl's --validate values (k8s.io/kubectl/pkg/cmd/util
// GetValidationDirective): strconv.ParseBool's spellings first, then the
// three names in lower case only, and kubectl's error for anything else.
func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Directive
		ok   bool
	}{
		{"strict", Strict, true},
		{"warn", Warn, true},
		{"ignore", Ignore, true},
		{"true", Strict, true}, {"True", Strict, true}, {"TRUE", Strict, true}, {"t", Strict, true}, {"T", Strict, true}, {"1", Strict, true},
		{"false", Ignore, true}, {"False", Ignore, true}, {"FALSE", Ignore, true}, {"f", Ignore, true}, {"F", Ignore, true}, {"0", Ignore, true},
		{"Strict", Strict, false}, {"WARN", Strict, false}, {"yes", Strict, false}, {"no", Strict, false},
		{"", Strict, false}, {" strict", Strict, false}, {"warning", Strict, false},
	} {
		got, err := Parse(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("Parse(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if !tt.ok && err != nil {
			want := `invalid - validate option "` + tt.in + `"; must be one of: strict (or true), warn, ignore (or false)`
			if err.Error() != want {
				t.Errorf("Parse(%q): %q, want kubectl's %q", tt.in, err, want)
			}
		}
	}
}

// TestMeaning: the zero value is the server's default (Warn); each
// directive's query parameter is the server's constant.
func TestMeaning(t *testing.T) {
	for _, tt := range []struct {
		d                Directive
		param            string
		refuses, reports bool
		name             string
	}{
		{Strict, metav1.FieldValidationStrict, true, true, "strict"},
		{Warn, metav1.FieldValidationWarn, false, true, "warn"},
		{Ignore, metav1.FieldValidationIgnore, false, false, "ignore"},
		{"", metav1.FieldValidationWarn, false, true, "warn"},
	} {
		if tt.d.QueryParam() != tt.param || tt.d.Refuses() != tt.refuses || tt.d.Reports() != tt.reports || tt.d.String() != tt.name {
			t.Errorf("%q: QueryParam %q Refuses %v Reports %v String %q; want %q %v %v %q", tt.d,
				tt.d.QueryParam(), tt.d.Refuses(), tt.d.Reports(), tt.d.String(), tt.param, tt.refuses, tt.reports, tt.name)
		}
	}
	if Of(true) != Strict || Of(false) != Warn {
		t.Errorf("Of: %q %q", Of(true), Of(false))
	}
}

// TestFlag: bound as kubectl binds --validate (NoOptDefVal "strict"),
// the flag alone is strict and a value needs "=".
func TestFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want Directive
		rest int
	}{
		{nil, Strict, 0},
		{[]string{"--validate"}, Strict, 0},
		{[]string{"--validate=warn"}, Warn, 0},
		{[]string{"--validate=false"}, Ignore, 0},
		{[]string{"--validate", "warn"}, Strict, 1}, // as kubectl: "warn" is an argument
	} {
		d := Default
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.Var(Flag{D: &d}, "validate", "")
		fs.Lookup("validate").NoOptDefVal = string(Strict)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if d != tt.want || fs.NArg() != tt.rest {
			t.Errorf("%q: %q with %d arguments, want %q with %d", tt.args, d, fs.NArg(), tt.want, tt.rest)
		}
	}
	d := Default
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Var(Flag{D: &d}, "validate", "")
	if err := fs.Parse([]string{"--validate=on"}); err == nil {
		t.Errorf("--validate=on: no error")
	}
}
