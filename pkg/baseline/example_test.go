package baseline_test

import (
	"fmt"
	"os"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/baseline"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

func Example() {
	old := []report.Finding{
		{Rule: "crd-empty-object", File: "crds/a.yaml", Line: 12, Field: "spec.x", Message: "object without properties"},
		{Rule: "crd-no-pruning", File: "crds/a.yaml", Line: 30, Field: "spec.y", Message: "pruning is disabled"},
	}
	b, _ := baseline.New(".crdlint-baseline.yaml", old, "v0.4.0")

	// Later: the first finding moved down two lines, the second was fixed,
	// and a new one appeared.
	now := []report.Finding{
		{Rule: "crd-empty-object", File: "crds/a.yaml", Line: 14, Field: "spec.x", Message: "object without properties"},
		{Rule: "crd-empty-object", File: "crds/a.yaml", Line: 40, Field: "spec.z", Message: "object without properties"},
	}
	fresh, baselined, stale := b.Match(now)
	fmt.Println("new:", fresh[0].Field)
	fmt.Println("baselined:", baselined[0].Field, "-", baselined[0].Suppression.Reason)
	fmt.Println("stale:", stale[0])

	_ = b.Write(os.Stdout)
	// Output:
	// new: spec.z
	// baselined: spec.x - accepted in .crdlint-baseline.yaml
	// stale: crds/a.yaml: crd-no-pruning: pruning is disabled [spec.y]
	// # kubectl-crdlint baseline: findings accepted as they are.
	// # kubectl crdlint check --baseline FILE reports only the findings not listed
	// # here, and lists the entries that no longer match anything (fixed: delete
	// # them, or rewrite the file with --write-baseline). Entries match by file,
	// # object, rule, field and message, never by line, so edits elsewhere keep
	// # them valid; count is how many identical findings an entry accepts.
	// version: 1
	// tool: v0.4.0
	// entries:
	//   - file: crds/a.yaml
	//     rule: crd-empty-object
	//     field: spec.x
	//     message: object without properties
	//   - file: crds/a.yaml
	//     rule: crd-no-pruning
	//     field: spec.y
	//     message: pruning is disabled
}
