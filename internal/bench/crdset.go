package bench

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// ExpandCRDs makes a CRD set of total CRDs: the given CRD files unchanged
// (so the workload's own CRDs are among them) and copies of their CRDs
// under new group names, one a file, until there are total. Copy i is CRD
// i mod n of the corpus's distinct CRDs with the label "x<round>." (round = i/n + 1) put
// before its group: a label of its own, as lengthening the first one could
// pass 63 characters. A new group is a new API, so no copy serves a kind
// the workload uses, and a tool that loads only what it needs should not
// care how many there are. metadata.name must be <plural>.<group>, so it
// is renamed with the group.
//
// There is no PRNG: the copies follow the corpus's order, and YAML is
// written with sorted keys, so the same files give the same bytes. It
// returns the files and the number of CRDs in them.
func ExpandCRDs(files []NamedFile, total int) ([]NamedFile, int, error) {
	var crds []map[string]any
	n := 0 // every CRD, for the count; crds holds one per name
	seen := map[string]bool{}
	for _, f := range files {
		docs, err := splitDocs(f.Data)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", f.Name, err)
		}
		for _, d := range docs {
			if d["kind"] != "CustomResourceDefinition" {
				continue
			}
			n++
			// The corpus defines some CRDs twice (gateway-api's standard
			// and experimental channels); their copies would clash.
			md, _ := d["metadata"].(map[string]any)
			if name, _ := md["name"].(string); !seen[name] {
				seen[name] = true
				crds = append(crds, d)
			}
		}
	}
	if len(crds) == 0 {
		return nil, 0, fmt.Errorf("no CRD to copy")
	}
	out := append([]NamedFile(nil), files...)
	for i := 0; n+i < total; i++ {
		round, src := i/len(crds)+1, crds[i%len(crds)]
		c := deepCopy(src).(map[string]any)
		spec, _ := c["spec"].(map[string]any)
		names, _ := spec["names"].(map[string]any)
		group, _ := spec["group"].(string)
		plural, _ := names["plural"].(string)
		if group == "" || plural == "" {
			return nil, 0, fmt.Errorf("CRD %v has no group or plural", c["metadata"])
		}
		group = fmt.Sprintf("x%d.%s", round, group)
		spec["group"] = group
		md, _ := c["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			c["metadata"] = md
		}
		md["name"] = plural + "." + group
		// What a cluster wrote about the original is not about the copy.
		delete(c, "status")
		b, err := yaml.Marshal(c)
		if err != nil {
			return nil, 0, err
		}
		name := strings.NewReplacer(".", "_").Replace(md["name"].(string))
		out = append(out, NamedFile{Name: fmt.Sprintf("zz-copy-%04d-%s.yaml", i, name), Data: b})
	}
	return out, max(total, n), nil
}
