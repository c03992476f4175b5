package terraform

import (
	"fmt"
	"math/big"
	"os"
	"sort"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// maxPasses bounds the fixed-point evaluation of one module instance: each
// pass sees the values the previous one computed, so references between
// locals, resources and modules settle in as many passes as the longest
// chain of references (Trivy's loader works the same way).
const maxPasses = 24

// maxModuleDepth bounds module nesting (and catches a module that calls
// itself).
const maxModuleDepth = 16

// loader holds what a whole LoadDir shares.
type loader struct {
	opts      spec.Options
	rootDir   string
	parser    *hclparse.Parser
	modules   map[string]*module
	parseDiag map[string]spec.Diagnostics
	installed map[string]string
	funcs     map[string]function.Function
	memo      map[string]*result
}

func (l *loader) module(dir string) (*module, spec.Diagnostics) {
	if m, ok := l.modules[dir]; ok {
		return m, l.parseDiag[dir]
	}
	m, d := parseModule(l.parser, dir)
	l.modules[dir] = m
	l.parseDiag[dir] = d
	return m, d
}

// providerCfg is an evaluated provider "aws" block.
type providerCfg struct {
	account     string
	accountFrom string // how account was chosen (spec.TableSpec.AccountFrom)
	region      string
	defaultTags map[string]string
}

func (p *providerCfg) ns() api.Namespace {
	return api.Namespace{Account: p.account, Region: p.region}
}

// instance is one instance of a module: the root, or a module call (one per
// count index or for_each key).
type instance struct {
	l         *loader
	mod       *module
	addr      string // address prefix: "", "module.a.", "module.a[0].module.b."
	key       string // key in .terraform/modules/modules.json: "", "a", "a.b"
	vars      map[string]cty.Value
	inherited map[string]*providerCfg
	depth     int
	parent    *instance
}

// result is what evaluating an instance produced.
type result struct {
	specs    []spec.TableSpec
	items    []pendingItem
	tags     []pendingTag
	replicas []pendingReplica
	policies []pendingPolicy
	insights []pendingInsights
	kinesis  []pendingKinesis
	globals  []*spec.LegacyGlobal
	outputs  cty.Value
	diags    spec.Diagnostics
}

func (r *result) merge(o *result) {
	r.specs = append(r.specs, o.specs...)
	r.items = append(r.items, o.items...)
	r.tags = append(r.tags, o.tags...)
	r.replicas = append(r.replicas, o.replicas...)
	r.insights = append(r.insights, o.insights...)
	r.policies = append(r.policies, o.policies...)
	r.kinesis = append(r.kinesis, o.kinesis...)
	r.globals = append(r.globals, o.globals...)
	r.diags = append(r.diags, o.diags...)
}

type state struct {
	locals    map[string]cty.Value
	resources map[string]map[string]cty.Value
	data      map[string]map[string]cty.Value
	modules   map[string]cty.Value
}

func newState(m *module) *state {
	s := &state{locals: map[string]cty.Value{}, resources: map[string]map[string]cty.Value{},
		data: map[string]map[string]cty.Value{}, modules: map[string]cty.Value{}}
	for _, a := range m.locals {
		s.locals[a.Name] = cty.DynamicVal
	}
	for _, r := range m.resources {
		if s.resources[r.typ] == nil {
			s.resources[r.typ] = map[string]cty.Value{}
		}
		s.resources[r.typ][r.name] = cty.DynamicVal
	}
	for _, r := range m.datas {
		if s.data[r.typ] == nil {
			s.data[r.typ] = map[string]cty.Value{}
		}
		s.data[r.typ][r.name] = cty.DynamicVal
	}
	for _, c := range m.calls {
		s.modules[c.name] = cty.DynamicVal
	}
	return s
}

func objOf(m map[string]cty.Value) cty.Value {
	if len(m) == 0 {
		return cty.EmptyObjectVal
	}
	return cty.ObjectVal(m)
}

func nestedObj(m map[string]map[string]cty.Value) cty.Value {
	out := map[string]cty.Value{}
	for k, v := range m {
		out[k] = objOf(v)
	}
	return objOf(out)
}

func (s *state) value() cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"local": objOf(s.locals), "resource": nestedObj(s.resources),
		"data": nestedObj(s.data), "module": objOf(s.modules),
	})
}

func (s *state) clone() *state {
	n := &state{locals: map[string]cty.Value{}, resources: map[string]map[string]cty.Value{},
		data: map[string]map[string]cty.Value{}, modules: map[string]cty.Value{}}
	for k, v := range s.locals {
		n.locals[k] = v
	}
	for t, m := range s.resources {
		n.resources[t] = map[string]cty.Value{}
		for k, v := range m {
			n.resources[t][k] = v
		}
	}
	for t, m := range s.data {
		n.data[t] = map[string]cty.Value{}
		for k, v := range m {
			n.data[t][k] = v
		}
	}
	for k, v := range s.modules {
		n.modules[k] = v
	}
	return n
}

// eval evaluates the instance to a fixed point.
func (in *instance) eval() *result {
	st := newState(in.mod)
	var res *result
	for range maxPasses {
		var next *state
		res, next = in.pass(st)
		if next.value().RawEquals(st.value()) {
			return res
		}
		st = next
	}
	res.diags.Errorf(spec.Pos{File: in.mod.dir}, "references in module %s do not settle after %d evaluation passes (a reference cycle?)", strings.TrimSuffix(in.addr, "."), maxPasses)
	return res
}

func (in *instance) ctx(st *state) *hcl.EvalContext {
	vars := map[string]cty.Value{}
	for t, m := range st.resources {
		vars[t] = objOf(m)
	}
	vars["var"] = objOf(in.vars)
	vars["local"] = objOf(st.locals)
	vars["module"] = objOf(st.modules)
	d := map[string]cty.Value{}
	for t, m := range st.data {
		d[t] = objOf(m)
	}
	vars["data"] = objOf(d)
	cwd, _ := os.Getwd()
	vars["path"] = cty.ObjectVal(map[string]cty.Value{
		"module": cty.StringVal(in.mod.dir), "root": cty.StringVal(in.l.rootDir), "cwd": cty.StringVal(cwd),
	})
	ws := "default"
	if v, ok := in.l.opts.Env("TF_WORKSPACE"); ok && v != "" {
		ws = v
	}
	vars["terraform"] = cty.ObjectVal(map[string]cty.Value{"workspace": cty.StringVal(ws)})
	return &hcl.EvalContext{Variables: vars, Functions: in.l.funcs}
}

// pass evaluates every block once against st and returns the next state.
func (in *instance) pass(st *state) (*result, *state) {
	res := &result{}
	next := st.clone()
	ctx := in.ctx(st)
	diags := &res.diags

	provs := in.providers(ctx, diags)

	for _, a := range in.localOrder(diags) {
		v, hd := a.Expr.Value(ctx)
		*diags = append(*diags, spec.FromHCL(hd)...)
		if hd.HasErrors() {
			v = cty.DynamicVal
		}
		next.locals[a.Name] = v
		ctx.Variables["local"] = objOf(next.locals)
	}

	for _, b := range in.mod.datas {
		v := in.expandValue(b, ctx, diags, func(ictx *hcl.EvalContext, addr string) cty.Value {
			return in.dataSource(b, ictx, provs, diags)
		})
		next.data[b.typ][b.name] = v
	}
	dv := map[string]cty.Value{}
	for t, m := range next.data {
		dv[t] = objOf(m)
	}
	ctx.Variables["data"] = objOf(dv)

	for _, c := range in.mod.calls {
		v := in.expandValue(c, ctx, diags, func(ictx *hcl.EvalContext, addr string) cty.Value {
			r := in.call(c, addr, ictx, provs)
			res.merge(r)
			return r.outputs
		})
		next.modules[c.name] = v
	}
	ctx.Variables["module"] = objOf(next.modules)

	skipped := map[string]bool{}
	for _, b := range in.mod.resources {
		v := in.expandValue(b, ctx, diags, func(ictx *hcl.EvalContext, addr string) cty.Value {
			return in.resource(b, addr, ictx, provs, res, skipped)
		})
		next.resources[b.typ][b.name] = v
	}
	for t, m := range next.resources {
		ctx.Variables[t] = objOf(m)
	}

	outs := map[string]cty.Value{}
	for _, o := range in.mod.outputs {
		c, hd := o.Body.Content(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "value", Required: true},
			{Name: "description"}, {Name: "sensitive"}, {Name: "depends_on"}, {Name: "ephemeral"}},
			Blocks: []hcl.BlockHeaderSchema{{Type: "precondition"}}})
		*diags = append(*diags, spec.FromHCL(hd)...)
		if c == nil || c.Attributes["value"] == nil {
			continue
		}
		v, hd := c.Attributes["value"].Expr.Value(ctx)
		*diags = append(*diags, spec.FromHCL(hd)...)
		if hd.HasErrors() {
			v = cty.DynamicVal
		}
		outs[o.Labels[0]] = v
	}
	res.outputs = objOf(outs)
	return res, next
}

// localOrder sorts locals so each comes after the locals it references.
func (in *instance) localOrder(diags *spec.Diagnostics) []*hcl.Attribute {
	byName := map[string]*hcl.Attribute{}
	for _, a := range in.mod.locals {
		byName[a.Name] = a
	}
	var out []*hcl.Attribute
	state := map[string]int{}
	var visit func(a *hcl.Attribute)
	visit = func(a *hcl.Attribute) {
		switch state[a.Name] {
		case 1:
			diags.Errorf(spec.PosFromHCL(&a.Range), "Cycle in local values: local.%s refers to itself", a.Name)
			return
		case 2:
			return
		}
		state[a.Name] = 1
		for _, t := range a.Expr.Variables() {
			if t.RootName() != "local" || len(t) < 2 {
				continue
			}
			if step, ok := t[1].(hcl.TraverseAttr); ok {
				if dep := byName[step.Name]; dep != nil {
					visit(dep)
				}
			}
		}
		state[a.Name] = 2
		out = append(out, a)
	}
	for _, a := range in.mod.locals {
		visit(a)
	}
	return out
}

// expandValue evaluates a block once per count index or for_each key and
// returns the value its address has: one object, a tuple (count) or an
// object keyed by for_each key.
func (in *instance) expandValue(b *block, ctx *hcl.EvalContext, diags *spec.Diagnostics, each func(*hcl.EvalContext, string) cty.Value) cty.Value {
	base := in.addr
	if b.typ != "" {
		base += b.typ + "." + b.name
	} else {
		base += "module." + b.name
	}
	if _, isData := in.dataBlock(b); isData {
		base = in.addr + "data." + b.typ + "." + b.name
	}
	c, _, hd := b.body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "count"}, {Name: "for_each"}}})
	*diags = append(*diags, spec.FromHCL(hd)...)
	countAttr, forEachAttr := c.Attributes["count"], c.Attributes["for_each"]
	switch {
	case countAttr != nil && forEachAttr != nil:
		diags.Errorf(spec.PosFromHCL(&forEachAttr.Range), "Invalid combination of \"count\" and \"for_each\": the \"count\" and \"for_each\" meta-arguments are mutually-exclusive, only one should be used")
		return cty.DynamicVal
	case countAttr != nil:
		v, hd := countAttr.Expr.Value(ctx)
		*diags = append(*diags, spec.FromHCL(hd)...)
		if hd.HasErrors() {
			return cty.DynamicVal
		}
		if !v.IsKnown() {
			diags.Errorf(spec.PosFromHCL(&countAttr.Range), "Invalid count argument: the \"count\" value depends on values that cannot be determined until apply")
			return cty.DynamicVal
		}
		n, err := convert.Convert(v, cty.Number)
		if err != nil || n.IsNull() {
			diags.Errorf(spec.PosFromHCL(&countAttr.Range), "Invalid count argument: the given \"count\" argument value is unsuitable: a number is required")
			return cty.DynamicVal
		}
		bf := n.AsBigFloat()
		cnt, acc := bf.Int64()
		if acc != big.Exact || cnt < 0 {
			diags.Errorf(spec.PosFromHCL(&countAttr.Range), "Invalid count argument: the given \"count\" argument value is unsuitable: must be a whole number, zero or greater")
			return cty.DynamicVal
		}
		if cnt > 10000 {
			diags.Errorf(spec.PosFromHCL(&countAttr.Range), "Invalid count argument: %d instances is more than ExtendDB loads", cnt)
			return cty.DynamicVal
		}
		vals := []cty.Value{}
		for i := range cnt {
			ictx := ctx.NewChild()
			ictx.Variables = map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(i)})}
			vals = append(vals, each(ictx, fmt.Sprintf("%s[%d]", base, i)))
		}
		return cty.TupleVal(vals)
	case forEachAttr != nil:
		v, hd := forEachAttr.Expr.Value(ctx)
		*diags = append(*diags, spec.FromHCL(hd)...)
		if hd.HasErrors() {
			return cty.DynamicVal
		}
		pos := spec.PosFromHCL(&forEachAttr.Range)
		if !v.IsWhollyKnown() {
			diags.Errorf(pos, "Invalid for_each argument: the \"for_each\" value depends on values that cannot be determined until apply")
			return cty.DynamicVal
		}
		if v.IsNull() {
			diags.Errorf(pos, "Invalid for_each argument: the given \"for_each\" argument value is null. A map, or set of strings is allowed")
			return cty.DynamicVal
		}
		ty := v.Type()
		keys := map[string]cty.Value{}
		switch {
		case ty.IsMapType() || ty.IsObjectType():
			for it := v.ElementIterator(); it.Next(); {
				k, e := it.Element()
				keys[k.AsString()] = e
			}
		case ty.IsSetType() && ty.ElementType() == cty.String:
			for it := v.ElementIterator(); it.Next(); {
				_, e := it.Element()
				if e.IsNull() {
					diags.Errorf(pos, "Invalid for_each set argument: a set of strings must not contain null")
					return cty.DynamicVal
				}
				keys[e.AsString()] = e
			}
		default:
			diags.Errorf(pos, "Invalid for_each argument: the given \"for_each\" argument value is unsuitable: the \"for_each\" argument must be a map, or set of strings, and you have provided a value of type %s", ty.FriendlyName())
			return cty.DynamicVal
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		out := map[string]cty.Value{}
		for _, k := range names {
			ictx := ctx.NewChild()
			ictx.Variables = map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(k), "value": keys[k]})}
			out[k] = each(ictx, fmt.Sprintf("%s[%q]", base, k))
		}
		return objOf(out)
	}
	return each(ctx, base)
}

func (in *instance) dataBlock(b *block) (*block, bool) {
	for _, d := range in.mod.datas {
		if d == b {
			return d, true
		}
	}
	return nil, false
}

// providerRef reads a block's `provider = aws.x` meta-argument.
func providerRef(body hcl.Body, diags *spec.Diagnostics) (string, bool) {
	c, _, _ := body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "provider"}}})
	a := c.Attributes["provider"]
	if a == nil {
		return "aws", true
	}
	t, hd := hcl.AbsTraversalForExpr(a.Expr)
	if hd.HasErrors() {
		diags.Errorf(spec.PosFromHCL(&a.Range), "Invalid provider reference: expected a provider name and optional alias, like aws.west")
		return "", false
	}
	return traversalName(t), true
}

func traversalName(t hcl.Traversal) string {
	name := t.RootName()
	if len(t) > 1 {
		if s, ok := t[1].(hcl.TraverseAttr); ok {
			name += "." + s.Name
		}
	}
	return name
}

// pickProvider returns the provider a block uses.
func pickProvider(body hcl.Body, provs map[string]*providerCfg, r hcl.Range, diags *spec.Diagnostics) *providerCfg {
	name, ok := providerRef(body, diags)
	if !ok {
		return nil
	}
	if !strings.HasPrefix(name, "aws") || (name != "aws" && !strings.HasPrefix(name, "aws.")) {
		diags.Errorf(spec.PosFromHCL(&r), "provider %s is not the AWS provider", name)
		return nil
	}
	p := provs[name]
	if p == nil {
		diags.Errorf(spec.PosFromHCL(&r), "Provider configuration not present: there is no configuration for provider %s in this module", name)
	}
	return p
}

func (in *instance) dataSource(b *block, ctx *hcl.EvalContext, provs map[string]*providerCfg, diags *spec.Diagnostics) cty.Value {
	p := pickProvider(b.body, provs, b.defRange(), diags)
	if p == nil {
		return cty.DynamicVal
	}
	part := p.ns().Partition()
	switch b.typ {
	case "aws_caller_identity":
		return cty.ObjectVal(map[string]cty.Value{
			"account_id": cty.StringVal(p.account), "id": cty.StringVal(p.account),
			"arn":     cty.StringVal("arn:" + part + ":iam::" + p.account + ":root"),
			"user_id": cty.StringVal(p.account),
		})
	case "aws_region":
		c, _, _ := b.body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "name"}, {Name: "region"}}})
		r := &reader{ctx: ctx, diags: diags}
		region := p.region
		if v := r.str(c.Attributes, "region"); v != nil {
			region = *v
		} else if v := r.str(c.Attributes, "name"); v != nil {
			region = *v
		}
		return cty.ObjectVal(map[string]cty.Value{
			"name": cty.StringVal(region), "region": cty.StringVal(region), "id": cty.StringVal(region),
			"description": cty.StringVal(region), "endpoint": cty.StringVal("ec2." + region + "." + dnsSuffix(part)),
		})
	case "aws_partition":
		return cty.ObjectVal(map[string]cty.Value{
			"partition": cty.StringVal(part), "id": cty.StringVal(part), "dns_suffix": cty.StringVal(dnsSuffix(part)),
			"reverse_dns_prefix": cty.StringVal(reverseDNS(part)),
		})
	}
	return cty.DynamicVal
}

func dnsSuffix(partition string) string {
	if partition == "aws-cn" {
		return "amazonaws.com.cn"
	}
	return "amazonaws.com"
}

func reverseDNS(partition string) string {
	if partition == "aws-cn" {
		return "cn.com.amazonaws"
	}
	return "com.amazonaws"
}
