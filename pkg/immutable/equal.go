package immutable

import (
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Equality is strict deep equality of the stored JSON forms: maps equal
// key by key, lists element by element in order, strings and bools as is,
// null only to null. Numbers are compared by value whatever their Go type,
// so int64(1) equals float64(1): the server stores both as the JSON number
// 1, which decodes again as int64(1) (a stored 1.0 comes back as 1). 1 and
// 1.5 differ, "1" and 1 differ.

// number returns the value of a JSON number in one of its decoded forms.
func number(v any) (i int64, f float64, isInt, ok bool) {
	switch n := v.(type) {
	case int64:
		return n, 0, true, true
	case int:
		return int64(n), 0, true, true
	case int32:
		return int64(n), 0, true, true
	case int16:
		return int64(n), 0, true, true
	case int8:
		return int64(n), 0, true, true
	case uint8:
		return int64(n), 0, true, true
	case uint16:
		return int64(n), 0, true, true
	case uint32:
		return int64(n), 0, true, true
	case uint:
		if uint64(n) <= math.MaxInt64 {
			return int64(n), 0, true, true
		}
		return 0, float64(n), false, true
	case uint64:
		if n <= math.MaxInt64 {
			return int64(n), 0, true, true
		}
		return 0, float64(n), false, true
	case float32:
		return floatNumber(float64(n))
	case float64:
		return floatNumber(n)
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i, 0, true, true
		}
		if f, err := n.Float64(); err == nil {
			return floatNumber(f)
		}
	}
	return 0, 0, false, false
}

// floatNumber turns an integral float64 in the int64 range into an int64,
// as a storage round trip does.
func floatNumber(f float64) (int64, float64, bool, bool) {
	if f == math.Trunc(f) && f >= -(1<<63) && f < (1<<63) {
		return int64(f), 0, true, true
	}
	return 0, f, false, true
}

// nilish reports whether v is JSON null (nil, or a typed nil map or slice).
func nilish(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return t == nil
	case []any:
		return t == nil
	}
	return false
}

// equal is the equality used for x-kubernetes-mutability.
func equal(a, b any) bool { return firstDiff(a, b, nil) == nil }

// noDiff is returned by firstDiff for equal values.
var noDiff *field.Path

// firstDiff returns the path (below p) of the first difference of a and b,
// or nil if they are equal. For a difference at p itself it returns p, or
// rootDiff if p is nil.
func firstDiff(a, b any, p *field.Path) *field.Path {
	here := p
	if here == nil {
		here = rootDiff
	}
	an, bn := nilish(a), nilish(b)
	if an || bn {
		if an && bn {
			return noDiff
		}
		return here
	}
	if ai, af, aInt, ok := number(a); ok {
		bi, bf, bInt, ok := number(b)
		if !ok || aInt != bInt || (aInt && ai != bi) || (!aInt && af != bf) {
			return here
		}
		return noDiff
	}
	switch at := a.(type) {
	case string:
		if bt, ok := b.(string); !ok || at != bt {
			return here
		}
		return noDiff
	case bool:
		if bt, ok := b.(bool); !ok || at != bt {
			return here
		}
		return noDiff
	case map[string]any:
		bt, ok := b.(map[string]any)
		if !ok {
			return here
		}
		keys := sortedKeys(at)
		for k := range bt {
			if _, ok := at[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			av, aok := at[k]
			bv, bok := bt[k]
			if aok != bok {
				return child(p, k)
			}
			if d := firstDiff(av, bv, child(p, k)); d != nil {
				return d
			}
		}
		return noDiff
	case []any:
		bt, ok := b.([]any)
		if !ok {
			return here
		}
		for i := 0; i < len(at) && i < len(bt); i++ {
			if d := firstDiff(at[i], bt[i], index(p, i)); d != nil {
				return d
			}
		}
		if len(at) != len(bt) {
			return index(p, min(len(at), len(bt)))
		}
		return noDiff
	}
	if _, _, _, ok := number(b); ok || !reflect.DeepEqual(a, b) {
		return here
	}
	return noDiff
}

// rootDiff stands for a difference at the root of a firstDiff with a nil
// path.
var rootDiff = field.NewPath("<root>")

func child(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

func index(p *field.Path, i int) *field.Path {
	if p == nil {
		return field.NewPath("").Index(i)
	}
	return p.Index(i)
}

func pathString(p *field.Path) string {
	if p == nil {
		return "<root>"
	}
	return p.String()
}

// canonical is the canonical JSON form of a value, with numbers normalized
// as in equal: two values are equal iff their canonical forms are.
func canonical(v any) string {
	var b strings.Builder
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *strings.Builder, v any) {
	if nilish(v) {
		b.WriteString("null")
		return
	}
	if i, f, isInt, ok := number(v); ok {
		if isInt {
			b.WriteString(strconv.FormatInt(i, 10))
		} else {
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		}
		return
	}
	switch t := v.(type) {
	case string:
		j, _ := json.Marshal(t)
		b.Write(j)
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case map[string]any:
		b.WriteByte('{')
		for i, k := range sortedKeys(t) {
			if i > 0 {
				b.WriteByte(',')
			}
			j, _ := json.Marshal(k)
			b.Write(j)
			b.WriteByte(':')
			writeCanonical(b, t[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	default:
		j, err := json.Marshal(t)
		if err != nil {
			b.WriteString(reflect.TypeOf(t).String())
			return
		}
		b.Write(j)
	}
}
