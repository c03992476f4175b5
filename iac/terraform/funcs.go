package terraform

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"go.yaml.in/yaml/v3"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// functions returns Terraform's built-in functions that make sense without
// a provider: go-cty's stdlib under Terraform's names, HCL's try and can,
// and the rest written here. baseDir anchors file() and friends. Functions
// whose result only exists at apply time (uuid, timestamp, bcrypt) return
// unknown values.
func functions(baseDir string) map[string]function.Function {
	f := map[string]function.Function{
		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
		"log": stdlib.LogFunc, "pow": stdlib.PowFunc, "signum": stdlib.SignumFunc,
		"parseint": stdlib.ParseIntFunc, "max": stdlib.MaxFunc, "min": stdlib.MinFunc,
		"chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
		"formatdate": stdlib.FormatDateFunc, "indent": stdlib.IndentFunc, "join": stdlib.JoinFunc,
		"lower": stdlib.LowerFunc, "upper": stdlib.UpperFunc, "title": stdlib.TitleFunc,
		"regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc, "split": stdlib.SplitFunc,
		"strrev": stdlib.ReverseFunc, "substr": stdlib.SubstrFunc, "trim": stdlib.TrimFunc,
		"trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc,
		"trimspace": stdlib.TrimSpaceFunc, "csvdecode": stdlib.CSVDecodeFunc,
		"jsondecode": stdlib.JSONDecodeFunc, "jsonencode": stdlib.JSONEncodeFunc,
		"chunklist": stdlib.ChunklistFunc, "coalescelist": stdlib.CoalesceListFunc,
		"compact": stdlib.CompactFunc, "concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc,
		"distinct": stdlib.DistinctFunc, "element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc,
		"index": stdlib.IndexFunc, "keys": stdlib.KeysFunc, "lookup": stdlib.LookupFunc,
		"merge": stdlib.MergeFunc, "range": stdlib.RangeFunc, "reverse": stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc, "setproduct": stdlib.SetProductFunc,
		"setsubtract": stdlib.SetSubtractFunc, "setsymmetricdifference": stdlib.SetSymmetricDifferenceFunc,
		"setunion": stdlib.SetUnionFunc, "slice": stdlib.SliceFunc, "sort": stdlib.SortFunc,
		"values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc, "timeadd": stdlib.TimeAddFunc,
		"try": tryfunc.TryFunc, "can": tryfunc.CanFunc,
		"tostring": stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
		"tobool": stdlib.MakeToFunc(cty.Bool), "tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)), "tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"length": lengthFunc, "coalesce": coalesceFunc, "replace": replaceFunc,
		"alltrue": allTrueFunc, "anytrue": anyTrueFunc, "one": oneFunc, "sum": sumFunc,
		"startswith": strPredicate(strings.HasPrefix), "endswith": strPredicate(strings.HasSuffix),
		"strcontains":  strPredicate(strings.Contains),
		"base64encode": strFunc(func(s string) (string, error) { return base64.StdEncoding.EncodeToString([]byte(s)), nil }),
		"base64decode": strFunc(func(s string) (string, error) {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return "", fmt.Errorf("failed to decode base64 data %q", s)
			}
			if !utf8.Valid(b) {
				return "", fmt.Errorf("the result of decoding the provided string is not valid UTF-8")
			}
			return string(b), nil
		}),
		"urlencode": strFunc(func(s string) (string, error) { return url.QueryEscape(s), nil }),
		"md5":       hashFunc(func(b []byte) []byte { s := md5.Sum(b); return s[:] }),
		"sha1":      hashFunc(func(b []byte) []byte { s := sha1.Sum(b); return s[:] }),
		"sha256":    hashFunc(func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }),
		"sha512":    hashFunc(func(b []byte) []byte { s := sha512.Sum512(b); return s[:] }),
		"basename":  strFunc(func(s string) (string, error) { return filepath.Base(s), nil }),
		"dirname":   strFunc(func(s string) (string, error) { return filepath.Dir(s), nil }),
		"abspath": strFunc(func(s string) (string, error) {
			return filepath.Abs(s)
		}),
		"pathexpand": strFunc(func(s string) (string, error) { return s, nil }),
		"file": strFunc(func(s string) (string, error) {
			b, err := os.ReadFile(resolvePath(baseDir, s))
			if err != nil {
				return "", fmt.Errorf("no file exists at %q", s)
			}
			return string(b), nil
		}),
		"fileexists": function.New(&function.Spec{
			Params: []function.Parameter{{Name: "path", Type: cty.String}},
			Type:   function.StaticReturnType(cty.Bool),
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				st, err := os.Stat(resolvePath(baseDir, args[0].AsString()))
				return cty.BoolVal(err == nil && st.Mode().IsRegular()), nil
			},
		}),
		"yamlencode":   yamlEncodeFunc,
		"yamldecode":   yamlDecodeFunc,
		"transpose":    transposeFunc,
		"matchkeys":    matchKeysFunc,
		"sensitive":    identityFunc,
		"nonsensitive": identityFunc,
		"issensitive": function.New(&function.Spec{
			Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true}},
			Type:   function.StaticReturnType(cty.Bool),
			Impl:   func([]cty.Value, cty.Type) (cty.Value, error) { return cty.False, nil },
		}),
		"uuid":          unknownFunc(cty.String),
		"timestamp":     unknownFunc(cty.String),
		"plantimestamp": unknownFunc(cty.String),
	}
	// templatefile sees every function but itself, as in Terraform.
	f["templatefile"] = templateFileFunc(baseDir, f)
	return f
}

// templateFileFunc renders a template file with the given variables.
func templateFileFunc(baseDir string, funcs map[string]function.Function) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}, {Name: "vars", Type: cty.DynamicPseudoType}},
		Type:   function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			path := args[0].AsString()
			src, err := os.ReadFile(resolvePath(baseDir, path))
			if err != nil {
				return cty.DynamicVal, fmt.Errorf("no file exists at %q", path)
			}
			expr, hd := hclsyntax.ParseTemplate(src, path, hcl.Pos{Line: 1, Column: 1, Byte: 0})
			if hd.HasErrors() {
				return cty.DynamicVal, hd
			}
			vars := args[1]
			if !vars.IsWhollyKnown() {
				return cty.DynamicVal, nil
			}
			if !vars.Type().IsObjectType() && !vars.Type().IsMapType() {
				return cty.DynamicVal, fmt.Errorf("invalid vars value: must be a map")
			}
			ctxVars := map[string]cty.Value{}
			if !vars.IsNull() {
				for it := vars.ElementIterator(); it.Next(); {
					k, v := it.Element()
					ctxVars[k.AsString()] = v
				}
			}
			inner := map[string]function.Function{}
			for name, fn := range funcs {
				if name != "templatefile" {
					inner[name] = fn
				}
			}
			v, hd := expr.Value(&hcl.EvalContext{Variables: ctxVars, Functions: inner})
			if hd.HasErrors() {
				return cty.DynamicVal, hd
			}
			return v, nil
		},
	})
}

func resolvePath(base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}

var identityFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true}},
	Type:   func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
	Impl:   func(args []cty.Value, _ cty.Type) (cty.Value, error) { return args[0], nil },
})

func unknownFunc(t cty.Type) function.Function {
	return function.New(&function.Spec{
		Type: function.StaticReturnType(t),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) { return cty.UnknownVal(t), nil },
	})
}

func strFunc(fn func(string) (string, error)) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			s, err := fn(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return cty.StringVal(s), nil
		},
	})
}

func hashFunc(fn func([]byte) []byte) function.Function {
	return strFunc(func(s string) (string, error) { return hex.EncodeToString(fn([]byte(s))), nil })
}

func strPredicate(fn func(s, sub string) bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}, {Name: "sub", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.BoolVal(fn(args[0].AsString(), args[1].AsString())), nil
		},
	})
}

// lengthFunc is Terraform's length: strings count characters; lists, sets,
// tuples, maps and objects count elements.
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowMarked: true}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		ty := v.Type()
		switch {
		case ty == cty.DynamicPseudoType || !v.IsKnown():
			return cty.UnknownVal(cty.Number), nil
		case ty == cty.String:
			return stdlib.Strlen(v)
		case ty.IsObjectType():
			return cty.NumberIntVal(int64(len(ty.AttributeTypes()))), nil
		case ty.IsListType() || ty.IsSetType() || ty.IsMapType() || ty.IsTupleType():
			return v.Length(), nil
		}
		return cty.UnknownVal(cty.Number), fmt.Errorf("argument must be a string, a collection type, or a structural type")
	},
})

// coalesceFunc is Terraform's coalesce: the first argument that is neither
// null nor an empty string.
var coalesceFunc = function.New(&function.Spec{
	VarParam: &function.Parameter{Name: "vals", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true},
	Type: func(args []cty.Value) (cty.Type, error) {
		types := make([]cty.Type, len(args))
		for i, a := range args {
			types[i] = a.Type()
		}
		t, _ := convert.UnifyUnsafe(types)
		if t == cty.NilType {
			return cty.NilType, fmt.Errorf("all arguments must have the same type")
		}
		return t, nil
	},
	Impl: func(args []cty.Value, t cty.Type) (cty.Value, error) {
		for _, a := range args {
			if !a.IsKnown() {
				return cty.UnknownVal(t), nil
			}
			if a.IsNull() {
				continue
			}
			c, err := convert.Convert(a, t)
			if err != nil {
				return cty.UnknownVal(t), err
			}
			if c.Type() == cty.String && c.AsString() == "" {
				continue
			}
			return c, nil
		}
		return cty.NilVal, fmt.Errorf("no non-null, non-empty-string arguments")
	},
})

// replaceFunc is Terraform's replace: a /regex/ pattern is a regular
// expression, anything else a plain substring.
var replaceFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}, {Name: "substr", Type: cty.String}, {Name: "replace", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		str, sub, rep := args[0].AsString(), args[1].AsString(), args[2].AsString()
		if len(sub) > 1 && sub[0] == '/' && sub[len(sub)-1] == '/' {
			re, err := regexp.Compile(sub[1 : len(sub)-1])
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return cty.StringVal(re.ReplaceAllString(str, rep)), nil
		}
		return cty.StringVal(strings.ReplaceAll(str, sub, rep)), nil
	},
})

func boolsOf(v cty.Value) ([]cty.Value, bool) {
	if !v.IsWhollyKnown() {
		return nil, false
	}
	var out []cty.Value
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		out = append(out, e)
	}
	return out, true
}

var allTrueFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
	Type:   function.StaticReturnType(cty.Bool),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		vals, ok := boolsOf(args[0])
		if !ok {
			return cty.UnknownVal(cty.Bool), nil
		}
		for _, v := range vals {
			if v.IsNull() || v.False() {
				return cty.False, nil
			}
		}
		return cty.True, nil
	},
})

var anyTrueFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
	Type:   function.StaticReturnType(cty.Bool),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		vals, ok := boolsOf(args[0])
		if !ok {
			return cty.UnknownVal(cty.Bool), nil
		}
		for _, v := range vals {
			if !v.IsNull() && v.True() {
				return cty.True, nil
			}
		}
		return cty.False, nil
	},
})

var oneFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		switch {
		case ty.IsListType() || ty.IsSetType():
			return ty.ElementType(), nil
		case ty.IsTupleType():
			el := ty.TupleElementTypes()
			switch len(el) {
			case 0:
				return cty.DynamicPseudoType, nil
			case 1:
				return el[0], nil
			}
			return cty.NilType, fmt.Errorf("must be a list, set, or tuple value with either zero or one elements")
		}
		return cty.NilType, fmt.Errorf("must be a list, set, or tuple value with either zero or one elements")
	},
	Impl: func(args []cty.Value, t cty.Type) (cty.Value, error) {
		v := args[0]
		if !v.IsKnown() {
			return cty.UnknownVal(t), nil
		}
		switch v.LengthInt() {
		case 0:
			return cty.NullVal(t), nil
		case 1:
			it := v.ElementIterator()
			it.Next()
			_, e := it.Element()
			return e, nil
		}
		return cty.NilVal, fmt.Errorf("must be a list, set, or tuple value with either zero or one elements")
	},
})

var sumFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		if !v.IsWhollyKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		ty := v.Type()
		if !ty.IsListType() && !ty.IsSetType() && !ty.IsTupleType() {
			return cty.NilVal, fmt.Errorf("cannot sum %s", ty.FriendlyName())
		}
		if v.LengthInt() == 0 {
			return cty.NilVal, fmt.Errorf("cannot sum an empty list")
		}
		total := new(big.Float)
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			n, err := convert.Convert(e, cty.Number)
			if err != nil || n.IsNull() {
				return cty.NilVal, fmt.Errorf("argument must be list, set, or tuple of number values")
			}
			total.Add(total, n.AsBigFloat())
		}
		return cty.NumberVal(total), nil
	},
})

var transposeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "values", Type: cty.Map(cty.List(cty.String))}},
	Type:   function.StaticReturnType(cty.Map(cty.List(cty.String))),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if !args[0].IsWhollyKnown() {
			return cty.UnknownVal(cty.Map(cty.List(cty.String))), nil
		}
		out := map[string][]cty.Value{}
		for it := args[0].ElementIterator(); it.Next(); {
			k, list := it.Element()
			for li := list.ElementIterator(); li.Next(); {
				_, v := li.Element()
				out[v.AsString()] = append(out[v.AsString()], k)
			}
		}
		m := map[string]cty.Value{}
		for k, vs := range out {
			m[k] = cty.ListVal(vs)
		}
		if len(m) == 0 {
			return cty.MapValEmpty(cty.List(cty.String)), nil
		}
		return cty.MapVal(m), nil
	},
})

var matchKeysFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "values", Type: cty.List(cty.DynamicPseudoType)}, {Name: "keys", Type: cty.List(cty.DynamicPseudoType)}, {Name: "searchset", Type: cty.List(cty.DynamicPseudoType)}},
	Type:   func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
	Impl: func(args []cty.Value, t cty.Type) (cty.Value, error) {
		vals, keys, search := args[0], args[1], args[2]
		if !vals.IsWhollyKnown() || !keys.IsWhollyKnown() || !search.IsWhollyKnown() {
			return cty.UnknownVal(t), nil
		}
		if vals.LengthInt() != keys.LengthInt() {
			return cty.NilVal, fmt.Errorf("length of keys and values should be equal")
		}
		vs, ks, ss := vals.AsValueSlice(), keys.AsValueSlice(), search.AsValueSlice()
		var out []cty.Value
		for i, k := range ks {
			for _, s := range ss {
				if k.RawEquals(s) {
					out = append(out, vs[i])
					break
				}
			}
		}
		if len(out) == 0 {
			return cty.ListValEmpty(t.ElementType()), nil
		}
		return cty.ListVal(out), nil
	},
})

var yamlEncodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowNull: true}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if !args[0].IsWhollyKnown() {
			return cty.UnknownVal(cty.String), nil
		}
		b, err := ctyjson.Marshal(args[0], args[0].Type())
		if err != nil {
			return cty.NilVal, err
		}
		var node yaml.Node
		if err := yaml.Unmarshal(b, &node); err != nil {
			return cty.NilVal, err
		}
		// JSON's flow style parsed as YAML keeps flow style; switch to block.
		setBlockStyle(&node)
		out, err := yaml.Marshal(&node)
		if err != nil {
			return cty.NilVal, err
		}
		return cty.StringVal(string(out)), nil
	},
})

func setBlockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		setBlockStyle(c)
	}
}

var yamlDecodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "src", Type: cty.String}},
	Type:   function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var v any
		if err := yaml.Unmarshal([]byte(args[0].AsString()), &v); err != nil {
			return cty.NilVal, fmt.Errorf("invalid YAML: %v", err)
		}
		return goToCty(v), nil
	},
})

// goToCty converts decoded YAML to a cty value (objects and tuples, as
// Terraform's yamldecode returns).
func goToCty(v any) cty.Value {
	switch x := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType)
	case bool:
		return cty.BoolVal(x)
	case int:
		return cty.NumberIntVal(int64(x))
	case int64:
		return cty.NumberIntVal(x)
	case uint64:
		return cty.NumberUIntVal(x)
	case float64:
		return cty.NumberFloatVal(x)
	case string:
		return cty.StringVal(x)
	case []any:
		vals := make([]cty.Value, len(x))
		for i, e := range x {
			vals[i] = goToCty(e)
		}
		return cty.TupleVal(vals)
	case map[string]any:
		m := map[string]cty.Value{}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			m[k] = goToCty(x[k])
		}
		return cty.ObjectVal(m)
	case map[any]any:
		m := map[string]any{}
		for k, e := range x {
			m[fmt.Sprint(k)] = e
		}
		return goToCty(m)
	}
	return cty.StringVal(fmt.Sprint(v))
}
