package upgrade

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

func TestScratchReplay(t *testing.T) {
	old := readCRD(t, "../../examples/upgrade/widget-v1.yaml")
	new := readCRD(t, "../../examples/upgrade/widget-v2.yaml")
	data, _ := os.ReadFile("../../examples/upgrade/objects.yaml")
	r := NewReplayer(old.crd, new.crd, Options{})
	for _, d := range source.Parse("objects.yaml", data).Documents {
		var o map[string]any
		json.Unmarshal(d.JSON, &o)
		res := r.Replay(o, false)
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Println(string(b))
	}
	for _, c := range r.Changes() {
		fmt.Println(c.Severity, c.Rule, c.Message)
	}
	fmt.Printf("%+v\n", r.Summary())
}
