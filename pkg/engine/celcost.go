package engine

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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
// environment, compiling each distinct rule node once; cache (nil for one
// of its own) shares compilations across the CRDs of a run. Expressions
// that do not compile are left out (the server's verdict reports them).
func CELCosts(crd *apiextensionsv1.CustomResourceDefinition, cache *CostCache) []CELCost {
	if cache == nil {
		cache = NewCostCache()
	}
	return celCosts(crd, nil, cache)
}

// celCosts is CELCosts taking the schemas from internal, the CRD already
// converted to the internal type (as validateCreate converts it), when set.
//
// Versions whose schemas are identical cost the same, so each distinct
// schema is compiled once: compiling is most of a CRD lint's time, and
// multi-version CRDs usually repeat one schema (the conversion then hoists
// it to spec.validation, so the versions share one pointer).
func celCosts(crd *apiextensionsv1.CustomResourceDefinition, internal *apiextensions.CustomResourceDefinition, cache *CostCache) []CELCost {
	var out []CELCost
	envSet := baseEnvSet()
	type compiled struct {
		schema *apiextensions.JSONSchemaProps
		path   string
		costs  []CELCost
	}
	var seen []compiled
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
		name := crd.Spec.Versions[i].Name
		var costs []CELCost
		reused := false
		for _, c := range seen {
			if c.schema == in || reflect.DeepEqual(c.schema, in) {
				for _, cost := range c.costs {
					cost.Field = path + strings.TrimPrefix(cost.Field, c.path)
					cost.Version = name
					costs = append(costs, cost)
				}
				reused = true
				break
			}
		}
		if !reused {
			costs = schemaCosts(in, path, name, envSet, cache)
			seen = append(seen, compiled{in, path, costs})
		}
		out = append(out, costs...)
	}
	return out
}

// schemaCosts is celCosts for one version's schema at path. A nil cache
// compiles every node.
func schemaCosts(in *apiextensions.JSONSchemaProps, path, version string, envSet *environment.EnvSet, cache *CostCache) []CELCost {
	var out []CELCost
	var total uint64
	type frame struct {
		s    *apiextensions.JSONSchemaProps
		ctx  *validation.CELSchemaContext
		path string
		// placed is set where the node's CEL type can depend on where it
		// is: at the root of a resource (the version's, or an embedded
		// one's) and under its apiVersion, kind and metadata, which
		// SchemaDeclType replaces (WithTypeAndObjectMeta). Elsewhere the
		// type is a function of the node's own schema.
		placed bool
	}
	stack := []frame{{in, validation.RootCELContext(in), path, true}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if len(f.s.XValidations) > 0 {
			c := cache
			if f.placed {
				c = nil
			}
			for _, cost := range compileCosts(f.s, f.ctx, f.path, envSet, c) {
				cost.Version = version
				total = addSaturating(total, cost.Cost)
				out = append(out, cost)
			}
		}
		// Below a placed node everything is placed (an embedded resource
		// there included); below the version's root and an embedded
		// resource, the type and object metadata are.
		root := f.path == path || f.s.XEmbeddedResource
		inherited := f.placed && f.path != path
		for _, name := range sortedKeys(f.s.Properties) {
			p := f.s.Properties[name]
			placed := inherited || root && (name == "apiVersion" || name == "kind" || name == "metadata")
			stack = append(stack, frame{&p, f.ctx.ChildPropertyContext(&p, name), f.path + ".properties[" + name + "]", placed})
		}
		if ap := f.s.AdditionalProperties; ap != nil && ap.Schema != nil {
			stack = append(stack, frame{ap.Schema, f.ctx.ChildAdditionalPropertiesContext(ap.Schema), f.path + ".additionalProperties", inherited})
		}
		if it := f.s.Items; it != nil && it.Schema != nil {
			stack = append(stack, frame{it.Schema, f.ctx.ChildItemsContext(it.Schema), f.path + ".items", inherited})
		}
	}
	for j := range out {
		out[j].Total = total
	}
	return out
}

// CostCache keeps the compiler's estimates by the content of the schema
// node that holds the rules: CRDs repeat the same types many times (argo
// workflows' four CRDs carry one artifact type, with its rule, many times
// each) and compiling is most of what linting a CRD costs. The estimates
// do not depend on the node's place (outside a resource's root, type and
// object metadata, see schemaCosts); the cardinality, which does, is
// applied by the caller.
//
// Nodes are bucketed by their rules' text and compared whole with
// reflect.DeepEqual: cheaper than serializing them for a hash, as some
// nodes with rules hold megabytes of schema. The price is that the first
// node of each kind stays alive for the run (about 10 MB for the 123
// corpus CRDs).
type CostCache struct {
	mu   sync.Mutex
	m    map[string][]cachedNode
	hits atomic.Int64 // for tests
}

type cachedNode struct {
	schema *apiextensions.JSONSchemaProps
	rules  []compiledRule
}

// compiledRule is what compileCosts needs of one cel.CompilationResult.
type compiledRule struct {
	ok                       bool
	maxCost, maxCardinality  uint64
	hasMessageExpression     bool
	messageExpressionMaxCost uint64
}

// NewCostCache returns an empty cache, to share across a run's CRDs.
func NewCostCache() *CostCache {
	return &CostCache{m: map[string][]cachedNode{}}
}

func compileCosts(s *apiextensions.JSONSchemaProps, ctx *validation.CELSchemaContext, path string, envSet *environment.EnvSet, cache *CostCache) []CELCost {
	ti, err := ctx.TypeInfo()
	if err != nil || ti == nil {
		return nil
	}
	rules, ok := cache.get(s)
	if !ok {
		results, err := cel.Compile(ti.Schema, ti.DeclType, celconfig.PerCallLimit, envSet, cel.NewExpressionsEnvLoader())
		if err != nil {
			return nil
		}
		rules = make([]compiledRule, len(results))
		for i, r := range results {
			rules[i] = compiledRule{
				ok:      r.Error == nil && r.Program != nil,
				maxCost: r.MaxCost, maxCardinality: r.MaxCardinality,
				hasMessageExpression: r.MessageExpression != nil, messageExpressionMaxCost: r.MessageExpressionMaxCost,
			}
		}
		cache.put(s, rules)
	}
	var out []CELCost
	for i, r := range rules {
		if !r.ok {
			continue
		}
		rulePath := path + ".x-kubernetes-validations[" + strconv.Itoa(i) + "]"
		// As validation.getExpressionCost: the schema's cardinality when
		// bounded, else the compiler's worst case.
		card := r.maxCardinality
		if ctx.MaxCardinality != nil {
			card = *ctx.MaxCardinality
		}
		out = append(out, CELCost{Field: rulePath + ".rule", Expression: s.XValidations[i].Rule, Cost: mulSaturating(r.maxCost, card)})
		if r.hasMessageExpression {
			out = append(out, CELCost{Field: rulePath + ".messageExpression", Expression: s.XValidations[i].MessageExpression, Cost: r.messageExpressionMaxCost})
		}
	}
	return out
}

// bucket is the text of a node's rules.
func bucket(s *apiextensions.JSONSchemaProps) string {
	var b strings.Builder
	for _, r := range s.XValidations {
		b.WriteString(r.Rule)
		b.WriteByte(0)
		b.WriteString(r.MessageExpression)
		b.WriteByte(0)
	}
	return b.String()
}

// get returns the estimates of a node equal to s. A nil cache has none.
func (c *CostCache) get(s *apiextensions.JSONSchemaProps) ([]compiledRule, bool) {
	if c == nil {
		return nil, false
	}
	k := bucket(s)
	c.mu.Lock()
	candidates := c.m[k]
	c.mu.Unlock()
	for _, n := range candidates {
		if reflect.DeepEqual(n.schema, s) {
			c.hits.Add(1)
			return n.rules, true
		}
	}
	return nil, false
}

func (c *CostCache) put(s *apiextensions.JSONSchemaProps, rules []compiledRule) {
	if c == nil {
		return
	}
	k := bucket(s)
	c.mu.Lock()
	c.m[k] = append(c.m[k], cachedNode{s, rules})
	c.mu.Unlock()
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

// versionSchema returns version i's schema and its path, or nil.
func versionSchema(crd *apiextensionsv1.CustomResourceDefinition, i int) (*apiextensionsv1.JSONSchemaProps, string) {
	v := crd.Spec.Versions[i]
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return nil, ""
	}
	return v.Schema.OpenAPIV3Schema, "spec.versions[" + strconv.Itoa(i) + "].schema.openAPIV3Schema"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
