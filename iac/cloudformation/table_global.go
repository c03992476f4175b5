package cloudformation

import (
	"fmt"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
)

func (s *stack) globalTable(d *decoder, r *resource, props *node, name string) []spec.TableSpec {
	d.object(props, "Properties", "AttributeDefinitions", "BillingMode", "GlobalSecondaryIndexes",
		"GlobalTableSourceArn", "GlobalTableWitnesses", "KeySchema", "LocalSecondaryIndexes", "MultiRegionConsistency",
		"ReadOnDemandThroughputSettings", "ReadProvisionedThroughputSettings", "Replicas", "SSESpecification",
		"StreamSpecification", "TableName", "TimeToLiveSpecification", "WarmThroughput",
		"VectorIndexes", "WriteOnDemandThroughputSettings", "WriteProvisionedThroughputSettings")
	if !d.required(props.get("Replicas"), props, "Replicas") || !d.required(props.get("KeySchema"), props, "KeySchema") {
		return nil
	}
	base := s.newSpec(r, name, props)
	sh := d.globalShared(props, &base)

	replicas := d.list(props.get("Replicas"), "Replicas")
	regions, ok := s.globalRegions(d, props, replicas, base.Create.StreamSpecification != nil)
	if !ok {
		return nil
	}
	var out []spec.TableSpec
	seen := map[string]bool{}
	for _, rep := range replicas {
		if sp, ok := s.globalReplica(d, r, rep, &base, regions, &sh, seen); ok {
			out = append(out, sp)
		}
	}
	return out
}

// gsiWrite is a global table's write settings of one index, which every
// replica's index takes.
type gsiWrite struct {
	write, cap *int64
}

// globalShared holds the table-level settings of a global table that each
// replica takes besides what base holds.
type globalShared struct {
	provisioned     bool
	write, writeCap *int64
	gsiWrites       map[string]gsiWrite
	sseEnabled      *bool
	sseType         *string
}

// globalShared reads the table-level properties of a global table into base
// and the returned settings.
func (d *decoder) globalShared(props *node, base *spec.TableSpec) globalShared {
	var sh globalShared
	c := &base.Create
	c.AttributeDefinitions = d.attrDefs(props.get("AttributeDefinitions"))
	c.KeySchema = d.keySchema(props.get("KeySchema"), "KeySchema")
	c.BillingMode = d.str(props.get("BillingMode"), "BillingMode")
	if c.BillingMode == nil {
		c.BillingMode = spec.Str("PROVISIONED")
	}
	sh.provisioned = *c.BillingMode == "PROVISIONED"
	if n := props.get("WriteProvisionedThroughputSettings"); d.object(n, "WriteProvisionedThroughputSettings", "WriteCapacityAutoScalingSettings") {
		sh.write = d.autoScaling(n.get("WriteCapacityAutoScalingSettings"), "WriteCapacityAutoScalingSettings")
	}
	if sh.provisioned && sh.write == nil {
		d.errorf(props, "WriteProvisionedThroughputSettings must be specified when BillingMode is PROVISIONED")
	}
	if n := props.get("WriteOnDemandThroughputSettings"); d.object(n, "WriteOnDemandThroughputSettings", "MaxWriteRequestUnits") {
		sh.writeCap = d.integer(n.get("MaxWriteRequestUnits"), "MaxWriteRequestUnits")
	}
	if n := props.get("WarmThroughput"); n != nil {
		c.WarmThroughput = d.warm(n)
	}
	sh.gsiWrites = map[string]gsiWrite{}
	for _, e := range d.list(props.get("GlobalSecondaryIndexes"), "GlobalSecondaryIndexes") {
		if !d.object(e, "GlobalSecondaryIndexes", "IndexName", "KeySchema", "Projection", "WarmThroughput",
			"WriteOnDemandThroughputSettings", "WriteProvisionedThroughputSettings") {
			continue
		}
		g := api.GlobalSecondaryIndex{
			IndexName:  d.str(e.get("IndexName"), "IndexName"),
			KeySchema:  d.keySchema(e.get("KeySchema"), "KeySchema"),
			Projection: d.projection(e.get("Projection")),
		}
		if n := e.get("WarmThroughput"); n != nil {
			g.WarmThroughput = d.warm(n)
		}
		var gw gsiWrite
		if n := e.get("WriteProvisionedThroughputSettings"); d.object(n, "WriteProvisionedThroughputSettings", "WriteCapacityAutoScalingSettings") {
			gw.write = d.autoScaling(n.get("WriteCapacityAutoScalingSettings"), "WriteCapacityAutoScalingSettings")
		}
		if n := e.get("WriteOnDemandThroughputSettings"); d.object(n, "WriteOnDemandThroughputSettings", "MaxWriteRequestUnits") {
			gw.cap = d.integer(n.get("MaxWriteRequestUnits"), "MaxWriteRequestUnits")
		}
		if g.IndexName != nil {
			sh.gsiWrites[*g.IndexName] = gw
		}
		c.GlobalSecondaryIndexes = append(c.GlobalSecondaryIndexes, g)
	}
	c.LocalSecondaryIndexes = d.lsis(props.get("LocalSecondaryIndexes"))
	c.VectorIndexes = d.vectorIndexes(props.get("VectorIndexes"))
	if n := props.get("StreamSpecification"); d.object(n, "StreamSpecification", "StreamViewType") {
		c.StreamSpecification = &api.StreamSpecification{StreamEnabled: spec.Bool(true), StreamViewType: d.str(n.get("StreamViewType"), "StreamViewType")}
	}
	if n := props.get("TimeToLiveSpecification"); n != nil {
		base.TTL = d.ttl(n)
	}
	if n := props.get("SSESpecification"); d.object(n, "SSESpecification", "SSEEnabled", "SSEType") {
		sh.sseEnabled = d.boolean(n.get("SSEEnabled"), "SSEEnabled")
		sh.sseType = d.str(n.get("SSEType"), "SSEType")
	}
	d.ignored(props, "GlobalTableSourceArn", "GlobalTableWitnesses", "MultiRegionConsistency",
		"ReadOnDemandThroughputSettings", "ReadProvisionedThroughputSettings")
	return sh
}

// globalRegions checks a global table's replicas and returns their Regions,
// the stack's first; ok is false when there are none.
func (s *stack) globalRegions(d *decoder, props *node, replicas []*node, hasStream bool) (regions []string, ok bool) {
	hasOwn := false
	for _, rep := range replicas {
		if rep.k == kMap {
			if rg := rep.get("Region"); rg != nil && rg.k == kScalar {
				regions = append(regions, rg.s)
				if rg.s == s.region {
					hasOwn = true
				}
			}
		}
	}
	if len(replicas) == 0 {
		d.errorf(props, "Property Replicas cannot be empty.")
		return nil, false
	}
	// The stack's Region is the global table's home (spec.Replicas[0]):
	// the other replicas are added to its table.
	for i, rg := range regions {
		if rg == s.region && i > 0 {
			regions = append(append([]string{rg}, regions[:i]...), regions[i+1:]...)
			break
		}
	}
	if !hasOwn {
		d.errorf(props.get("Replicas"), "The Replicas section must contain an entry for the current region")
	}
	if len(replicas) > 1 && !hasStream {
		d.errorf(props, "StreamSpecification must be specified when there is more than one replica")
	}
	return regions, true
}

// globalReplica is the spec of one replica of a global table: base with the
// replica's own settings. ok is false for a replica left out (an error).
func (s *stack) globalReplica(d *decoder, r *resource, rep *node, base *spec.TableSpec, regions []string, sh *globalShared, seen map[string]bool) (sp spec.TableSpec, ok bool) {
	if !d.object(rep, "Replicas", "Region", "ContributorInsightsSpecification", "DeletionProtectionEnabled",
		"GlobalSecondaryIndexes", "KinesisStreamSpecification", "PointInTimeRecoverySpecification",
		"ReadOnDemandThroughputSettings", "ReadProvisionedThroughputSettings", "ReplicaStreamSpecification",
		"ResourcePolicy", "SSESpecification", "TableClass", "Tags", "DisassociationProtectionEnabled", "WarmThroughput") {
		return sp, false
	}
	region := d.str(rep.get("Region"), "Region")
	if !d.required(rep.get("Region"), rep, "Region") || region == nil {
		return sp, false
	}
	if seen[*region] {
		d.errorf(rep, "Duplicate replica Region %s", *region)
		return sp, false
	}
	seen[*region] = true
	sp = cloneSpec(*base)
	sp.Region = *region
	sp.Pos = rep.pos
	sp.Source = fmt.Sprintf("Resources.%s.Replicas[%s]", r.id, *region)
	if len(regions) > 1 {
		sp.Replicas = regions
	}
	rc := &sp.Create
	if sh.provisioned {
		var read *int64
		if n := rep.get("ReadProvisionedThroughputSettings"); d.object(n, "ReadProvisionedThroughputSettings", "ReadCapacityUnits", "ReadCapacityAutoScalingSettings") {
			read = d.integer(n.get("ReadCapacityUnits"), "ReadCapacityUnits")
			if read == nil {
				read = d.autoScaling(n.get("ReadCapacityAutoScalingSettings"), "ReadCapacityAutoScalingSettings")
			}
		}
		if read == nil {
			d.errorf(rep, "ReadProvisionedThroughputSettings must be specified for each replica when BillingMode is PROVISIONED")
		}
		rc.ProvisionedThroughput = &api.ProvisionedThroughput{ReadCapacityUnits: read, WriteCapacityUnits: sh.write}
	}
	var readCap *int64
	if n := rep.get("ReadOnDemandThroughputSettings"); d.object(n, "ReadOnDemandThroughputSettings", "MaxReadRequestUnits") {
		readCap = d.integer(n.get("MaxReadRequestUnits"), "MaxReadRequestUnits")
	}
	if readCap != nil || sh.writeCap != nil {
		rc.OnDemandThroughput = &api.OnDemandThroughput{MaxReadRequestUnits: readCap, MaxWriteRequestUnits: sh.writeCap}
	}
	d.replicaGSIs(rep, rc, sh)
	if n := rep.get("PointInTimeRecoverySpecification"); n != nil {
		sp.PITR = d.pitr(n)
	}
	rc.DeletionProtectionEnabled = d.boolean(rep.get("DeletionProtectionEnabled"), "DeletionProtectionEnabled")
	if len(regions) > 1 {
		sp.DisassociationProtection = d.boolean(rep.get("DisassociationProtectionEnabled"), "DisassociationProtectionEnabled")
	}
	rc.TableClass = d.str(rep.get("TableClass"), "TableClass")
	rc.Tags = d.tags(rep.get("Tags"))
	if sh.sseEnabled != nil {
		rc.SSESpecification = &api.SSESpecification{Enabled: sh.sseEnabled, SSEType: sh.sseType}
		if n := rep.get("SSESpecification"); d.object(n, "SSESpecification", "KMSMasterKeyId") {
			rc.SSESpecification.KMSMasterKeyId = d.str(n.get("KMSMasterKeyId"), "KMSMasterKeyId")
		}
	}
	if n := rep.get("ResourcePolicy"); n != nil {
		rc.ResourcePolicy = d.policy(n)
	}
	if n := rep.get("ReplicaStreamSpecification"); d.object(n, "ReplicaStreamSpecification", "ResourcePolicy") {
		if rp := n.get("ResourcePolicy"); d.required(rp, n, "ResourcePolicy") {
			sp.StreamPolicy = d.policy(rp)
			sp.At("StreamSpecification.ResourcePolicy", rp.pos)
		}
	}
	if n := rep.get("KinesisStreamSpecification"); n != nil {
		sp.Kinesis = d.kinesis(n)
		sp.At("KinesisStreamSpecification", n.pos)
	}
	sp.ConfirmRemoveSelf = true
	d.ignored(rep, "ContributorInsightsSpecification")
	if len(regions) <= 1 {
		// A table without replicas has no disassociation protection.
		d.ignored(rep, "DisassociationProtectionEnabled")
	}
	return sp, true
}

// replicaGSIs sets the throughput of a replica's indexes: its per-replica
// GSI read settings join the table-level write ones.
func (d *decoder) replicaGSIs(rep *node, rc *api.CreateTableInput, sh *globalShared) {
	repGSI := map[string]*node{}
	for _, g := range d.list(rep.get("GlobalSecondaryIndexes"), "GlobalSecondaryIndexes") {
		if d.object(g, "GlobalSecondaryIndexes", "IndexName", "ContributorInsightsSpecification",
			"ReadOnDemandThroughputSettings", "ReadProvisionedThroughputSettings") {
			if n := d.str(g.get("IndexName"), "IndexName"); n != nil {
				repGSI[*n] = g
			}
		}
	}
	for i := range rc.GlobalSecondaryIndexes {
		g := &rc.GlobalSecondaryIndexes[i]
		if g.IndexName == nil {
			continue
		}
		gw := sh.gsiWrites[*g.IndexName]
		rg := repGSI[*g.IndexName]
		var read, rcap *int64
		if rg != nil {
			if n := rg.get("ReadProvisionedThroughputSettings"); d.object(n, "ReadProvisionedThroughputSettings", "ReadCapacityUnits", "ReadCapacityAutoScalingSettings") {
				read = d.integer(n.get("ReadCapacityUnits"), "ReadCapacityUnits")
				if read == nil {
					read = d.autoScaling(n.get("ReadCapacityAutoScalingSettings"), "ReadCapacityAutoScalingSettings")
				}
			}
			if n := rg.get("ReadOnDemandThroughputSettings"); d.object(n, "ReadOnDemandThroughputSettings", "MaxReadRequestUnits") {
				rcap = d.integer(n.get("MaxReadRequestUnits"), "MaxReadRequestUnits")
			}
		}
		if sh.provisioned {
			w := gw.write
			if w == nil {
				w = sh.write
			}
			if read == nil {
				read = rc.ProvisionedThroughput.ReadCapacityUnits
			}
			g.ProvisionedThroughput = &api.ProvisionedThroughput{ReadCapacityUnits: read, WriteCapacityUnits: w}
		}
		if rcap != nil || gw.cap != nil {
			g.OnDemandThroughput = &api.OnDemandThroughput{MaxReadRequestUnits: rcap, MaxWriteRequestUnits: gw.cap}
		}
	}
}
