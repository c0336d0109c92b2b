package immutable

import (
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Translation is one CRD of a file through ToCEL: the translated CRD as
// YAML, or Err, why it cannot be translated.
type Translation struct {
	Doc  *source.Document
	YAML []byte
	Err  error
}

// ToCELFile translates each CRD of a parsed file with ToCEL, in document
// order; other documents are left out. A CRD without markers comes out
// unchanged in meaning. An error ends it, with the translations before.
func ToCELFile(f *source.File) ([]Translation, error) {
	var out []Translation
	for _, d := range f.Documents {
		if !crd.IsCRD(d) {
			continue
		}
		j, err := ToCEL(d.JSON)
		if err != nil {
			out = append(out, Translation{Doc: d, Err: err})
			continue
		}
		y, err := sigsyaml.JSONToYAML(j)
		if err != nil {
			return out, err
		}
		out = append(out, Translation{Doc: d, YAML: y})
	}
	return out, nil
}
