// Package diff writes the unified diff of two texts, as diff -u and git do,
// optionally coloured for a terminal.
//
// It exists so that kubectl crdlint prune --dry-run can show, file by file,
// what the API server's pruning would drop: the file as written against the
// file as the server would keep it. It knows no Kubernetes, YAML or JSON:
// texts are lines ending at '\n', compared byte for byte.
//
// It leaves to others what is not about the diff itself: reading and naming
// the files (the caller passes the labels, such as "a/deploy.yaml"), deciding
// whether colour is wanted (a terminal, --color, NO_COLOR), writing any
// header of its own such as "diff --git", and turning a diff into an exit
// code. The edit script comes from github.com/aymanbagabas/go-udiff's LCS;
// this package only groups it into hunks and renders them, because that
// library neither colours nor numbers every hunk the way diff does.
//
// Example:
//
//	before, _ := os.ReadFile("widget.yaml")
//	after := prune(before) // the caller's business
//	changed, err := diff.Unified(os.Stdout, "a/widget.yaml", "b/widget.yaml",
//		before, after, diff.Options{Color: isTerminal})
//	removed, added := diff.Stats(before, after)
//
// prints, for one dropped field,
//
//	--- a/widget.yaml
//	+++ b/widget.yaml
//	@@ -4,5 +4,4 @@
//	   name: w
//	 spec:
//	   color: red
//	-  colour: blue
//	   size: 3
//
// with changed true, removed 1 and added 0.
package diff
