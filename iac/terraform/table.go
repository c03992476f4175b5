package terraform

import (
	"fmt"
	"sort"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/dynblock"
	"github.com/zclconf/go-cty/cty"
)

func attrs(names ...string) []hcl.AttributeSchema {
	out := make([]hcl.AttributeSchema, len(names))
	for i, n := range names {
		out[i] = hcl.AttributeSchema{Name: n}
	}
	return out
}

func blocks(names ...string) []hcl.BlockHeaderSchema {
	out := make([]hcl.BlockHeaderSchema, len(names))
	for i, n := range names {
		out[i] = hcl.BlockHeaderSchema{Type: n}
	}
	return out
}

// Meta-arguments accepted on every resource.
func metaAttrs() []string  { return []string{"count", "for_each", "provider", "depends_on"} }
func metaBlocks() []string { return []string{"lifecycle", "provisioner", "connection", "timeouts"} }

// schema returns the schema of a resource type's body (nil when ExtendDB
// does not model the type). It follows the current AWS provider.
func schema(typ string) *hcl.BodySchema {
	switch typ {
	case "aws_dynamodb_table":
		return &hcl.BodySchema{
			Attributes: attrs(append([]string{"name", "hash_key", "range_key", "billing_mode", "read_capacity",
				"write_capacity", "stream_enabled", "stream_view_type", "table_class", "deletion_protection_enabled",
				"tags", "region", "restore_source_name", "restore_source_table_arn", "restore_date_time",
				"restore_to_latest_time", "restore_backup_arn"}, metaAttrs()...)...),
			Blocks: blocks(append([]string{"attribute", "global_secondary_index", "local_secondary_index", "ttl",
				"point_in_time_recovery", "server_side_encryption", "replica", "global_table_witness",
				"on_demand_throughput", "warm_throughput", "import_table"}, metaBlocks()...)...),
		}
	case "aws_dynamodb_table_item":
		return &hcl.BodySchema{Attributes: attrs(append([]string{"table_name", "hash_key", "range_key", "item", "region"}, metaAttrs()...)...),
			Blocks: blocks(metaBlocks()...)}
	case "aws_dynamodb_tag":
		return &hcl.BodySchema{Attributes: attrs(append([]string{"resource_arn", "key", "value", "region"}, metaAttrs()...)...),
			Blocks: blocks(metaBlocks()...)}
	case "aws_dynamodb_resource_policy":
		return &hcl.BodySchema{Attributes: attrs(append([]string{"resource_arn", "policy", "confirm_remove_self_resource_access", "region"}, metaAttrs()...)...),
			Blocks: blocks(metaBlocks()...)}
	case "aws_dynamodb_contributor_insights":
		return &hcl.BodySchema{Attributes: attrs(append([]string{"table_name", "index_name", "mode", "region"}, metaAttrs()...)...),
			Blocks: blocks(metaBlocks()...)}
	case "aws_dynamodb_kinesis_streaming_destination":
		return &hcl.BodySchema{Attributes: attrs(append([]string{"table_name", "stream_arn", "approximate_creation_date_time_precision", "region"}, metaAttrs()...)...),
			Blocks: blocks(metaBlocks()...)}
	case "aws_dynamodb_global_table":
		return &hcl.BodySchema{Attributes: attrs(append([]string{"name", "region"}, metaAttrs()...)...),
			Blocks: blocks(append([]string{"replica"}, metaBlocks()...)...)}
	case "aws_dynamodb_table_replica":
		return &hcl.BodySchema{Attributes: attrs(append([]string{"global_table_arn", "kms_key_arn", "point_in_time_recovery",
			"table_class_override", "tags", "deletion_protection_enabled", "region"}, metaAttrs()...)...),
			Blocks: blocks(metaBlocks()...)}
	}
	return nil
}

// nestedSchema returns the schema of a nested block of the modelled
// resources.
func nestedSchema(typ string) *hcl.BodySchema {
	return nestedSchemas()[typ]
}

func nestedSchemas() map[string]*hcl.BodySchema {
	return map[string]*hcl.BodySchema{
		"attribute": {Attributes: attrs("name", "type")},
		"global_secondary_index": {Attributes: attrs("name", "hash_key", "range_key", "projection_type", "non_key_attributes", "read_capacity", "write_capacity"),
			Blocks: blocks("key_schema", "on_demand_throughput", "warm_throughput")},
		"key_schema":             {Attributes: attrs("attribute_name", "key_type")},
		"local_secondary_index":  {Attributes: attrs("name", "range_key", "projection_type", "non_key_attributes")},
		"ttl":                    {Attributes: attrs("enabled", "attribute_name")},
		"point_in_time_recovery": {Attributes: attrs("enabled", "recovery_period_in_days")},
		"server_side_encryption": {Attributes: attrs("enabled", "kms_key_arn")},
		"replica":                {Attributes: attrs("region_name", "kms_key_arn", "point_in_time_recovery", "deletion_protection_enabled", "propagate_tags", "consistency_mode")},
		"global_table_witness":   {Attributes: attrs("region_name")},
		"on_demand_throughput":   {Attributes: attrs("max_read_request_units", "max_write_request_units")},
		"warm_throughput":        {Attributes: attrs("read_units_per_second", "write_units_per_second")},
		"import_table":           {Attributes: attrs("input_format", "input_compression_type"), Blocks: blocks("input_format_options", "s3_bucket_source")},
		"input_format_options":   {Blocks: blocks("csv")},
		"csv":                    {Attributes: attrs("delimiter", "header_list")},
		"s3_bucket_source":       {Attributes: attrs("bucket", "bucket_owner", "key_prefix")},
		"timeouts":               {Attributes: attrs("create", "update", "delete", "read")},
		"lifecycle": {Attributes: attrs("create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by"),
			Blocks: blocks("precondition", "postcondition")},
		"precondition":  {Attributes: attrs("condition", "error_message")},
		"postcondition": {Attributes: attrs("condition", "error_message")},
	}
}

// content decodes a block body (dynamic blocks expanded) by its schema,
// checking nested blocks recursively so a misspelt argument anywhere is
// reported where it is.
func content(body hcl.Body, s *hcl.BodySchema, ctx *hcl.EvalContext, diags *spec.Diagnostics) *hcl.BodyContent {
	c, hd := dynblock.Expand(body, ctx).Content(s)
	*diags = append(*diags, spec.FromHCL(hd)...)
	if c == nil {
		return &hcl.BodyContent{Attributes: hcl.Attributes{}}
	}
	return c
}

type decoded struct {
	attrs  hcl.Attributes
	blocks map[string][]*decoded
	rng    hcl.Range
}

func decode(body hcl.Body, s *hcl.BodySchema, ctx *hcl.EvalContext, diags *spec.Diagnostics, rng hcl.Range) *decoded {
	c := content(body, s, ctx, diags)
	d := &decoded{attrs: c.Attributes, blocks: map[string][]*decoded{}, rng: rng}
	for _, b := range c.Blocks {
		ns := nestedSchema(b.Type)
		if ns == nil || b.Type == "provisioner" || b.Type == "connection" {
			continue
		}
		// Nested bodies from dynblock are already expanded; Content on
		// them keeps the iterator in scope (JustAttributes would not).
		nc, hd := b.Body.Content(ns)
		*diags = append(*diags, spec.FromHCL(hd)...)
		if nc == nil {
			continue
		}
		nd := &decoded{attrs: nc.Attributes, blocks: map[string][]*decoded{}, rng: b.DefRange}
		for _, bb := range nc.Blocks {
			if nns := nestedSchema(bb.Type); nns != nil {
				nd.blocks[bb.Type] = append(nd.blocks[bb.Type], decode(bb.Body, nns, ctx, diags, bb.DefRange))
			}
		}
		d.blocks[b.Type] = append(d.blocks[b.Type], nd)
	}
	return d
}

func (d *decoded) one(typ string) *decoded {
	if bs := d.blocks[typ]; len(bs) > 0 {
		return bs[0]
	}
	return nil
}

// table turns one aws_dynamodb_table instance into its specs (one per
// Region: the table's and each replica's) and the value references see.
func (in *instance) table(b *block, addr string, ctx *hcl.EvalContext, p *providerCfg, res *result) cty.Value {
	diags := &res.diags
	d := decode(b.body, schema(b.typ), ctx, diags, b.defRange())
	r := &reader{ctx: ctx, diags: diags}
	pos := spec.PosFromHCL(&b.b.DefRange)

	region := p.region
	if v := r.str(d.attrs, "region"); v != nil {
		region = *v
	}
	ns := api.Namespace{Account: p.account, Region: region}
	name := r.str(d.attrs, "name")
	if name == nil {
		if a := d.attrs["name"]; a == nil {
			diags.Errorf(pos, "Missing required argument: the argument \"name\" is required, but no definition was found")
		} else if v, hd := a.Expr.Value(ctx); !hd.HasErrors() && (!v.IsKnown() || v.IsNull()) {
			// A table ExtendDB cannot name cannot be provisioned.
			diags.Errorf(spec.PosFromHCL(&a.Range), "the table name must be known before apply; it is null or depends on a resource ExtendDB does not model")
		}
		return cty.DynamicVal
	}
	s := spec.TableSpec{Account: ns.Account, Region: ns.Region, Pos: pos, Source: addr, AccountFrom: p.accountFrom}
	c := &s.Create
	c.TableName = name
	where(&s, d)
	for _, a := range d.blocks["attribute"] {
		c.AttributeDefinitions = append(c.AttributeDefinitions, api.AttributeDefinition{
			AttributeName: r.str(a.attrs, "name"), AttributeType: r.str(a.attrs, "type")})
	}
	hash, rangeKey := r.str(d.attrs, "hash_key"), r.str(d.attrs, "range_key")
	if hash == nil && d.attrs["hash_key"] == nil {
		diags.Errorf(pos, "Missing required argument: the argument \"hash_key\" is required, but no definition was found")
	}
	c.KeySchema = keySchema(hash, rangeKey)
	billing := "PROVISIONED"
	if v := r.str(d.attrs, "billing_mode"); v != nil {
		billing = *v
	}
	c.BillingMode = spec.Str(billing)
	if billing == "PROVISIONED" {
		rc, wc := r.num(d.attrs, "read_capacity"), r.num(d.attrs, "write_capacity")
		if rc != nil || wc != nil {
			c.ProvisionedThroughput = &api.ProvisionedThroughput{ReadCapacityUnits: rc, WriteCapacityUnits: wc}
		}
	}
	if od := d.one("on_demand_throughput"); od != nil {
		c.OnDemandThroughput = onDemand(r, od)
	}
	if w := d.one("warm_throughput"); w != nil {
		c.WarmThroughput = warm(r, w)
	}
	tableIndexes(r, d, c, billing, hash)
	streamOn := tableOptions(r, d, &s)
	tags := map[string]string{}
	for k, v := range p.defaultTags {
		tags[k] = v
	}
	resTags := r.strMap(d.attrs, "tags")
	for k, v := range resTags {
		tags[k] = v
	}
	if len(tags) > 0 {
		c.Tags = spec.TagsFromMap(tags)
	}
	for _, n := range []string{"restore_source_name", "restore_source_table_arn", "restore_date_time", "restore_to_latest_time", "restore_backup_arn"} {
		if a := d.attrs[n]; a != nil {
			diags.Warnf(spec.PosFromHCL(&a.Range), "%s: restores are not performed; the table is created empty", n)
		}
	}
	if it := d.one("import_table"); it != nil {
		s.Import = importTable(r, it)
	}
	if w := d.one("global_table_witness"); w != nil {
		diags.Infof(spec.PosFromHCL(&w.rng), "global_table_witness: witness Regions hold no table in ExtendDB")
	}

	// Replicas: the same table in each replica Region of the same account.
	replicaSpecs, replicaVals := tableReplicas(r, d, &s, addr, ns, *name, streamOn)
	res.specs = append(res.specs, s)
	res.specs = append(res.specs, replicaSpecs...)

	replica := cty.EmptyTupleVal
	if len(replicaVals) > 0 {
		replica = cty.TupleVal(replicaVals)
	}
	return cty.ObjectVal(map[string]cty.Value{
		"id": cty.StringVal(*name), "name": cty.StringVal(*name), "arn": cty.StringVal(ns.TableARN(*name)),
		"stream_arn": streamARN(streamOn), "stream_label": streamLabel(streamOn),
		"hash_key": strOrNull(hash), "range_key": strOrNull(rangeKey), "billing_mode": cty.StringVal(billing),
		"read_capacity": numOrNull(ptOr(c.ProvisionedThroughput, true)), "write_capacity": numOrNull(ptOr(c.ProvisionedThroughput, false)),
		"stream_enabled": cty.BoolVal(streamOn), "stream_view_type": strOrNull(streamView(c)),
		"table_class": strOrNull(c.TableClass), "deletion_protection_enabled": boolOrNull(c.DeletionProtectionEnabled),
		"tags": strMapVal(resTags), "tags_all": strMapVal(tags), "replica": replica, "region": cty.StringVal(region),
	})
}

// tableIndexes reads the table's global and local secondary indexes into c.
func tableIndexes(r *reader, d *decoded, c *api.CreateTableInput, billing string, hash *string) {
	for _, g := range d.blocks["global_secondary_index"] {
		gsi := api.GlobalSecondaryIndex{IndexName: r.str(g.attrs, "name"), Projection: projection(r, g.attrs)}
		if ks := g.blocks["key_schema"]; len(ks) > 0 {
			for _, k := range ks {
				gsi.KeySchema = append(gsi.KeySchema, api.KeySchemaElement{AttributeName: r.str(k.attrs, "attribute_name"), KeyType: r.str(k.attrs, "key_type")})
			}
		} else {
			gsi.KeySchema = keySchema(r.str(g.attrs, "hash_key"), r.str(g.attrs, "range_key"))
		}
		if billing == "PROVISIONED" {
			rc, wc := r.num(g.attrs, "read_capacity"), r.num(g.attrs, "write_capacity")
			if rc != nil || wc != nil {
				gsi.ProvisionedThroughput = &api.ProvisionedThroughput{ReadCapacityUnits: rc, WriteCapacityUnits: wc}
			}
		}
		if od := g.one("on_demand_throughput"); od != nil {
			gsi.OnDemandThroughput = onDemand(r, od)
		}
		if w := g.one("warm_throughput"); w != nil {
			gsi.WarmThroughput = warm(r, w)
		}
		c.GlobalSecondaryIndexes = append(c.GlobalSecondaryIndexes, gsi)
	}
	for _, l := range d.blocks["local_secondary_index"] {
		c.LocalSecondaryIndexes = append(c.LocalSecondaryIndexes, api.LocalSecondaryIndex{
			IndexName:  r.str(l.attrs, "name"),
			KeySchema:  keySchema(hash, r.str(l.attrs, "range_key")),
			Projection: projection(r, l.attrs),
		})
	}
}

// tableOptions reads the table's stream, TTL, PITR, encryption, class and
// deletion protection into s, and reports whether its stream is on.
func tableOptions(r *reader, d *decoded, s *spec.TableSpec) (streamOn bool) {
	c := &s.Create
	if v := r.boolean(d.attrs, "stream_enabled"); v != nil && *v {
		streamOn = true
		c.StreamSpecification = &api.StreamSpecification{StreamEnabled: spec.Bool(true), StreamViewType: r.str(d.attrs, "stream_view_type")}
	}
	if t := d.one("ttl"); t != nil {
		if en := r.boolean(t.attrs, "enabled"); en != nil && *en {
			s.TTL = &api.TimeToLiveSpecification{Enabled: en, AttributeName: r.str(t.attrs, "attribute_name")}
		}
	}
	if pt := d.one("point_in_time_recovery"); pt != nil {
		s.PITR = &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: r.boolean(pt.attrs, "enabled"),
			RecoveryPeriodInDays: r.num(pt.attrs, "recovery_period_in_days")}
		if s.PITR.PointInTimeRecoveryEnabled == nil {
			s.PITR.PointInTimeRecoveryEnabled = spec.Bool(false)
		}
	}
	if sse := d.one("server_side_encryption"); sse != nil {
		en := r.boolean(sse.attrs, "enabled")
		if en != nil {
			c.SSESpecification = &api.SSESpecification{Enabled: en}
			if *en {
				c.SSESpecification.SSEType = spec.Str("KMS")
				c.SSESpecification.KMSMasterKeyId = r.str(sse.attrs, "kms_key_arn")
			}
		}
	}
	c.TableClass = r.str(d.attrs, "table_class")
	c.DeletionProtectionEnabled = r.boolean(d.attrs, "deletion_protection_enabled")
	return streamOn
}

// tableReplicas is the table's replicas: the same table in each replica
// Region of the same account. It sets s.Replicas when there are any.
func tableReplicas(r *reader, d *decoded, s *spec.TableSpec, addr string, ns api.Namespace, name string, streamOn bool) ([]spec.TableSpec, []cty.Value) {
	diags := r.diags
	region := ns.Region
	regions := []string{region}
	var replicaSpecs []spec.TableSpec
	var replicaVals []cty.Value
	for _, rb := range d.blocks["replica"] {
		rn := r.str(rb.attrs, "region_name")
		if rn == nil {
			continue
		}
		if *rn == region {
			diags.Errorf(spec.PosFromHCL(&rb.rng), "replica region_name %s is the table's own Region", *rn)
			continue
		}
		rs := cloneSpec(*s)
		rs.Region = *rn
		rs.Pos = spec.PosFromHCL(&rb.rng)
		rs.Source = fmt.Sprintf("%s.replica[%s]", addr, *rn)
		rs.PITR = nil
		rs.Import = nil // the home Region's import fills the group
		if v := r.boolean(rb.attrs, "point_in_time_recovery"); v != nil && *v {
			rs.PITR = &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: v}
		}
		rs.Create.DeletionProtectionEnabled = r.boolean(rb.attrs, "deletion_protection_enabled")
		if k := r.str(rb.attrs, "kms_key_arn"); k != nil {
			rs.Create.SSESpecification = &api.SSESpecification{Enabled: spec.Bool(true), SSEType: spec.Str("KMS"), KMSMasterKeyId: k}
		}
		if v := r.boolean(rb.attrs, "propagate_tags"); v == nil || !*v {
			rs.Create.Tags = nil
		}
		regions = append(regions, *rn)
		replicaSpecs = append(replicaSpecs, rs)
		rarn := api.Namespace{Account: ns.Account, Region: *rn}.TableARN(name)
		replicaVals = append(replicaVals, cty.ObjectVal(map[string]cty.Value{
			"region_name": cty.StringVal(*rn), "arn": cty.StringVal(rarn),
			"stream_arn": streamARN(streamOn), "stream_label": streamLabel(streamOn),
		}))
	}
	if len(regions) > 1 {
		s.Replicas = regions
		for i := range replicaSpecs {
			replicaSpecs[i].Replicas = regions
		}
	}
	return replicaSpecs, replicaVals
}

// where records in s where each member of its CreateTable input is
// declared in d, so the engine's errors point at the argument or block
// responsible (spec.Blame): the Terraform schema's shape, not the API's
// (hash_key is KeySchema[0], read_capacity ProvisionedThroughput, an
// index's projection_type its Projection).
func where(s *spec.TableSpec, d *decoded) {
	attr := func(path string, as hcl.Attributes, names ...string) {
		for _, n := range names {
			if a := as[n]; a != nil {
				s.At(path, spec.PosFromHCL(&a.Range))
				return
			}
		}
	}
	block := func(path string, b *decoded) {
		if b != nil {
			s.At(path, spec.PosFromHCL(&b.rng))
		}
	}
	attr("TableName", d.attrs, "name")
	attr("BillingMode", d.attrs, "billing_mode")
	attr("KeySchema", d.attrs, "hash_key")
	attr("KeySchema[0]", d.attrs, "hash_key")
	attr("KeySchema[1]", d.attrs, "range_key")
	for i, a := range d.blocks["attribute"] {
		if i == 0 {
			block("AttributeDefinitions", a)
		}
		block(fmt.Sprintf("AttributeDefinitions[%d]", i), a)
	}
	throughput := func(prefix string, as hcl.Attributes) {
		attr(prefix+"ProvisionedThroughput", as, "read_capacity", "write_capacity")
		attr(prefix+"ProvisionedThroughput.ReadCapacityUnits", as, "read_capacity")
		attr(prefix+"ProvisionedThroughput.WriteCapacityUnits", as, "write_capacity")
	}
	caps := func(prefix string, b *decoded) {
		if od := b.one("on_demand_throughput"); od != nil {
			block(prefix+"OnDemandThroughput", od)
			attr(prefix+"OnDemandThroughput.MaxReadRequestUnits", od.attrs, "max_read_request_units")
			attr(prefix+"OnDemandThroughput.MaxWriteRequestUnits", od.attrs, "max_write_request_units")
		}
		if w := b.one("warm_throughput"); w != nil {
			block(prefix+"WarmThroughput", w)
			attr(prefix+"WarmThroughput.ReadUnitsPerSecond", w.attrs, "read_units_per_second")
			attr(prefix+"WarmThroughput.WriteUnitsPerSecond", w.attrs, "write_units_per_second")
		}
	}
	projection := func(prefix string, as hcl.Attributes) {
		attr(prefix+"Projection", as, "projection_type")
		attr(prefix+"Projection.ProjectionType", as, "projection_type")
		attr(prefix+"Projection.NonKeyAttributes", as, "non_key_attributes")
	}
	throughput("", d.attrs)
	caps("", d)
	for i, g := range d.blocks["global_secondary_index"] {
		p := fmt.Sprintf("GlobalSecondaryIndexes[%d]", i)
		block(p, g)
		p += "."
		attr(p+"IndexName", g.attrs, "name")
		if ks := g.blocks["key_schema"]; len(ks) > 0 {
			block(p+"KeySchema", ks[0])
			for j, k := range ks {
				block(fmt.Sprintf("%sKeySchema[%d]", p, j), k)
			}
		} else {
			attr(p+"KeySchema", g.attrs, "hash_key")
			attr(p+"KeySchema[0]", g.attrs, "hash_key")
			attr(p+"KeySchema[1]", g.attrs, "range_key")
		}
		projection(p, g.attrs)
		throughput(p, g.attrs)
		caps(p, g)
	}
	for i, l := range d.blocks["local_secondary_index"] {
		p := fmt.Sprintf("LocalSecondaryIndexes[%d]", i)
		block(p, l)
		p += "."
		attr(p+"IndexName", l.attrs, "name")
		// An LSI's hash key is the table's: its own argument is range_key.
		attr(p+"KeySchema", l.attrs, "range_key")
		attr(p+"KeySchema[1]", l.attrs, "range_key")
		projection(p, l.attrs)
	}
	attr("StreamSpecification", d.attrs, "stream_enabled", "stream_view_type")
	attr("StreamSpecification.StreamViewType", d.attrs, "stream_view_type", "stream_enabled")
	if sse := d.one("server_side_encryption"); sse != nil {
		block("SSESpecification", sse)
		attr("SSESpecification.KMSMasterKeyId", sse.attrs, "kms_key_arn")
	}
	attr("TableClass", d.attrs, "table_class")
	attr("DeletionProtectionEnabled", d.attrs, "deletion_protection_enabled")
	attr("Tags", d.attrs, "tags")
}

func ptOr(pt *api.ProvisionedThroughput, read bool) *int64 {
	if pt == nil {
		return nil
	}
	if read {
		return pt.ReadCapacityUnits
	}
	return pt.WriteCapacityUnits
}

func streamView(c *api.CreateTableInput) *string {
	if c.StreamSpecification == nil {
		return nil
	}
	return c.StreamSpecification.StreamViewType
}

// A stream's ARN embeds its label, the creation time of the stream, which
// only exists once the table is provisioned.
func streamARN(on bool) cty.Value {
	if on {
		return cty.UnknownVal(cty.String)
	}
	return cty.NullVal(cty.String)
}

func streamLabel(on bool) cty.Value { return streamARN(on) }

func keySchema(hash, rangeKey *string) []api.KeySchemaElement {
	var ks []api.KeySchemaElement
	if hash != nil {
		ks = append(ks, api.KeySchemaElement{AttributeName: hash, KeyType: spec.Str("HASH")})
	}
	if rangeKey != nil {
		ks = append(ks, api.KeySchemaElement{AttributeName: rangeKey, KeyType: spec.Str("RANGE")})
	}
	return ks
}

func projection(r *reader, a hcl.Attributes) *api.Projection {
	p := &api.Projection{ProjectionType: r.str(a, "projection_type"), NonKeyAttributes: r.strList(a, "non_key_attributes")}
	sort.Strings(p.NonKeyAttributes)
	return p
}

func onDemand(r *reader, d *decoded) *api.OnDemandThroughput {
	return &api.OnDemandThroughput{MaxReadRequestUnits: r.num(d.attrs, "max_read_request_units"), MaxWriteRequestUnits: r.num(d.attrs, "max_write_request_units")}
}

func warm(r *reader, d *decoded) *api.WarmThroughput {
	return &api.WarmThroughput{ReadUnitsPerSecond: r.num(d.attrs, "read_units_per_second"), WriteUnitsPerSecond: r.num(d.attrs, "write_units_per_second")}
}

func cloneSpec(s spec.TableSpec) spec.TableSpec {
	out := s
	out.Create.GlobalSecondaryIndexes = append([]api.GlobalSecondaryIndex(nil), s.Create.GlobalSecondaryIndexes...)
	out.Create.Tags = append([]api.Tag(nil), s.Create.Tags...)
	out.Items = append(out.Items[:0:0], s.Items...)
	out.ItemPos = append(out.ItemPos[:0:0], s.ItemPos...)
	return out
}

// importTable reads an import_table block: the table is created by
// ImportTable from the S3 stand-in.
func importTable(r *reader, it *decoded) *api.ImportTableInput {
	in := &api.ImportTableInput{InputFormat: r.str(it.attrs, "input_format"),
		InputCompressionType: r.str(it.attrs, "input_compression_type"), S3BucketSource: &api.S3BucketSource{}}
	if src := it.one("s3_bucket_source"); src != nil {
		in.S3BucketSource = &api.S3BucketSource{S3Bucket: r.str(src.attrs, "bucket"),
			S3BucketOwner: r.str(src.attrs, "bucket_owner"), S3KeyPrefix: r.str(src.attrs, "key_prefix")}
	}
	if o := it.one("input_format_options"); o != nil {
		if c := o.one("csv"); c != nil {
			in.InputFormatOptions = &api.InputFormatOptions{Csv: &api.CsvOptions{
				Delimiter: r.str(c.attrs, "delimiter"), HeaderList: r.strList(c.attrs, "header_list")}}
		}
	}
	return in
}
