// Package fieldvalidation is what a request asks the API server to do with
// fields it does not know: the fieldValidation query parameter, as
// kubectl's --validate flag sets it.
//
// The server decodes every create and update body with its strict decoder
// under Strict and Warn, and without it under Ignore
// (k8s.io/apiserver/pkg/endpoints/handlers: create.go, update.go):
//
//   - Strict: an unknown field (one the schema prunes, or a misspelt key
//     of a CustomResourceDefinition) ends the request with 400 Bad Request
//     before validation runs;
//   - Warn: each unknown field is a Warning header, and the request goes on
//     with the field dropped (the server's default when a client names no
//     directive);
//   - Ignore: the field is dropped silently.
//
// kubectl apply, create and replace send Strict unless told otherwise
// (--validate, default "strict"). They never send a repeated key: kubectl
// decodes each manifest into a map before sending it, so the last value
// of a repeated key wins on the client (k8s.io/cli-runtime's builder and
// k8s.io/apimachinery's YAMLOrJSONDecoder), and the server's duplicate
// field errors are never reached from kubectl.
package fieldvalidation

import (
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Directive is a field validation directive, spelt as kubectl's --validate
// and .crdlint.yaml's validate: spell it. The zero value is Warn: what the
// server does for a request that names no directive.
type Directive string

const (
	Strict Directive = "strict"
	Warn   Directive = "warn"
	Ignore Directive = "ignore"
)

// Default is kubectl's default, and crdlint's.
const Default = Strict

// Names are the directives' names, for help texts and completion.
var Names = []string{string(Strict), string(Warn), string(Ignore)}

// Parse reads a --validate value as kubectl does
// (k8s.io/kubectl/pkg/cmd/util GetValidationDirective): whatever
// strconv.ParseBool takes (true, false, 1, 0, t, F, TRUE, ...) is Strict
// when true and Ignore when false; otherwise exactly "strict", "warn" or
// "ignore", in lower case. Its error is kubectl's.
func Parse(s string) (Directive, error) {
	if b, err := strconv.ParseBool(s); err == nil {
		if b {
			return Strict, nil
		}
		return Ignore, nil
	}
	switch d := Directive(s); d {
	case Strict, Warn, Ignore:
		return d, nil
	}
	return Strict, fmt.Errorf("invalid - validate option %q; must be one of: strict (or true), warn, ignore (or false)", s)
}

// Of is the directive the older --strict flag and strict: key mean: true
// is Strict, false is Warn, which is what unknown fields were before
// --validate existed (warnings).
func Of(strict bool) Directive {
	if strict {
		return Strict
	}
	return Warn
}

// or is d with the zero value read as Warn.
func (d Directive) or() Directive {
	if d == "" {
		return Warn
	}
	return d
}

// QueryParam is the directive as the server's fieldValidation query
// parameter spells it.
func (d Directive) QueryParam() string {
	switch d.or() {
	case Strict:
		return metav1.FieldValidationStrict
	case Ignore:
		return metav1.FieldValidationIgnore
	}
	return metav1.FieldValidationWarn
}

// Refuses says an unknown field fails the request (400) before the
// server validates anything.
func (d Directive) Refuses() bool { return d.or() == Strict }

// Reports says unknown fields are worth a finding at all: the server
// refuses them or warns about them. Under Ignore it drops them silently,
// and so do the findings (prune still shows what is dropped).
func (d Directive) Reports() bool { return d.or() != Ignore }

// String is the directive's name ("warn" for the zero value).
func (d Directive) String() string { return string(d.or()) }

// Flag is a --validate flag (a pflag.Value): kubectl's values, and
// "strict" when the flag is given without one, as kubectl's NoOptDefVal.
type Flag struct{ D *Directive }

func (f Flag) String() string {
	if f.D == nil {
		return string(Default)
	}
	return f.D.String()
}

func (f Flag) Set(s string) error {
	d, err := Parse(s)
	if err != nil {
		return err
	}
	*f.D = d
	return nil
}

func (Flag) Type() string { return "string" }
