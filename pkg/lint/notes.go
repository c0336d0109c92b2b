package lint

import (
	"fmt"
	"io"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
)

// Notes writes, one line each, why documents of a command that prunes or
// lists (not check, whose findings say it) were left out: a custom
// resource whose kind cannot be served as an error, but a missing CRD as
// the policy m says. It returns how many errors there were; they fail the
// run.
func (m Missing) Notes(w io.Writer, notes []crd.Note) int {
	errs := 0
	for _, n := range notes {
		label, msg := n.Label, n.Msg
		if n.Err != nil {
			label, msg = "error", LookupMessage(n.Err)
			if n.Err.Reason == crd.NoCRD {
				switch m {
				case MissingIgnore:
					continue
				case MissingWarn:
					label = "warning"
				}
			}
		}
		if label == "error" {
			errs++
		}
		fmt.Fprintf(w, "%s: %s: %s\n", n.Pos, label, msg)
	}
	return errs
}
