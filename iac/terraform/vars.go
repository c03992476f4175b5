package terraform

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/extenddb/extenddb/iac/spec"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// varValue is a value given for a variable, with where it came from.
type varValue struct {
	val cty.Value
	pos spec.Pos
	raw string // for -var and TF_VAR_*: the text, parsed by the variable's type
	// isRaw marks a value still to be parsed by the variable's type.
	isRaw bool
}

// rootValues gathers the root module's variable values in Terraform's
// precedence: TF_VAR_*, terraform.tfvars, terraform.tfvars.json,
// *.auto.tfvars(.json) in name order, then --var-file and --var.
func (l *loader) rootValues(m *module, diags *spec.Diagnostics) map[string]varValue {
	out := map[string]varValue{}
	declared := map[string]bool{}
	for _, v := range m.variables {
		declared[v.name] = true
		if raw, ok := l.opts.Env("TF_VAR_" + v.name); ok {
			out[v.name] = varValue{raw: raw, isRaw: true, pos: spec.Pos{File: "TF_VAR_" + v.name}}
		}
	}
	var files []string
	for _, n := range []string{"terraform.tfvars", "terraform.tfvars.json"} {
		if _, err := os.Stat(filepath.Join(l.rootDir, n)); err == nil {
			files = append(files, filepath.Join(l.rootDir, n))
		}
	}
	entries, _ := os.ReadDir(l.rootDir)
	var auto []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".auto.tfvars") || strings.HasSuffix(n, ".auto.tfvars.json")) {
			auto = append(auto, filepath.Join(l.rootDir, n))
		}
	}
	sort.Strings(auto)
	files = append(files, auto...)
	files = append(files, l.opts.VarFiles...)
	for _, f := range files {
		explicit := false
		for _, vf := range l.opts.VarFiles {
			explicit = explicit || vf == f
		}
		l.readVarFile(f, declared, explicit, out, diags)
	}
	for _, kv := range l.opts.Vars {
		name, raw, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			diags.Errorf(spec.Pos{}, "Invalid -var option: the given -var option %q is not correctly specified. It must be a variable name and value separated by an equals sign, like -var=\"key=value\"", kv)
			continue
		}
		if !declared[name] {
			diags.Errorf(spec.Pos{}, "Value for undeclared variable: a variable named %q was assigned on the command line, but the root module does not declare a variable of that name", name)
			continue
		}
		out[name] = varValue{raw: raw, isRaw: true, pos: spec.Pos{File: "-var " + name}}
	}
	return out
}

func (l *loader) readVarFile(path string, declared map[string]bool, explicit bool, out map[string]varValue, diags *spec.Diagnostics) {
	var f *hcl.File
	var hd hcl.Diagnostics
	if strings.HasSuffix(path, ".json") {
		f, hd = l.parser.ParseJSONFile(path)
	} else {
		f, hd = l.parser.ParseHCLFile(path)
	}
	*diags = append(*diags, spec.FromHCL(hd)...)
	if f == nil || hd.HasErrors() {
		if f == nil && len(hd) == 0 {
			diags.Errorf(spec.Pos{File: path}, "cannot read variables file")
		}
		return
	}
	attrs, hd := f.Body.JustAttributes()
	*diags = append(*diags, spec.FromHCL(hd)...)
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := attrs[n]
		if !declared[n] {
			if explicit {
				diags.Errorf(spec.PosFromHCL(&a.NameRange), "Value for undeclared variable: the root module does not declare a variable named %q", n)
			} else {
				diags.Warnf(spec.PosFromHCL(&a.NameRange), "Value for undeclared variable: the root module does not declare a variable named %q but a value was found in file %q", n, filepath.Base(path))
			}
			continue
		}
		// Variables files hold constants: no references or functions.
		v, hd := a.Expr.Value(nil)
		*diags = append(*diags, spec.FromHCL(hd)...)
		if hd.HasErrors() {
			continue
		}
		r := a.Expr.Range()
		out[n] = varValue{val: v, pos: spec.PosFromHCL(&r)}
	}
}

// finalizeVars applies types, optional() defaults, defaults and validation
// to the values given for a module's variables. given holds the values the
// caller (or the command line) set.
func finalizeVars(m *module, given map[string]varValue, callPos spec.Pos, isRoot bool, funcs *hcl.EvalContext, diags *spec.Diagnostics) map[string]cty.Value {
	out := map[string]cty.Value{}
	for _, v := range m.variables {
		declPos := spec.PosFromHCL(&v.block.DefRange)
		ty := cty.DynamicPseudoType
		var defaults *typeexpr.Defaults
		if a := v.attrs["type"]; a != nil {
			t, d, hd := typeexpr.TypeConstraintWithDefaults(a.Expr)
			*diags = append(*diags, spec.FromHCL(hd)...)
			if hd.HasErrors() {
				out[v.name] = cty.DynamicVal
				continue
			}
			ty, defaults = t, d
		}
		nullable := true
		if a := v.attrs["nullable"]; a != nil {
			if nv, hd := a.Expr.Value(nil); !hd.HasErrors() && nv.Type() == cty.Bool && nv.IsKnown() && !nv.IsNull() {
				nullable = nv.True()
			}
		}
		var def *cty.Value
		if a := v.attrs["default"]; a != nil {
			dv, hd := a.Expr.Value(nil)
			*diags = append(*diags, spec.FromHCL(hd)...)
			if !hd.HasErrors() {
				def = &dv
			}
		}
		gv, ok := given[v.name]
		val := cty.NilVal
		pos := gv.pos
		switch {
		case ok && gv.isRaw:
			pv, err := parseRaw(gv.raw, ty)
			if err != nil {
				diags.Errorf(pos, "Invalid value for input variable %q: %v", v.name, err)
				out[v.name] = cty.DynamicVal
				continue
			}
			val = pv
		case ok:
			val = gv.val
		}
		if val == cty.NilVal || (val.IsNull() && !nullable) {
			if def == nil {
				if isRoot {
					diags.Errorf(declPos, "No value for required variable: the root module input variable %q is not set, and has no default value. Use a -var or -var-file option, a terraform.tfvars file or TF_VAR_%s to set it", v.name, v.name)
				} else {
					diags.Errorf(callPos, "Missing required argument: the argument %q is required, but no definition was found", v.name)
				}
				out[v.name] = cty.DynamicVal
				continue
			}
			val = *def
			pos = declPos
		}
		if defaults != nil && val.IsWhollyKnown() {
			val = defaults.Apply(val)
		}
		cv, err := convert.Convert(val, ty)
		if err != nil {
			if pos.File == "" {
				pos = declPos
			}
			diags.Errorf(pos, "Invalid value for input variable: the given value is not suitable for var.%s declared at %s: %v", v.name, declPos, err)
			out[v.name] = cty.UnknownVal(ty)
			continue
		}
		if cv.IsNull() && !nullable {
			diags.Errorf(pos, "Required variable not set: variable %q is not nullable", v.name)
		}
		out[v.name] = cv
		checkValidations(v, cv, funcs, diags)
	}
	return out
}

// parseRaw turns a -var or TF_VAR_* text into a value: primitive types
// take it literally, others parse it as an HCL expression.
func parseRaw(raw string, ty cty.Type) (cty.Value, error) {
	if ty.IsPrimitiveType() {
		return cty.StringVal(raw), nil
	}
	expr, hd := hclsyntax.ParseExpression([]byte(raw), "<value>", hcl.Pos{Line: 1, Column: 1})
	if hd.HasErrors() {
		if ty == cty.DynamicPseudoType {
			return cty.StringVal(raw), nil
		}
		return cty.NilVal, fmt.Errorf("%s", hd[0].Summary+": "+hd[0].Detail)
	}
	v, hd := expr.Value(nil)
	if hd.HasErrors() {
		if ty == cty.DynamicPseudoType {
			return cty.StringVal(raw), nil
		}
		return cty.NilVal, fmt.Errorf("%s", hd[0].Summary+": "+hd[0].Detail)
	}
	return v, nil
}

func checkValidations(v *variable, val cty.Value, base *hcl.EvalContext, diags *spec.Diagnostics) {
	if !val.IsWhollyKnown() {
		return
	}
	for _, b := range v.blocks {
		if b.Type != "validation" {
			continue
		}
		c, hd := b.Body.Content(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}}})
		*diags = append(*diags, spec.FromHCL(hd)...)
		if c == nil || c.Attributes["condition"] == nil {
			continue
		}
		ctx := base.NewChild()
		ctx.Variables = map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{v.name: val})}
		cond, hd := c.Attributes["condition"].Expr.Value(ctx)
		if hd.HasErrors() || !cond.IsKnown() || cond.IsNull() || cond.Type() != cty.Bool {
			continue
		}
		if cond.False() {
			msg := "validation failed"
			if a := c.Attributes["error_message"]; a != nil {
				if mv, hd := a.Expr.Value(ctx); !hd.HasErrors() && mv.Type() == cty.String && mv.IsKnown() && !mv.IsNull() {
					msg = mv.AsString()
				}
			}
			diags.Errorf(spec.PosFromHCL(&c.Attributes["condition"].Range), "Invalid value for variable %q: %s", v.name, msg)
		}
	}
}
