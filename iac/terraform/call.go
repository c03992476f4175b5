package terraform

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/iac/spec"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// call evaluates one instance of a module call.
func (in *instance) call(c *block, addr string, ctx *hcl.EvalContext, provs map[string]*providerCfg) *result {
	res := &result{outputs: cty.DynamicVal}
	diags := &res.diags
	pos := spec.PosFromHCL(&c.b.DefRange)
	if in.depth+1 > maxModuleDepth {
		diags.Errorf(pos, "module %s: modules are nested more than %d deep (does a module call itself?)", c.name, maxModuleDepth)
		return res
	}
	attrs, hd := c.body.JustAttributes()
	*diags = append(*diags, spec.FromHCL(hd)...)
	src := attrs["source"]
	if src == nil {
		diags.Errorf(pos, "Missing required argument: the argument \"source\" is required in module %s", c.name)
		return res
	}
	sv, hd := src.Expr.Value(nil)
	if hd.HasErrors() || sv.Type() != cty.String || sv.IsNull() {
		diags.Errorf(spec.PosFromHCL(&src.Range), "Invalid module source: the source must be a literal string")
		return res
	}
	key := c.name
	if in.key != "" {
		key = in.key + "." + c.name
	}
	source := sv.AsString()
	var dir string
	switch {
	case strings.HasPrefix(source, "./") || strings.HasPrefix(source, "../"):
		dir = filepath.Join(in.mod.dir, source)
	default:
		d, ok := in.l.installedDir(key)
		if !ok {
			diags.Errorf(spec.PosFromHCL(&src.Range), "Module not installed: module %s has source %q, which is not a local path; run terraform init to download it into .terraform/modules, or use a local path", c.name, source)
			return res
		}
		dir = d
	}
	for anc := in; anc != nil; anc = anc.parent {
		if filepath.Clean(anc.mod.dir) == filepath.Clean(dir) {
			diags.Errorf(spec.PosFromHCL(&src.Range), "Module %s calls the module it is declared in (%s): a module cannot call itself", c.name, source)
			return res
		}
	}
	child, pd := in.l.module(dir)
	*diags = append(*diags, pd...)
	if child == nil {
		return res
	}

	// Providers: the default aws configuration is inherited unless the
	// call maps providers explicitly.
	childProvs := map[string]*providerCfg{}
	if a := attrs["providers"]; a != nil {
		pairs, hd := hcl.ExprMap(a.Expr)
		*diags = append(*diags, spec.FromHCL(hd)...)
		for _, p := range pairs {
			kt, hd1 := hcl.AbsTraversalForExpr(p.Key)
			vt, hd2 := hcl.AbsTraversalForExpr(p.Value)
			if hd1.HasErrors() || hd2.HasErrors() {
				diags.Errorf(spec.PosFromHCL(p.Key.Range().Ptr()), "Invalid providers argument: each entry must map a provider name to a configuration, like aws = aws.west")
				continue
			}
			from := traversalName(vt)
			cfg := provs[from]
			if cfg == nil {
				diags.Errorf(spec.PosFromHCL(p.Value.Range().Ptr()), "Provider configuration not present: there is no configuration for provider %s", from)
				continue
			}
			childProvs[traversalName(kt)] = cfg
		}
	} else if p := provs["aws"]; p != nil {
		childProvs["aws"] = p
	}

	declared := map[string]bool{}
	for _, v := range child.variables {
		declared[v.name] = true
	}
	given := map[string]varValue{}
	for name, a := range attrs {
		switch name {
		case "source", "version", "count", "for_each", "providers", "depends_on":
			continue
		}
		if !declared[name] {
			diags.Errorf(spec.PosFromHCL(&a.NameRange), "Unsupported argument: an argument named %q is not expected here (module %s declares no such variable)", name, c.name)
			continue
		}
		v, hd := a.Expr.Value(ctx)
		*diags = append(*diags, spec.FromHCL(hd)...)
		if hd.HasErrors() {
			v = cty.DynamicVal
		}
		given[name] = varValue{val: v, pos: spec.PosFromHCL(&a.Range)}
	}
	vars := finalizeVars(child, given, pos, false, &hcl.EvalContext{Functions: in.l.funcs}, diags)
	ci := &instance{l: in.l, mod: child, addr: addr + ".", key: key, vars: vars, inherited: childProvs, depth: in.depth + 1, parent: in}
	// Every pass of the caller evaluates its calls again; a call whose
	// inputs did not change gives the same result, so it is computed once.
	memo := ci.memoKey()
	r, ok := in.l.memo[memo]
	if !ok {
		r = ci.eval()
		in.l.memo[memo] = r
	}
	res.merge(r)
	res.outputs = r.outputs
	return res
}

// installedDir finds a registry or git module terraform init downloaded,
// from .terraform/modules/modules.json.
func (l *loader) installedDir(key string) (string, bool) {
	if l.installed == nil {
		l.installed = map[string]string{}
		data, err := os.ReadFile(filepath.Join(l.rootDir, ".terraform", "modules", "modules.json"))
		if err == nil {
			var m struct {
				Modules []struct{ Key, Dir string }
			}
			if json.Unmarshal(data, &m) == nil {
				for _, e := range m.Modules {
					dir := e.Dir
					if !filepath.IsAbs(dir) {
						dir = filepath.Join(l.rootDir, dir)
					}
					l.installed[e.Key] = dir
				}
			}
		}
	}
	d, ok := l.installed[key]
	return d, ok
}

// memoKey identifies a module instance's evaluation: where it is, what it
// was given, and which providers it sees.
func (in *instance) memoKey() string {
	var b strings.Builder
	b.WriteString(in.addr)
	b.WriteByte(0)
	b.WriteString(in.mod.dir)
	b.WriteByte(0)
	names := make([]string, 0, len(in.vars))
	for n := range in.vars {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte('=')
		canon(&b, in.vars[n])
		b.WriteByte(';')
	}
	pk := make([]string, 0, len(in.inherited))
	for k := range in.inherited {
		pk = append(pk, k)
	}
	sort.Strings(pk)
	for _, k := range pk {
		p := in.inherited[k]
		fmt.Fprintf(&b, "%s:%s/%s/%v;", k, p.account, p.region, spec.TagsFromMap(p.defaultTags))
	}
	return b.String()
}

// canon writes a deterministic rendering of v, unknowns included.
func canon(b *strings.Builder, v cty.Value) {
	switch {
	case !v.IsKnown():
		b.WriteString("?")
		return
	case v.IsNull():
		b.WriteString("null")
		return
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		b.WriteString(strconv.Quote(v.AsString()))
	case ty == cty.Number:
		b.WriteString(v.AsBigFloat().Text('g', -1))
	case ty == cty.Bool:
		b.WriteString(strconv.FormatBool(v.True()))
	case ty.IsMapType() || ty.IsObjectType():
		b.WriteByte('{')
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			b.WriteString(strconv.Quote(k.AsString()))
			b.WriteByte(':')
			canon(b, e)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		b.WriteByte('[')
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			canon(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	default:
		b.WriteString(ty.FriendlyName())
	}
}
