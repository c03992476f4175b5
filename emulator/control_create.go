package emulator

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"
)

// maxCapacityUnits is the largest ProvisionedThroughput value the service
// accepts before its per-table quota check.
const maxCapacityUnits = 1000000000000

const (
	maxGSIs             = 20
	maxLSIs             = 5
	maxProjectedAttrs   = 100
	maxTags             = 50
	maxGSIHashOrRangeKs = 4
)

// CreateTable creates a table in ns.
func (e *Engine) CreateTable(ctx context.Context, ns Namespace, in *CreateTableInput) (*CreateTableOutput, error) {
	if in == nil {
		in = &CreateTableInput{}
	}
	if err := requiredTableName(in.TableName); err != nil {
		return nil, err
	}
	if err := validateCreateShape(in); err != nil {
		return nil, err
	}
	billing := billingProvisioned
	if in.BillingMode != nil {
		billing = *in.BillingMode
	}
	if err := validateCreateSemantics(in, billing); err != nil {
		return nil, err
	}
	if in.ResourcePolicy != nil {
		if _, err := checkPolicyDocument(*in.ResourcePolicy); err != nil {
			return nil, err
		}
	}
	now := e.now()
	t, err := e.buildTable(ns, in, billing, now)
	if err != nil {
		return nil, err
	}

	e.lockCatalog()
	defer e.unlockCatalog()
	if old := e.tables[ns][t.Name]; old != nil {
		if !old.gone(now) {
			return nil, NewError(CodeResourceInUse, "Table already exists: %s", t.Name)
		}
		e.uncacheTable(ns, t.Name)
	}
	if err := e.checkTableLimits(ns, t, t.Throughput.Read, t.Throughput.Write); err != nil {
		return nil, err
	}
	if err := e.saveTable(t); err != nil {
		return nil, internalError(err)
	}
	d := e.describe(t, now)
	// The CreateTable response carries no warm throughput (the first
	// DescribeTable does), as the service's does.
	d.WarmThroughput = nil
	if d.BillingModeSummary != nil {
		d.BillingModeSummary.LastUpdateToPayPerRequestDateTime = nil
	}
	for i := range d.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes[i].WarmThroughput = nil
	}
	return &CreateTableOutput{TableDescription: d}, nil
}

// validateCreateShape runs the model's member constraints, collected in the
// service's order.
func validateCreateShape(in *CreateTableInput) error {
	var v violations
	if in.AttributeDefinitions == nil {
		v.null("attributeDefinitions")
	}
	for i, a := range in.AttributeDefinitions {
		p := fmt.Sprintf("attributeDefinitions.%d.member", i+1)
		if a.AttributeName == nil {
			v.null(p + ".attributeName")
		} else {
			v.length(p+".attributeName", *a.AttributeName, 1, 255)
		}
		if a.AttributeType == nil {
			v.null(p + ".attributeType")
		}
		v.enum(p+".attributeType", a.AttributeType, "B", "N", "S")
	}
	v.name("tableName", in.TableName, true)
	v.throughput("provisionedThroughput", in.ProvisionedThroughput)
	v.keySchema("keySchema", in.KeySchema, in.KeySchema != nil, 2)
	for i, l := range in.LocalSecondaryIndexes {
		p := fmt.Sprintf("localSecondaryIndexes.%d.member", i+1)
		v.name(p+".indexName", l.IndexName, true)
		v.keySchema(p+".keySchema", l.KeySchema, l.KeySchema != nil, 2)
		v.projection(p+".projection", l.Projection)
	}
	for i, g := range in.GlobalSecondaryIndexes {
		p := fmt.Sprintf("globalSecondaryIndexes.%d.member", i+1)
		v.name(p+".indexName", g.IndexName, true)
		v.keySchema(p+".keySchema", g.KeySchema, g.KeySchema != nil, 2*maxGSIHashOrRangeKs)
		v.projection(p+".projection", g.Projection)
		v.throughput(p+".provisionedThroughput", g.ProvisionedThroughput)
	}
	v.enum("billingMode", in.BillingMode, billingProvisioned, billingPayPerRequest)
	if s := in.StreamSpecification; s != nil {
		if s.StreamEnabled == nil {
			v.null("streamSpecification.streamEnabled")
		}
		v.enum("streamSpecification.streamViewType", s.StreamViewType, "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY")
	}
	if s := in.SSESpecification; s != nil {
		v.enum("sSESpecification.sSEType", s.SSEType, "AES256", "KMS")
	}
	tagShape(&v, "tags", in.Tags)
	if in.ResourcePolicy != nil {
		v.length("resourcePolicy", *in.ResourcePolicy, 1, maxPolicyBytes)
	}
	return v.err()
}

// tagShape checks the members of a Tags list.
func tagShape(v *violations, path string, tags []Tag) {
	for i, tg := range tags {
		p := fmt.Sprintf("%s.%d.member", path, i+1)
		if tg.Key == nil {
			v.null(p + ".key")
		} else {
			v.length(p+".key", *tg.Key, 1, 128)
		}
		if tg.Value == nil {
			v.null(p + ".value")
		} else {
			v.length(p+".value", *tg.Value, 0, 256)
		}
	}
}

func keyNames(ks []KeySchemaElement) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = strOrDefault(k.AttributeName, "")
	}
	return out
}

// validateCreateSemantics applies the rules DynamoDB checks after the shape,
// in its order.
func validateCreateSemantics(in *CreateTableInput, billing string) error {
	if billing == billingPayPerRequest && in.ProvisionedThroughput != nil {
		return invalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
	}
	if billing == billingProvisioned && in.ProvisionedThroughput == nil {
		return invalidParam("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
	}
	if pt := in.ProvisionedThroughput; pt != nil {
		if *pt.ReadCapacityUnits > maxCapacityUnits {
			return Validation("Given value %d for ReadCapacityUnits is out of bounds", *pt.ReadCapacityUnits)
		}
		if *pt.WriteCapacityUnits > maxCapacityUnits {
			return Validation("Given value %d for WriteCapacityUnits is out of bounds", *pt.WriteCapacityUnits)
		}
	}

	defs := make([]string, 0, len(in.AttributeDefinitions))
	defined := map[string]bool{}
	for _, a := range in.AttributeDefinitions {
		if defined[*a.AttributeName] {
			return Validation("Attribute Name is duplicated: %s", *a.AttributeName)
		}
		defined[*a.AttributeName] = true
		defs = append(defs, *a.AttributeName)
	}
	undefined := func(keys []string) bool {
		for _, k := range keys {
			if !defined[k] {
				return true
			}
		}
		return false
	}
	notDefined := func(keys []string) error {
		return invalidParam("Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]",
			strings.Join(keys, ", "), strings.Join(defs, ", "))
	}

	keys := keyNames(in.KeySchema)
	if len(keys) == 2 && (undefined(keys) || (keys[0] == keys[1] && len(defs) == 1)) {
		return Validation("Invalid KeySchema: Some index key attribute have no definition")
	}
	if len(keys) == 1 && undefined(keys) {
		return notDefined(keys)
	}
	if len(keys) == 2 && keys[0] == keys[1] {
		return Validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	if *in.KeySchema[0].KeyType != keyHash {
		return Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(keys) == 2 && *in.KeySchema[1].KeyType != keyRange {
		return Validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
	}

	if in.LocalSecondaryIndexes == nil && in.GlobalSecondaryIndexes == nil {
		if len(keys) != len(defs) {
			return invalidParam("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
		}
	} else {
		var used []string
		seen := map[string]bool{}
		note := func(ks []KeySchemaElement) {
			for _, k := range ks {
				if n := strOrDefault(k.AttributeName, ""); !seen[n] {
					seen[n] = true
					used = append(used, n)
				}
			}
		}
		note(in.KeySchema)
		for _, l := range in.LocalSecondaryIndexes {
			note(l.KeySchema)
		}
		for _, g := range in.GlobalSecondaryIndexes {
			note(g.KeySchema)
		}
		for _, d := range defs {
			if !seen[d] {
				return invalidParam("Some AttributeDefinitions are not used. AttributeDefinitions: [%s], keys used: [%s]",
					strings.Join(defs, ", "), strings.Join(used, ", "))
			}
		}
	}

	indexNames := map[string]bool{}
	projected := 0
	checkProjection := func(p *Projection) error {
		if p.ProjectionType == nil {
			return invalidParam("Unknown ProjectionType: null")
		}
		pt := *p.ProjectionType
		if pt == "INCLUDE" && p.NonKeyAttributes == nil {
			return invalidParam("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
		}
		if pt != "INCLUDE" && p.NonKeyAttributes != nil {
			return invalidParam("ProjectionType is %s, but NonKeyAttributes is specified", pt)
		}
		seen := map[string]bool{}
		for _, a := range p.NonKeyAttributes {
			if seen[a] {
				return invalidParam("Duplicate element in NonKeyAttributes: %s", a)
			}
			seen[a] = true
		}
		projected += len(p.NonKeyAttributes)
		return nil
	}

	if in.LocalSecondaryIndexes != nil {
		if len(in.LocalSecondaryIndexes) == 0 {
			return invalidParam("List of LocalSecondaryIndexes is empty")
		}
		if len(keys) != 2 {
			return invalidParam("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
		}
		for _, l := range in.LocalSecondaryIndexes {
			ik := keyNames(l.KeySchema)
			if undefined(ik) {
				return notDefined(ik)
			}
			if len(ik) == 2 && ik[0] == ik[1] {
				return Validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
			}
			if *l.KeySchema[0].KeyType != keyHash {
				return Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
			}
			if len(ik) == 2 && *l.KeySchema[1].KeyType != keyRange {
				return Validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
			}
			if len(ik) != 2 {
				return invalidParam("Index KeySchema does not have a range key for index: %s", *l.IndexName)
			}
			if ik[0] != keys[0] {
				return invalidParam("Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s",
					*l.IndexName, ik[0], keys[0])
			}
			if err := checkProjection(l.Projection); err != nil {
				return err
			}
			if indexNames[*l.IndexName] {
				return invalidParam("Duplicate index name: %s", *l.IndexName)
			}
			indexNames[*l.IndexName] = true
		}
		if len(in.LocalSecondaryIndexes) > maxLSIs {
			return invalidParam("Number of LocalSecondaryIndexes exceeds per-table limit of %d", maxLSIs)
		}
	}

	if in.GlobalSecondaryIndexes != nil {
		if len(in.GlobalSecondaryIndexes) == 0 {
			return invalidParam("List of GlobalSecondaryIndexes is empty")
		}
		for _, g := range in.GlobalSecondaryIndexes {
			ik := keyNames(g.KeySchema)
			if undefined(ik) {
				return notDefined(ik)
			}
			if err := checkGSIKeySchema(g.KeySchema); err != nil {
				return err
			}
			if err := checkProjection(g.Projection); err != nil {
				return err
			}
			if indexNames[*g.IndexName] {
				return invalidParam("Duplicate index name: %s", *g.IndexName)
			}
			indexNames[*g.IndexName] = true
		}
		if len(in.GlobalSecondaryIndexes) > maxGSIs {
			return invalidParam("GlobalSecondaryIndex count exceeds the per-table limit of %d", maxGSIs)
		}
	}
	if projected > maxProjectedAttrs {
		return invalidParam("Number of projected attributes in all indexes exceeds limit of %d", maxProjectedAttrs)
	}

	for _, g := range in.GlobalSecondaryIndexes {
		name := *g.IndexName
		switch {
		case billing == billingPayPerRequest && g.ProvisionedThroughput != nil:
			return invalidParam("ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", name)
		case billing == billingProvisioned && g.ProvisionedThroughput == nil:
			return invalidParam("ProvisionedThroughput is not specified for index: %s", name)
		}
		if err := checkCreateODT(g.OnDemandThroughput, billing, "index : "+name); err != nil {
			return err
		}
		if err := checkCreateWarm(g.WarmThroughput, billing, g.ProvisionedThroughput, "index "+name); err != nil {
			return err
		}
	}
	if err := checkCreateODT(in.OnDemandThroughput, billing, "table"); err != nil {
		return err
	}
	if err := checkCreateWarm(in.WarmThroughput, billing, in.ProvisionedThroughput, "table"); err != nil {
		return err
	}

	if s := in.StreamSpecification; s != nil {
		if *s.StreamEnabled && s.StreamViewType == nil {
			return invalidParam("Table is being created with a stream enabled, UpdateViewType is required")
		}
		if !*s.StreamEnabled && s.StreamViewType != nil {
			return invalidParam("Table is being created with a stream disabled, UpdateViewType should not be specified")
		}
	}
	if err := checkSSESpec(in.SSESpecification); err != nil {
		return err
	}
	if err := checkTableClass(in.TableClass); err != nil {
		return err
	}
	return checkTags(in.Tags, 0)
}

// checkGSIKeySchema applies the GSI key rules: HASH first, at most four HASH
// and four RANGE attributes, HASH before RANGE, no name twice.
func checkGSIKeySchema(ks []KeySchemaElement) error {
	if *ks[0].KeyType != keyHash {
		return Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(ks) == 2 && *ks[0].AttributeName == *ks[1].AttributeName {
		return Validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	hashes, ranges := 0, 0
	seen := map[string]bool{}
	for _, k := range ks {
		if seen[*k.AttributeName] {
			return Validation("The KeySchema contains multiple key attributes with the same name")
		}
		seen[*k.AttributeName] = true
		if *k.KeyType == keyHash {
			if ranges > 0 {
				return invalidParam("All HASH key attributes must precede RANGE key attributes in the KeySchema")
			}
			hashes++
		} else {
			ranges++
		}
	}
	if hashes > maxGSIHashOrRangeKs {
		return invalidParam("The KeySchema exceeds the maximum allowed number of HASH key attributes")
	}
	if ranges > maxGSIHashOrRangeKs {
		return invalidParam("The KeySchema exceeds the maximum allowed number of RANGE key attributes")
	}
	return nil
}

// checkCreateODT checks an OnDemandThroughput at creation; what names the
// table ("table") or an index ("index : NAME").
func checkCreateODT(o *OnDemandThroughput, billing, what string) error {
	if o == nil {
		return nil
	}
	if billing == billingProvisioned && (o.MaxReadRequestUnits != nil || o.MaxWriteRequestUnits != nil) {
		member := "MaxReadRequestUnits"
		if o.MaxReadRequestUnits == nil {
			member = "MaxWriteRequestUnits"
		}
		if what == "table" {
			return invalidParam("%s for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED", member)
		}
		return invalidParam("%s for OnDemandThroughput for %s cannot be specified when the table BillingMode is PROVISIONED", member, what)
	}
	if o.MaxReadRequestUnits != nil && *o.MaxReadRequestUnits < 1 {
		return invalidParam("Requested MaxReadRequestUnits for OnDemandThroughput for %s is outside of valid range", what)
	}
	if o.MaxWriteRequestUnits != nil && *o.MaxWriteRequestUnits < 1 {
		return invalidParam("Requested MaxWriteRequestUnits for OnDemandThroughput for %s is outside of valid range", what)
	}
	return nil
}

// checkCreateWarm checks a WarmThroughput at creation: not below the
// on-demand starting point, nor below provisioned capacity.
func checkCreateWarm(w *WarmThroughput, billing string, pt *ProvisionedThroughput, what string) error {
	if w == nil {
		return nil
	}
	if billing == billingPayPerRequest {
		if w.ReadUnitsPerSecond != nil && *w.ReadUnitsPerSecond < onDemandWarmRead {
			return invalidParam("Requested ReadUnitsPerSecond for WarmThroughput for %s is lower than initial throughput for OnDemand", what)
		}
		if w.WriteUnitsPerSecond != nil && *w.WriteUnitsPerSecond < onDemandWarmWrite {
			return invalidParam("Requested WriteUnitsPerSecond for WarmThroughput for %s is lower than initial throughput for OnDemand", what)
		}
		return nil
	}
	if pt == nil {
		return nil
	}
	if w.ReadUnitsPerSecond != nil && *w.ReadUnitsPerSecond < *pt.ReadCapacityUnits {
		return invalidParam("Requested ReadUnitsPerSecond for WarmThroughput for %s is lower than ReadCapacityUnits of ProvisionedThroughput", what)
	}
	if w.WriteUnitsPerSecond != nil && *w.WriteUnitsPerSecond < *pt.WriteCapacityUnits {
		return invalidParam("Requested WriteUnitsPerSecond for WarmThroughput for %s is lower than WriteCapacityUnits of ProvisionedThroughput", what)
	}
	return nil
}

// checkSSESpec checks an SSESpecification's combination of members.
func checkSSESpec(s *SSESpecification) error {
	if s == nil {
		return nil
	}
	if s.Enabled != nil && !*s.Enabled {
		if s.SSEType != nil {
			return invalidParam("SSEType can not be specified if Enabled is false")
		}
		if s.KMSMasterKeyId != nil {
			return invalidParam("KMSMasterKeyId can not be specified if Enabled is false")
		}
	}
	if s.SSEType != nil && *s.SSEType == "AES256" {
		return invalidParam("SSEType AES256 is not supported")
	}
	if s.KMSMasterKeyId != nil && (s.SSEType == nil || *s.SSEType != "KMS") {
		return invalidParam("SSEType KMS is required if KMSMasterKeyId is specified")
	}
	return nil
}

// sseWanted reports whether s asks for KMS encryption.
func sseWanted(s *SSESpecification) bool {
	if s == nil {
		return false
	}
	if s.Enabled != nil {
		return *s.Enabled
	}
	return s.SSEType != nil
}

// kmsKeyArn resolves a KMSMasterKeyId (ARN, key ID, alias name) to the ARN
// DescribeTable reports; no key means the AWS-managed key alias/aws/dynamodb,
// given a stable per-namespace key ID.
func kmsKeyArn(ns Namespace, keyID *string) string {
	prefix := "arn:" + ns.Partition() + ":kms:" + ns.Region + ":" + ns.Account + ":"
	if keyID == nil || *keyID == "" || *keyID == "alias/aws/dynamodb" {
		h := sha256.Sum256([]byte("aws/dynamodb\x00" + ns.Account + "\x00" + ns.Region))
		var id tableID
		copy(id[:], h[:16])
		id[6] = (id[6] & 0x0f) | 0x40
		id[8] = (id[8] & 0x3f) | 0x80
		return prefix + "key/" + id.UUID()
	}
	k := *keyID
	switch {
	case strings.HasPrefix(k, "arn:"):
		return k
	case strings.HasPrefix(k, "alias/"):
		return prefix + k
	}
	return prefix + "key/" + k
}

func checkTableClass(c *string) error {
	if c != nil && *c != classStandard && *c != classIA {
		return Validation("Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS].")
	}
	return nil
}

// checkTags applies the tag rules to tags added to existing ones.
func checkTags(tags []Tag, existing int) error {
	seen := map[string]bool{}
	for _, tg := range tags {
		k := *tg.Key
		if !validTagText(k) {
			return Validation("The Tag Key provided is invalid, Key: %s", k)
		}
		if strings.HasPrefix(strings.ToLower(k), "aws:") {
			return Validation("Tag Key cannot be prefixed with aws:, Key: %s", k)
		}
		if !validTagText(*tg.Value) {
			return Validation("The Tag Value provided is invalid, Value: %s", *tg.Value)
		}
		if seen[k] {
			return Validation("Duplicate Tag Keys provided as input: Duplicate Tag Key found %s", k)
		}
		seen[k] = true
	}
	if len(tags)+existing > maxTags {
		return Validation("Number of Tags exceed the current limit for the provided ResourceArn")
	}
	return nil
}

// validTagText reports whether s uses only the characters tags allow:
// Unicode letters, digits, white space and _ . : / = + - @.
func validTagText(s string) bool {
	for _, r := range s {
		switch {
		case r == '_' || r == '.' || r == ':' || r == '/' || r == '=' || r == '+' || r == '-' || r == '@' || r == ' ':
		case r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r > 127:
		default:
			return false
		}
	}
	return true
}

// buildTable turns a validated request into metadata.
func (e *Engine) buildTable(ns Namespace, in *CreateTableInput, billing string, now time.Time) (*tableMeta, error) {
	id, err := newTableID()
	if err != nil {
		return nil, internalError(err)
	}
	t := &tableMeta{
		Version: metaVersion, Account: ns.Account, Region: ns.Region, Name: *in.TableName,
		ID: id, CreatedAt: now, BillingMode: billing, TableClass: classStandard,
	}
	for _, a := range in.AttributeDefinitions {
		t.AttrDefs = append(t.AttrDefs, attrDef{Name: *a.AttributeName, Type: *a.AttributeType})
	}
	t.KeySchema = t.keyElems(in.KeySchema)
	if billing == billingPayPerRequest {
		t.EverPayPerRequest, t.LastPayPerRequest = true, now
		t.Warm = warmState{Read: onDemandWarmRead, Write: onDemandWarmWrite}
		t.OnDemand = odtFrom(in.OnDemandThroughput)
	} else {
		t.Throughput = ptState{Read: *in.ProvisionedThroughput.ReadCapacityUnits, Write: *in.ProvisionedThroughput.WriteCapacityUnits}
		t.Warm = warmState{Read: t.Throughput.Read, Write: t.Throughput.Write}
	}
	raiseWarm(&t.Warm, in.WarmThroughput)
	for _, l := range in.LocalSecondaryIndexes {
		t.LSIs = append(t.LSIs, &indexMeta{
			Name: *l.IndexName, ID: t.allocIndexID(), Local: true,
			KeySchema: t.keyElems(l.KeySchema), ProjectionType: *l.Projection.ProjectionType,
			NonKeyAttrs: l.Projection.NonKeyAttributes,
		})
	}
	for i := range in.GlobalSecondaryIndexes {
		t.GSIs = append(t.GSIs, t.newGSI(&in.GlobalSecondaryIndexes[i], false))
	}
	if s := in.StreamSpecification; s != nil && *s.StreamEnabled {
		t.StreamEnabled, t.StreamViewType = true, *s.StreamViewType
		t.StreamLabel = now.UTC().Format(streamLabelLayout)
	}
	if sseWanted(in.SSESpecification) {
		t.SSEEnabled = true
		t.SSEKMSKeyArn = kmsKeyArn(ns, in.SSESpecification.KMSMasterKeyId)
	}
	if in.TableClass != nil && *in.TableClass != classStandard {
		t.TableClass, t.TableClassSet = *in.TableClass, true
	}
	if in.DeletionProtectionEnabled != nil {
		t.DeletionProtection = *in.DeletionProtectionEnabled
	}
	if in.ResourcePolicy != nil {
		t.Policy = &resourcePolicy{Doc: *in.ResourcePolicy, Revision: nextRevision(nil, now), Updated: now}
	}
	t.Tags = append(t.Tags, in.Tags...)
	if d := e.opts.TransitionDelay; d > 0 {
		t.CreatingUntil = now.Add(d)
		for _, ix := range t.GSIs {
			ix.CreatingUntil = t.CreatingUntil
		}
	}
	return t, nil
}

// keyElems resolves a validated key schema against t's attribute definitions.
func (t *tableMeta) keyElems(ks []KeySchemaElement) []keyElem {
	out := make([]keyElem, len(ks))
	for i, k := range ks {
		typ, _ := t.attrType(*k.AttributeName)
		out[i] = keyElem{Name: *k.AttributeName, KeyType: *k.KeyType, Type: typ}
	}
	return out
}

func (t *tableMeta) allocIndexID() uint32 {
	t.NextIndexID++
	return t.NextIndexID
}

// newGSI builds a GSI's metadata from a validated request; backfill marks
// one added by UpdateTable.
func (t *tableMeta) newGSI(g *GlobalSecondaryIndex, backfill bool) *indexMeta {
	ix := &indexMeta{
		Name: *g.IndexName, ID: t.allocIndexID(), KeySchema: t.keyElems(g.KeySchema),
		ProjectionType: *g.Projection.ProjectionType, NonKeyAttrs: g.Projection.NonKeyAttributes,
		Backfill: backfill,
	}
	if t.BillingMode == billingPayPerRequest {
		ix.Warm = warmState{Read: onDemandWarmRead, Write: onDemandWarmWrite}
		ix.OnDemand = odtFrom(g.OnDemandThroughput)
	} else {
		ix.Throughput = ptState{Read: *g.ProvisionedThroughput.ReadCapacityUnits, Write: *g.ProvisionedThroughput.WriteCapacityUnits}
		ix.Warm = warmState{Read: ix.Throughput.Read, Write: ix.Throughput.Write}
	}
	raiseWarm(&ix.Warm, g.WarmThroughput)
	return ix
}

func odtFrom(o *OnDemandThroughput) odtCaps {
	var r odtCaps
	if o == nil {
		return r
	}
	if o.MaxReadRequestUnits != nil && *o.MaxReadRequestUnits > 0 {
		r.Read = *o.MaxReadRequestUnits
	}
	if o.MaxWriteRequestUnits != nil && *o.MaxWriteRequestUnits > 0 {
		r.Write = *o.MaxWriteRequestUnits
	}
	return r
}

// raiseWarm applies a requested warm throughput (never lowering it).
func raiseWarm(w *warmState, req *WarmThroughput) {
	if req == nil {
		return
	}
	if req.ReadUnitsPerSecond != nil && *req.ReadUnitsPerSecond > w.Read {
		w.Read = *req.ReadUnitsPerSecond
	}
	if req.WriteUnitsPerSecond != nil && *req.WriteUnitsPerSecond > w.Write {
		w.Write = *req.WriteUnitsPerSecond
	}
}

// checkTableLimits enforces the per-table capacity quota on the table's and
// each GSI's provisioned throughput (checked separately, as the service does).
func (e *Engine) checkTableLimits(ns Namespace, t *tableMeta, read, write int64) error {
	lim := e.opts.Limits
	if read > lim.TableMaxReadCapacityUnits {
		return NewError(CodeLimitExceeded, "The requested ReadCapacityUnits, %d, is above the per table maximum for the account in %s. Per table maximum: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
			read, ns.Region, lim.TableMaxReadCapacityUnits)
	}
	if write > lim.TableMaxWriteCapacityUnits {
		return NewError(CodeLimitExceeded, "The requested WriteCapacityUnits, %d, is above the per table maximum for the account in %s. Per table maximum: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
			write, ns.Region, lim.TableMaxWriteCapacityUnits)
	}
	for _, ix := range t.GSIs {
		if err := e.checkIndexLimits(ns, ix.Name, ix.Throughput.Read, ix.Throughput.Write); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) checkIndexLimits(ns Namespace, name string, read, write int64) error {
	lim := e.opts.Limits
	if read > lim.TableMaxReadCapacityUnits {
		return NewError(CodeLimitExceeded, "The requested ReadCapacityUnits for index %s, %d, is above the per index maximum for the account in %s. Per table maximum: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
			name, read, ns.Region, lim.TableMaxReadCapacityUnits)
	}
	if write > lim.TableMaxWriteCapacityUnits {
		return NewError(CodeLimitExceeded, "The requested WriteCapacityUnits for index %s, %d, is above the per index maximum for the account in %s. Per table maximum: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
			name, write, ns.Region, lim.TableMaxWriteCapacityUnits)
	}
	return nil
}
