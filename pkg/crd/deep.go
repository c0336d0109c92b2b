package crd

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"reflect"
	"sort"
	"time"
)

// deepDigest digests a value so that two values have the same digest
// exactly when reflect.DeepEqual says they are equal (for the acyclic,
// function-free data a decoded CRD is, without NaNs, which JSON cannot
// spell): it tells a nil slice, map or pointer from an empty one, and
// orders maps by key. A Catalog's duplicates compare two CRDs' decoded
// objects (same); kept in an Index, the digest lets a later run compare
// them without decoding either.
func deepDigest(v any) string {
	h := sha256.New()
	deepWrite(h, reflect.ValueOf(v))
	return hex.EncodeToString(h.Sum(nil))
}

var locationType = reflect.TypeOf(time.Location{})

func deepWrite(h hash.Hash, v reflect.Value) {
	var n [8]byte
	num := func(u uint64) {
		binary.LittleEndian.PutUint64(n[:], u)
		h.Write(n[:])
	}
	tag := func(b byte) { h.Write([]byte{b}) }
	if !v.IsValid() {
		tag('0')
		return
	}
	// The type: DeepEqual tells values of different types apart.
	h.Write([]byte(v.Type().String()))
	if v.Kind() == reflect.Pointer && v.Type().Elem() == locationType && !v.IsNil() {
		// A time's location is a pointer DeepEqual finds equal when it
		// is the same (time.Local, time.UTC), whose contents change as
		// the runtime loads zone data: its name stands for it. (The
		// field is unexported: read through the pointer.)
		loc := (*time.Location)(v.UnsafePointer())
		h.Write([]byte(loc.String()))
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			tag('n')
			return
		}
		tag('p')
		deepWrite(h, v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			tag('n')
			return
		}
		tag('s')
		num(uint64(v.Len()))
		for i := 0; i < v.Len(); i++ {
			deepWrite(h, v.Index(i))
		}
	case reflect.Array:
		tag('a')
		for i := 0; i < v.Len(); i++ {
			deepWrite(h, v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			tag('n')
			return
		}
		tag('m')
		num(uint64(v.Len()))
		type kv struct{ k, v []byte }
		var pairs []kv
		for it := v.MapRange(); it.Next(); {
			kh, vh := sha256.New(), sha256.New()
			deepWrite(kh, it.Key())
			deepWrite(vh, it.Value())
			pairs = append(pairs, kv{kh.Sum(nil), vh.Sum(nil)})
		}
		sort.Slice(pairs, func(i, j int) bool { return bytes.Compare(pairs[i].k, pairs[j].k) < 0 })
		for _, p := range pairs {
			h.Write(p.k)
			h.Write(p.v)
		}
	case reflect.Struct:
		tag('{')
		for i := 0; i < v.NumField(); i++ {
			deepWrite(h, v.Field(i))
		}
	case reflect.String:
		num(uint64(v.Len()))
		h.Write([]byte(v.String()))
	case reflect.Bool:
		if v.Bool() {
			tag('t')
		} else {
			tag('f')
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		num(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		num(v.Uint())
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if f == 0 {
			f = 0 // -0 == 0 for DeepEqual
		}
		num(math.Float64bits(f))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		num(math.Float64bits(real(c)))
		num(math.Float64bits(imag(c)))
	default:
		// Functions, channels, unsafe pointers: none in a CRD. DeepEqual
		// holds them equal only when nil (functions) or identical.
		tag('?')
		num(uint64(v.Pointer()))
	}
}

// deepOf is the deepDigest of the CRD's decoded object, computed once.
func (d *Definition) deepOf() string {
	d.mu.Lock()
	known := d.deep
	d.mu.Unlock()
	if known != "" {
		return known
	}
	sum := deepDigest(d.Object())
	d.mu.Lock()
	d.deep = sum
	d.mu.Unlock()
	return sum
}

// knownDeep is deepOf when it has been computed (or taken from an
// Index), else "".
func (d *Definition) knownDeep() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.deep
}
