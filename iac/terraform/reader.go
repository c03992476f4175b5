package terraform

import (
	"math/big"
	"sort"

	"github.com/extenddb/extenddb/iac/spec"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// reader evaluates arguments and converts them to the type the schema
// wants, reporting what is wrong at the argument.
type reader struct {
	ctx   *hcl.EvalContext
	diags *spec.Diagnostics
}

// value returns the converted argument; ok is false when it is absent,
// null, unknown or wrong (the last two reported).
func (r *reader) value(attrs hcl.Attributes, name string, ty cty.Type) (cty.Value, bool) {
	a := attrs[name]
	if a == nil {
		return cty.NilVal, false
	}
	v, hd := a.Expr.Value(r.ctx)
	*r.diags = append(*r.diags, spec.FromHCL(hd)...)
	if hd.HasErrors() {
		return cty.NilVal, false
	}
	if v.IsNull() {
		return cty.NilVal, false
	}
	if !v.IsWhollyKnown() {
		r.diags.Warnf(spec.PosFromHCL(&a.Range), "the value of %q is not known until apply (it depends on a resource ExtendDB does not model); the argument is left unset", name)
		return cty.NilVal, false
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		r.diags.Errorf(spec.PosFromHCL(a.Expr.StartRange().Ptr()), "Incorrect attribute value type: inappropriate value for attribute %q: %v", name, err)
		return cty.NilVal, false
	}
	if cv.IsNull() {
		return cty.NilVal, false
	}
	return cv, true
}

func (r *reader) str(attrs hcl.Attributes, name string) *string {
	v, ok := r.value(attrs, name, cty.String)
	if !ok {
		return nil
	}
	return spec.Str(v.AsString())
}

func (r *reader) num(attrs hcl.Attributes, name string) *int64 {
	v, ok := r.value(attrs, name, cty.Number)
	if !ok {
		return nil
	}
	n, acc := v.AsBigFloat().Int64()
	if acc != big.Exact {
		a := attrs[name]
		r.diags.Errorf(spec.PosFromHCL(a.Expr.StartRange().Ptr()), "Incorrect attribute value type: attribute %q must be a whole number", name)
		return nil
	}
	return spec.Int(n)
}

func (r *reader) boolean(attrs hcl.Attributes, name string) *bool {
	v, ok := r.value(attrs, name, cty.Bool)
	if !ok {
		return nil
	}
	return spec.Bool(v.True())
}

func (r *reader) strList(attrs hcl.Attributes, name string) []string {
	v, ok := r.value(attrs, name, cty.List(cty.String))
	if !ok {
		return nil
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if !e.IsNull() {
			out = append(out, e.AsString())
		}
	}
	return out
}

func (r *reader) strMap(attrs hcl.Attributes, name string) map[string]string {
	v, ok := r.value(attrs, name, cty.Map(cty.String))
	if !ok {
		return nil
	}
	out := map[string]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if !e.IsNull() {
			out[k.AsString()] = e.AsString()
		}
	}
	return out
}

func strMapVal(m map[string]string) cty.Value {
	if len(m) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]cty.Value{}
	for _, k := range keys {
		out[k] = cty.StringVal(m[k])
	}
	return cty.MapVal(out)
}

func strOrNull(p *string) cty.Value {
	if p == nil {
		return cty.NullVal(cty.String)
	}
	return cty.StringVal(*p)
}

func numOrNull(p *int64) cty.Value {
	if p == nil {
		return cty.NullVal(cty.Number)
	}
	return cty.NumberIntVal(*p)
}

func boolOrNull(p *bool) cty.Value {
	if p == nil {
		return cty.NullVal(cty.Bool)
	}
	return cty.BoolVal(*p)
}
