package lint

import (
	"strconv"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// The server's static cost limits (validation.StaticEstimatedCostLimit and
// StaticEstimatedCRDCostLimit).
const (
	RuleCostLimit = validation.StaticEstimatedCostLimit
	CRDCostLimit  = validation.StaticEstimatedCRDCostLimit
)

// CELCost is the server's static cost estimate of one expression.
type CELCost struct {
	// Field is the v1 path of the rule or messageExpression.
	Field      string
	Expression string
	// Cost is what the server compares with RuleCostLimit: the
	// expression's estimated maximum cost times the node's cardinality
	// (for rules; messageExpressions are not multiplied).
	Cost uint64
	// Version is the CRD version whose schema holds the rule; Total is the
	// sum of that schema's costs, compared with CRDCostLimit.
	Version string
	Total   uint64
}

// CELCosts estimates every x-kubernetes-validations expression of a CRD
// with the server's own compiler and estimator, in the CRD-creation
// environment. Expressions that do not compile are left out (the server's
// verdict reports them).
func CELCosts(crd *apiextensionsv1.CustomResourceDefinition) []CELCost {
	return celCosts(crd, nil)
}

// celCosts is CELCosts taking the schemas from internal, the CRD already
// converted to the internal type (as ValidateCRD converts it), when set.
func celCosts(crd *apiextensionsv1.CustomResourceDefinition, internal *apiextensions.CustomResourceDefinition) []CELCost {
	var out []CELCost
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	for i := range crd.Spec.Versions {
		s, path := versionSchema(crd, i)
		if s == nil {
			continue
		}
		in := internalSchema(internal, i)
		if in == nil {
			in = &apiextensions.JSONSchemaProps{}
			if apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s, in, nil) != nil {
				continue
			}
		}
		first := len(out)
		var total uint64
		type frame struct {
			s    *apiextensions.JSONSchemaProps
			ctx  *validation.CELSchemaContext
			path string
		}
		stack := []frame{{in, validation.RootCELContext(in), path}}
		for len(stack) > 0 {
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(f.s.XValidations) > 0 {
				for _, c := range compileCosts(f.s, f.ctx, f.path, envSet) {
					c.Version = crd.Spec.Versions[i].Name
					total = addSaturating(total, c.Cost)
					out = append(out, c)
				}
			}
			for _, name := range sortedKeys(f.s.Properties) {
				p := f.s.Properties[name]
				stack = append(stack, frame{&p, f.ctx.ChildPropertyContext(&p, name), f.path + ".properties[" + name + "]"})
			}
			if ap := f.s.AdditionalProperties; ap != nil && ap.Schema != nil {
				stack = append(stack, frame{ap.Schema, f.ctx.ChildAdditionalPropertiesContext(ap.Schema), f.path + ".additionalProperties"})
			}
			if it := f.s.Items; it != nil && it.Schema != nil {
				stack = append(stack, frame{it.Schema, f.ctx.ChildItemsContext(it.Schema), f.path + ".items"})
			}
		}
		for j := first; j < len(out); j++ {
			out[j].Total = total
		}
	}
	return out
}

func compileCosts(s *apiextensions.JSONSchemaProps, ctx *validation.CELSchemaContext, path string, envSet *environment.EnvSet) []CELCost {
	ti, err := ctx.TypeInfo()
	if err != nil || ti == nil {
		return nil
	}
	results, err := cel.Compile(ti.Schema, ti.DeclType, celconfig.PerCallLimit, envSet, cel.NewExpressionsEnvLoader())
	if err != nil {
		return nil
	}
	var out []CELCost
	for i, r := range results {
		rulePath := path + ".x-kubernetes-validations[" + strconv.Itoa(i) + "]"
		if r.Error != nil || r.Program == nil {
			continue
		}
		// As validation.getExpressionCost: the schema's cardinality when
		// bounded, else the compiler's worst case.
		card := r.MaxCardinality
		if ctx.MaxCardinality != nil {
			card = *ctx.MaxCardinality
		}
		out = append(out, CELCost{Field: rulePath + ".rule", Expression: s.XValidations[i].Rule, Cost: mulSaturating(r.MaxCost, card)})
		if r.MessageExpression != nil {
			out = append(out, CELCost{Field: rulePath + ".messageExpression", Expression: s.XValidations[i].MessageExpression, Cost: r.MessageExpressionMaxCost})
		}
	}
	return out
}

func mulSaturating(a, b uint64) uint64 {
	if a != 0 && b > ^uint64(0)/a {
		return ^uint64(0)
	}
	return a * b
}

func addSaturating(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

// internalSchema is version i's schema in the internal CRD: its own, or
// spec.validation, where the conversion puts a schema all versions share.
func internalSchema(internal *apiextensions.CustomResourceDefinition, i int) *apiextensions.JSONSchemaProps {
	if internal == nil || i >= len(internal.Spec.Versions) {
		return nil
	}
	if v := internal.Spec.Versions[i].Schema; v != nil && v.OpenAPIV3Schema != nil {
		return v.OpenAPIV3Schema
	}
	if v := internal.Spec.Validation; v != nil {
		return v.OpenAPIV3Schema
	}
	return nil
}
