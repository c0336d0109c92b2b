package diff_test

import (
	"fmt"
	"os"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/diff"
)

func ExampleUnified() {
	before := []byte("kind: Widget\nspec:\n  color: red\n  colour: blue\n  size: 3\n")
	after := []byte("kind: Widget\nspec:\n  color: red\n  size: 3\n")
	changed, err := diff.Unified(os.Stdout, "a/widget.yaml", "b/widget.yaml", before, after, diff.Options{})
	if err != nil {
		panic(err)
	}
	removed, added := diff.Stats(before, after)
	fmt.Println(changed, removed, added)
	// Output:
	// --- a/widget.yaml
	// +++ b/widget.yaml
	// @@ -1,5 +1,4 @@
	//  kind: Widget
	//  spec:
	//    color: red
	// -  colour: blue
	//    size: 3
	// true 1 0
}
