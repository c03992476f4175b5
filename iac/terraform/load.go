package terraform

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
)

// pendingItem is an aws_dynamodb_table_item, attached to its table once
// every table is known.
type pendingItem struct {
	ns    api.Namespace
	table string
	item  string
	pos   spec.Pos
	itemP spec.Pos
}

// pendingTag is an aws_dynamodb_tag.
type pendingTag struct {
	arn, key, value string
	pos             spec.Pos
}

// pendingPolicy is an aws_dynamodb_resource_policy: arn is the table's ARN,
// stream says it names the table's stream (its stream_arn, not known
// before the table exists).
type pendingPolicy struct {
	arn     string
	stream  bool
	policy  string
	confirm bool
	pos     spec.Pos
}

// pendingInsights is an aws_dynamodb_contributor_insights: Contributor
// Insights enabled on table (or its GSI index) in ns.
type pendingInsights struct {
	ns           api.Namespace
	table, index string
	mode         *string
	pos          spec.Pos
}

// pendingKinesis is an aws_dynamodb_kinesis_streaming_destination.
type pendingKinesis struct {
	ns        api.Namespace
	table     string
	arn       string
	precision string
	pos       spec.Pos
}

// pendingReplica is an aws_dynamodb_table_replica.
type pendingReplica struct {
	arn        string
	ns         api.Namespace
	pitr       *bool
	class      *string
	tags       map[string]string
	protection *bool
	kms        *string
	pos        spec.Pos
	addr       string
}

// LoadDir loads the root module in dir. A configuration with any error
// yields no tables.
func LoadDir(dir string, opts spec.Options) ([]spec.TableSpec, spec.Diagnostics) {
	var diags spec.Diagnostics
	dir = filepath.Clean(dir)
	l := &loader{opts: opts, rootDir: dir, parser: hclparse.NewParser(), modules: map[string]*module{},
		parseDiag: map[string]spec.Diagnostics{}, funcs: functions(dir), memo: map[string]*result{}}
	root, pd := l.module(dir)
	diags = append(diags, pd...)
	if root == nil || diags.HasErrors() {
		return nil, diags
	}
	given := l.rootValues(root, &diags)
	vars := finalizeVars(root, given, spec.Pos{File: dir}, true, &hcl.EvalContext{Functions: l.funcs}, &diags)
	if diags.HasErrors() {
		return nil, diags
	}
	in := &instance{l: l, mod: root, vars: vars}
	res := in.eval()
	diags = append(diags, res.diags...)
	specs := res.specs
	attach(&specs, res, &diags)
	diags = dedup(diags)
	if diags.HasErrors() {
		return nil, diags
	}
	return specs, diags
}

// dedup drops repeated diagnostics: a module called several times reports
// a problem of its source once.
func dedup(ds spec.Diagnostics) spec.Diagnostics {
	seen := map[string]bool{}
	var out spec.Diagnostics
	for _, d := range ds {
		k := fmt.Sprint(d.Severity, d.String())
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

// attach applies items, tags and replicas to the tables they name.
func attach(specs *[]spec.TableSpec, res *result, diags *spec.Diagnostics) {
	attachReplicas(specs, res, diags)
	attachByARN(*specs, res, diags)
	attachByName(*specs, res, diags)
}

// specByARN is the index in specs of the table arn names, or -1.
func specByARN(specs []spec.TableSpec, arn string) int {
	for i := range specs {
		if specs[i].ARN() == arn {
			return i
		}
	}
	return -1
}

// attachReplicas adds the replicas of aws_dynamodb_table_replica to specs,
// each a copy of its table in another Region.
func attachReplicas(specs *[]spec.TableSpec, res *result, diags *spec.Diagnostics) {
	for _, rp := range res.replicas {
		i := specByARN(*specs, rp.arn)
		if i < 0 {
			diags.Errorf(rp.pos, "global_table_arn %s names no table declared in this configuration", rp.arn)
			continue
		}
		src := &(*specs)[i]
		rs := cloneSpec(*src)
		rs.Account = rp.ns.Account
		rs.AccountFrom = rp.addr + ": the account of global_table_arn"
		rs.Region = rp.ns.Region
		rs.Pos = rp.pos
		rs.Source = rp.addr
		rs.PITR = nil
		if rp.pitr != nil && *rp.pitr {
			rs.PITR = &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: rp.pitr}
		}
		if rp.class != nil {
			rs.Create.TableClass = rp.class
		}
		rs.Create.DeletionProtectionEnabled = rp.protection
		if rp.kms != nil {
			rs.Create.SSESpecification = &api.SSESpecification{Enabled: spec.Bool(true), SSEType: spec.Str("KMS"), KMSMasterKeyId: rp.kms}
		}
		rs.Create.Tags = nil
		if len(rp.tags) > 0 {
			rs.Create.Tags = spec.TagsFromMap(rp.tags)
		}
		if rs.Region == src.Region && rs.Account == src.Account {
			diags.Errorf(rp.pos, "the replica of %s is in the table's own Region %s", src.Name(), rs.Region)
			continue
		}
		regions := src.Replicas
		if len(regions) == 0 {
			regions = []string{src.Region}
		}
		regions = append(append([]string(nil), regions...), rs.Region)
		for j := range *specs {
			if (*specs)[j].Name() == src.Name() && (*specs)[j].Account == src.Account {
				(*specs)[j].Replicas = regions
			}
		}
		rs.Replicas = regions
		*specs = append(*specs, rs)
	}
}

// attachByARN applies the resource policies and tags, which name their
// table by ARN.
func attachByARN(specs []spec.TableSpec, res *result, diags *spec.Diagnostics) {
	for _, rp := range res.policies {
		i := specByARN(specs, rp.arn)
		if i < 0 {
			diags.Errorf(rp.pos, "resource_arn %s names no table declared in this configuration", rp.arn)
			continue
		}
		s := &specs[i]
		if rp.stream {
			if s.Create.StreamSpecification == nil {
				diags.Errorf(rp.pos, "resource_arn names the stream of %s, which has no stream (stream_enabled)", s.Name())
				continue
			}
			s.StreamPolicy = spec.Str(rp.policy)
			s.At("StreamSpecification.ResourcePolicy", rp.pos)
		} else {
			s.Create.ResourcePolicy = spec.Str(rp.policy)
			s.At("ResourcePolicy", rp.pos)
		}
		s.ConfirmRemoveSelf = s.ConfirmRemoveSelf || rp.confirm
	}
	for _, t := range res.tags {
		i := specByARN(specs, t.arn)
		if i < 0 {
			diags.Errorf(t.pos, "resource_arn %s names no table declared in this configuration", t.arn)
			continue
		}
		specs[i].SetTag(t.key, t.value)
	}
}

// attachByName applies contributor insights, Kinesis destinations, legacy
// global tables and items, which name their table by account, Region and
// name.
func attachByName(specs []spec.TableSpec, res *result, diags *spec.Diagnostics) {
	for _, pi := range res.insights {
		found := false
		for i := range specs {
			s := &specs[i]
			if s.Namespace() == pi.ns && s.Name() == pi.table {
				s.SetInsights(pi.index, spec.InsightsSetting{Enabled: true, Mode: pi.mode, Pos: pi.pos})
				found = true
				break
			}
		}
		if !found {
			diags.Errorf(pi.pos, "table_name %s names no table declared in account %s, Region %s", pi.table, pi.ns.Account, pi.ns.Region)
		}
	}
	for _, k := range res.kinesis {
		found := false
		for i := range specs {
			s := &specs[i]
			if s.Namespace() == k.ns && s.Name() == k.table {
				if s.Kinesis != nil {
					diags.Errorf(k.pos, "table %s already has a Kinesis streaming destination (%s, declared at %s): only one per table", k.table, s.Kinesis.StreamArn, s.Kinesis.Pos)
				} else {
					s.Kinesis = &spec.KinesisSpec{StreamArn: k.arn, Precision: k.precision, Pos: k.pos}
					s.At("KinesisStreamSpecification", k.pos)
				}
				found = true
				break
			}
		}
		if !found {
			diags.Errorf(k.pos, "table_name %s names no table declared in account %s, Region %s", k.table, k.ns.Account, k.ns.Region)
		}
	}
	for _, g := range res.globals {
		for _, region := range g.Regions {
			found := false
			for i := range specs {
				s := &specs[i]
				if s.Account == g.Account && s.Region == region && s.Name() == g.Name {
					s.LegacyGlobal, found = g, true
				}
			}
			if !found {
				diags.Errorf(g.Pos, "aws_dynamodb_global_table %s: no table %s is declared in account %s, Region %s", g.Name, g.Name, g.Account, region)
			}
		}
	}
	for _, it := range res.items {
		found := false
		for i := range specs {
			s := &specs[i]
			if s.Namespace() == it.ns && s.Name() == it.table {
				item, err := spec.DecodeItem([]byte(it.item))
				if err != nil {
					diags.Errorf(it.itemP, "Invalid item: %v", err)
				} else {
					s.Items = append(s.Items, item)
					s.ItemPos = append(s.ItemPos, it.pos)
				}
				found = true
				break
			}
		}
		if !found {
			diags.Errorf(it.pos, "table_name %s names no table declared in account %s, Region %s", it.table, it.ns.Account, it.ns.Region)
		}
	}
}

// resource evaluates one resource instance and returns its value.
func (in *instance) resource(b *block, addr string, ctx *hcl.EvalContext, provs map[string]*providerCfg, res *result, skipped map[string]bool) cty.Value {
	diags := &res.diags
	s := schema(b.typ)
	if s == nil {
		if !skipped[b.typ+"."+b.name] {
			skipped[b.typ+"."+b.name] = true
			diags.Infof(spec.PosFromHCL(&b.b.DefRange), "%s%s.%s: resource type %s is not a DynamoDB table, skipped", in.addr, b.typ, b.name, b.typ)
		}
		if b.typ == "aws_kinesis_stream" {
			return kinesisStream(b, ctx, provs)
		}
		return cty.DynamicVal
	}
	p := pickProvider(b.body, provs, b.b.DefRange, diags)
	if p == nil {
		return cty.DynamicVal
	}
	if b.typ == "aws_dynamodb_table" {
		return in.table(b, addr, ctx, p, res)
	}
	d := decode(b.body, s, ctx, diags, b.b.DefRange)
	r := &reader{ctx: ctx, diags: diags}
	region := p.region
	if v := r.str(d.attrs, "region"); v != nil {
		region = *v
	}
	ns := api.Namespace{Account: p.account, Region: region}
	pos := spec.PosFromHCL(&b.b.DefRange)
	switch b.typ {
	case "aws_dynamodb_table_item":
		return tableItem(d, r, ns, pos, addr, res)
	case "aws_dynamodb_tag":
		arn, key, value := r.str(d.attrs, "resource_arn"), r.str(d.attrs, "key"), r.str(d.attrs, "value")
		if arn == nil || key == nil {
			return cty.DynamicVal
		}
		v := ""
		if value != nil {
			v = *value
		}
		res.tags = append(res.tags, pendingTag{arn: *arn, key: *key, value: v, pos: pos})
		return cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal(*arn + "," + *key)})
	case "aws_dynamodb_resource_policy":
		return resourcePolicy(d, r, ctx, pos, res)
	case "aws_dynamodb_contributor_insights":
		return contributorInsights(d, r, ns, pos, addr, res)
	case "aws_dynamodb_kinesis_streaming_destination":
		return kinesisDestination(d, r, ns, pos, addr, res)
	case "aws_dynamodb_global_table":
		return legacyGlobalTable(d, r, ns, pos, addr, res)
	case "aws_dynamodb_table_replica":
		return tableReplica(d, r, ns, pos, addr, res)
	}
	return cty.DynamicVal
}

// tableItem reads an aws_dynamodb_table_item; attach puts the item in its table.
func tableItem(d *decoded, r *reader, ns api.Namespace, pos spec.Pos, addr string, res *result) cty.Value {
	diags := r.diags
	table, item := r.str(d.attrs, "table_name"), r.str(d.attrs, "item")
	if table == nil || item == nil {
		if d.attrs["table_name"] == nil || d.attrs["item"] == nil {
			diags.Errorf(pos, "Missing required argument: aws_dynamodb_table_item needs table_name, hash_key and item")
		}
		return cty.DynamicVal
	}
	ip := pos
	if a := d.attrs["item"]; a != nil {
		ip = spec.PosFromHCL(a.Expr.StartRange().Ptr())
	}
	res.items = append(res.items, pendingItem{ns: ns, table: *table, item: *item, pos: pos, itemP: ip})
	return cty.ObjectVal(map[string]cty.Value{"table_name": cty.StringVal(*table), "item": cty.StringVal(*item),
		"id": cty.StringVal(*table)})
}

// contributorInsights reads an aws_dynamodb_contributor_insights; attach applies it.
func contributorInsights(d *decoded, r *reader, ns api.Namespace, pos spec.Pos, addr string, res *result) cty.Value {
	diags := r.diags
	table := r.str(d.attrs, "table_name")
	if table == nil {
		if d.attrs["table_name"] == nil {
			diags.Errorf(pos, "Missing required argument: aws_dynamodb_contributor_insights needs table_name")
		}
		return cty.DynamicVal
	}
	pi := pendingInsights{ns: ns, table: *table, mode: r.str(d.attrs, "mode"), pos: pos}
	// A table ARN names its table (in its own account).
	if parts := strings.SplitN(*table, ":", 6); len(parts) == 6 && strings.HasPrefix(parts[5], "table/") {
		pi.ns.Account, pi.table = parts[4], strings.TrimPrefix(parts[5], "table/")
	}
	if ix := r.str(d.attrs, "index_name"); ix != nil {
		pi.index = *ix
	}
	res.insights = append(res.insights, pi)
	// The provider's ID: name:T/index:I/ACCOUNT (I empty for the table).
	id := "name:" + pi.table + "/index:" + pi.index + "/" + pi.ns.Account
	return cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal(id), "table_name": cty.StringVal(*table)})
}

// kinesisDestination reads an aws_dynamodb_kinesis_streaming_destination; attach applies it.
func kinesisDestination(d *decoded, r *reader, ns api.Namespace, pos spec.Pos, addr string, res *result) cty.Value {
	diags := r.diags
	table, arn := r.str(d.attrs, "table_name"), r.str(d.attrs, "stream_arn")
	if table == nil || arn == nil {
		if d.attrs["table_name"] == nil || d.attrs["stream_arn"] == nil {
			diags.Errorf(pos, "Missing required argument: aws_dynamodb_kinesis_streaming_destination needs table_name and stream_arn")
		} else {
			diags.Warnf(pos, "%s: stream_arn or table_name is not known before apply; the destination is skipped", addr)
		}
		return cty.DynamicVal
	}
	k := pendingKinesis{ns: ns, table: *table, arn: *arn, pos: pos}
	if p := r.str(d.attrs, "approximate_creation_date_time_precision"); p != nil {
		k.precision = *p
	}
	res.kinesis = append(res.kinesis, k)
	return cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal(*table + "," + *arn), "table_name": cty.StringVal(*table),
		"stream_arn": cty.StringVal(*arn), "approximate_creation_date_time_precision": cty.StringVal(k.precision)})
}

// legacyGlobalTable reads an aws_dynamodb_global_table; attach links its tables.
func legacyGlobalTable(d *decoded, r *reader, ns api.Namespace, pos spec.Pos, addr string, res *result) cty.Value {
	diags := r.diags
	// Version 2017.11.29 (legacy): it links tables declared apart,
	// one per Region, provisioned with --legacy-global-tables.
	name := r.str(d.attrs, "name")
	if name == nil {
		if d.attrs["name"] == nil {
			diags.Errorf(pos, "Missing required argument: aws_dynamodb_global_table needs name and replica")
		}
		return cty.DynamicVal
	}
	g := &spec.LegacyGlobal{Name: *name, Account: ns.Account, Pos: pos, Source: addr}
	for _, rb := range d.blocks["replica"] {
		if rn := r.str(rb.attrs, "region_name"); rn != nil {
			g.Regions = append(g.Regions, *rn)
		} else if rb.attrs["region_name"] == nil {
			diags.Errorf(spec.PosFromHCL(&rb.rng), "Missing required argument: replica needs region_name")
		}
	}
	if len(g.Regions) == 0 {
		diags.Errorf(pos, "Insufficient replica blocks: aws_dynamodb_global_table needs at least one replica")
		return cty.DynamicVal
	}
	res.globals = append(res.globals, g)
	return cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal(*name), "name": cty.StringVal(*name),
		"arn": cty.StringVal("arn:aws:dynamodb::" + ns.Account + ":global-table/" + *name)})
}

// tableReplica reads an aws_dynamodb_table_replica; attach adds the replica.
func tableReplica(d *decoded, r *reader, ns api.Namespace, pos spec.Pos, addr string, res *result) cty.Value {
	diags := r.diags
	arn := r.str(d.attrs, "global_table_arn")
	if arn == nil {
		return cty.DynamicVal
	}
	rp := pendingReplica{arn: *arn, ns: ns, pitr: r.boolean(d.attrs, "point_in_time_recovery"),
		class: r.str(d.attrs, "table_class_override"), tags: r.strMap(d.attrs, "tags"),
		protection: r.boolean(d.attrs, "deletion_protection_enabled"), kms: r.str(d.attrs, "kms_key_arn"),
		pos: pos, addr: addr}
	// The replica keeps the source's name; its account is the
	// global table's.
	if parts := strings.SplitN(*arn, ":", 6); len(parts) == 6 && strings.HasPrefix(parts[5], "table/") {
		rp.ns.Account = parts[4]
		name := strings.TrimPrefix(parts[5], "table/")
		res.replicas = append(res.replicas, rp)
		return cty.ObjectVal(map[string]cty.Value{"arn": cty.StringVal(rp.ns.TableARN(name)), "id": cty.StringVal(name + ":" + rp.ns.Region)})
	}
	diags.Errorf(pos, "global_table_arn %q is not a DynamoDB table ARN", *arn)
	return cty.DynamicVal
}

// kinesisStream gives an aws_kinesis_stream (not provisioned: ExtendDB has
// no Kinesis) its name, id and arn, so that a Kinesis streaming
// destination's stream_arn = aws_kinesis_stream.S.arn is known.
func kinesisStream(b *block, ctx *hcl.EvalContext, provs map[string]*providerCfg) cty.Value {
	c, _, _ := b.body.PartialContent(&hcl.BodySchema{Attributes: attrs("name", "region", "provider")})
	if c == nil || c.Attributes["name"] == nil {
		return cty.DynamicVal
	}
	var none spec.Diagnostics
	p := pickProvider(b.body, provs, b.b.DefRange, &none)
	if p == nil {
		return cty.DynamicVal
	}
	v, hd := c.Attributes["name"].Expr.Value(ctx)
	if hd.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return cty.DynamicVal
	}
	region := p.region
	if a := c.Attributes["region"]; a != nil {
		if rv, rd := a.Expr.Value(ctx); !rd.HasErrors() && rv.IsKnown() && !rv.IsNull() && rv.Type() == cty.String {
			region = rv.AsString()
		}
	}
	arn := cty.StringVal("arn:" + api.Namespace{Account: p.account, Region: region}.Partition() + ":kinesis:" + region + ":" + p.account + ":stream/" + v.AsString())
	return cty.ObjectVal(map[string]cty.Value{"name": v, "arn": arn, "id": arn})
}

// resourcePolicy reads an aws_dynamodb_resource_policy. A resource_arn that
// is a table's stream_arn is not known before apply; it is recognised by
// its expression (…aws_dynamodb_table.T.stream_arn) and resolved through
// the same table's arn.
func resourcePolicy(d *decoded, r *reader, ctx *hcl.EvalContext, pos spec.Pos, res *result) cty.Value {
	var arn *string
	stream := false
	if a := d.attrs["resource_arn"]; a != nil {
		if v, hd := a.Expr.Value(ctx); !hd.HasErrors() && !v.IsKnown() {
			if tr, td := hcl.AbsTraversalForExpr(a.Expr); !td.HasErrors() && len(tr) > 1 {
				if last, ok := tr[len(tr)-1].(hcl.TraverseAttr); ok && last.Name == "stream_arn" {
					tableARN := append(append(hcl.Traversal(nil), tr[:len(tr)-1]...), hcl.TraverseAttr{Name: "arn"})
					if tv, vd := tableARN.TraverseAbs(ctx); !vd.HasErrors() && tv.IsKnown() && tv.Type() == cty.String {
						arn, stream = spec.Str(tv.AsString()), true
					}
				}
			}
		}
	}
	if arn == nil {
		arn = r.str(d.attrs, "resource_arn")
		if a := d.attrs["resource_arn"]; arn == nil && a != nil {
			// A table without a stream has a null stream_arn; the
			// provider refuses the null argument.
			if v, hd := a.Expr.Value(ctx); !hd.HasErrors() && v.IsNull() {
				r.diags.Errorf(spec.PosFromHCL(a.Expr.StartRange().Ptr()), "resource_arn is null (a table's stream_arn is null when its stream is not enabled)")
			}
		}
	}
	doc := r.str(d.attrs, "policy")
	if arn == nil || doc == nil {
		if d.attrs["resource_arn"] == nil || d.attrs["policy"] == nil {
			r.diags.Errorf(pos, "Missing required argument: aws_dynamodb_resource_policy needs resource_arn and policy")
		}
		return cty.DynamicVal
	}
	confirm := r.boolean(d.attrs, "confirm_remove_self_resource_access")
	res.policies = append(res.policies, pendingPolicy{arn: *arn, stream: stream, policy: *doc,
		confirm: confirm != nil && *confirm, pos: pos})
	id := cty.StringVal(*arn)
	if stream {
		id = cty.UnknownVal(cty.String)
	}
	return cty.ObjectVal(map[string]cty.Value{"id": id, "resource_arn": id, "policy": cty.StringVal(*doc),
		"revision_id": cty.UnknownVal(cty.String)})
}
