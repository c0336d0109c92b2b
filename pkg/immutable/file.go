package immutable

import (
	"fmt"

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
		if !crd.IsV1CRD(d) {
			// No supported server serves it (v1beta1 went in 1.22), so
			// there is nothing to translate for: said plainly, not as
			// the decoder's Go type.
			out = append(out, Translation{Doc: d, Err: fmt.Errorf("no matches for kind \"CustomResourceDefinition\" in version %q: --to-cel translates apiextensions.k8s.io/v1 CRDs, the only version supported servers serve; convert it to v1 first", d.Object.APIVersion)})
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
