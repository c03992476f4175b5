package emulator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/emulator/internal/vectors"
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
func (e *Engine) CreateTable(ctx context.Context, ns api.Namespace, in *api.CreateTableInput) (*api.CreateTableOutput, error) {
	if in == nil {
		in = &api.CreateTableInput{}
	}
	if err := shape.RequiredTableName(in.TableName); err != nil {
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
			return nil, api.NewError(api.CodeResourceInUse, "Table already exists: %s", t.Name)
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
	return &api.CreateTableOutput{TableDescription: d}, nil
}

// validateCreateShape runs the model's member constraints, collected in the
// service's order.
func validateCreateShape(in *api.CreateTableInput) error {
	var v shape.Violations
	if in.AttributeDefinitions == nil {
		v.Null("attributeDefinitions")
	}
	for i, a := range in.AttributeDefinitions {
		p := fmt.Sprintf("attributeDefinitions.%d.member", i+1)
		if a.AttributeName == nil {
			v.Null(p + ".attributeName")
		} else {
			v.Length(p+".attributeName", *a.AttributeName, 1, 255)
		}
		if a.AttributeType == nil {
			v.Null(p + ".attributeType")
		}
		v.Enum(p+".attributeType", a.AttributeType, "B", "N", "S")
	}
	v.Name("tableName", in.TableName, true)
	v.Throughput("provisionedThroughput", in.ProvisionedThroughput)
	v.KeySchema("keySchema", in.KeySchema, in.KeySchema != nil, 2)
	for i, l := range in.LocalSecondaryIndexes {
		p := fmt.Sprintf("localSecondaryIndexes.%d.member", i+1)
		v.Name(p+".indexName", l.IndexName, true)
		v.KeySchema(p+".keySchema", l.KeySchema, l.KeySchema != nil, 2)
		v.Projection(p+".projection", l.Projection)
	}
	for i, g := range in.GlobalSecondaryIndexes {
		p := fmt.Sprintf("globalSecondaryIndexes.%d.member", i+1)
		v.Name(p+".indexName", g.IndexName, true)
		v.KeySchema(p+".keySchema", g.KeySchema, g.KeySchema != nil, 2*maxGSIHashOrRangeKs)
		v.Projection(p+".projection", g.Projection)
		v.Throughput(p+".provisionedThroughput", g.ProvisionedThroughput)
	}
	for i := range in.VectorIndexes {
		vectors.Shape(&v, fmt.Sprintf("vectorIndexes.%d.member", i+1), &in.VectorIndexes[i])
	}
	v.Enum("billingMode", in.BillingMode, billingProvisioned, billingPayPerRequest)
	if s := in.StreamSpecification; s != nil {
		if s.StreamEnabled == nil {
			v.Null("streamSpecification.streamEnabled")
		}
		v.Enum("streamSpecification.streamViewType", s.StreamViewType, "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY")
	}
	if s := in.SSESpecification; s != nil {
		v.Enum("sSESpecification.sSEType", s.SSEType, "AES256", "KMS")
	}
	tagShape(&v, "tags", in.Tags)
	if in.ResourcePolicy != nil {
		v.Length("resourcePolicy", *in.ResourcePolicy, 1, maxPolicyBytes)
	}
	return v.Err()
}

// tagShape checks the members of a Tags list.
func tagShape(v *shape.Violations, path string, tags []api.Tag) {
	for i, tg := range tags {
		p := fmt.Sprintf("%s.%d.member", path, i+1)
		if tg.Key == nil {
			v.Null(p + ".key")
		} else {
			v.Length(p+".key", *tg.Key, 1, 128)
		}
		if tg.Value == nil {
			v.Null(p + ".value")
		} else {
			v.Length(p+".value", *tg.Value, 0, 256)
		}
	}
}

func keyNames(ks []api.KeySchemaElement) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = shape.StrOrDefault(k.AttributeName, "")
	}
	return out
}

// validateCreateSemantics applies the rules DynamoDB checks after the shape,
// in its order.
func validateCreateSemantics(in *api.CreateTableInput, billing string) error {
	if err := checkCreateCapacity(in, billing); err != nil {
		return err
	}
	c := createCheck{in: in, defs: make([]string, 0, len(in.AttributeDefinitions)), defined: map[string]bool{}, indexNames: map[string]bool{}}
	for _, a := range in.AttributeDefinitions {
		if c.defined[*a.AttributeName] {
			return api.Validation("Attribute Name is duplicated: %s", *a.AttributeName)
		}
		c.defined[*a.AttributeName] = true
		c.defs = append(c.defs, *a.AttributeName)
	}
	if err := c.keySchema(); err != nil {
		return err
	}
	if err := c.definitionsUsed(); err != nil {
		return err
	}
	if err := c.localIndexes(); err != nil {
		return err
	}
	if err := c.globalIndexes(); err != nil {
		return err
	}
	if err := c.vectorIndexes(billing); err != nil {
		return err
	}
	if c.projected > maxProjectedAttrs {
		return shape.InvalidParam("Number of projected attributes in all indexes exceeds limit of %d", maxProjectedAttrs)
	}
	if err := checkCreateThroughputs(in, billing); err != nil {
		return err
	}
	if s := in.StreamSpecification; s != nil {
		if *s.StreamEnabled && s.StreamViewType == nil {
			return shape.InvalidParam("Table is being created with a stream enabled, UpdateViewType is required")
		}
		if !*s.StreamEnabled && s.StreamViewType != nil {
			return shape.InvalidParam("Table is being created with a stream disabled, UpdateViewType should not be specified")
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

// checkCreateCapacity checks ProvisionedThroughput against the billing
// mode and its bounds.
func checkCreateCapacity(in *api.CreateTableInput, billing string) error {
	if billing == billingPayPerRequest && in.ProvisionedThroughput != nil {
		return shape.InvalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
	}
	if billing == billingProvisioned && in.ProvisionedThroughput == nil {
		return shape.InvalidParam("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
	}
	if pt := in.ProvisionedThroughput; pt != nil {
		if *pt.ReadCapacityUnits > maxCapacityUnits {
			return api.Validation("Given value %d for ReadCapacityUnits is out of bounds", *pt.ReadCapacityUnits)
		}
		if *pt.WriteCapacityUnits > maxCapacityUnits {
			return api.Validation("Given value %d for WriteCapacityUnits is out of bounds", *pt.WriteCapacityUnits)
		}
	}
	return nil
}

// createCheck is what validateCreateSemantics learns as it goes: the
// attributes defined, the table's key, the index names and projected
// attributes so far.
type createCheck struct {
	in         *api.CreateTableInput
	defs       []string // AttributeDefinitions' names, in request order
	defined    map[string]bool
	keys       []string // the table's key attributes
	indexNames map[string]bool
	projected  int // NonKeyAttributes across the indexes
}

// undefined reports whether one of keys has no attribute definition.
func (c *createCheck) undefined(keys []string) bool {
	for _, k := range keys {
		if !c.defined[k] {
			return true
		}
	}
	return false
}

// notDefined is the error for keys with no attribute definition.
func (c *createCheck) notDefined(keys []string) error {
	return shape.InvalidParam("Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]",
		strings.Join(keys, ", "), strings.Join(c.defs, ", "))
}

// keySchema checks the table's KeySchema against the definitions.
func (c *createCheck) keySchema() error {
	in := c.in
	keys := keyNames(in.KeySchema)
	c.keys = keys
	if len(keys) == 2 && (c.undefined(keys) || (keys[0] == keys[1] && len(c.defs) == 1)) {
		return api.Validation("Invalid KeySchema: Some index key attribute have no definition")
	}
	if len(keys) == 1 && c.undefined(keys) {
		return c.notDefined(keys)
	}
	if len(keys) == 2 && keys[0] == keys[1] {
		return api.Validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	if *in.KeySchema[0].KeyType != keyHash {
		return api.Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(keys) == 2 && *in.KeySchema[1].KeyType != keyRange {
		return api.Validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
	}
	return nil
}

// definitionsUsed refuses an attribute definition no key schema uses.
func (c *createCheck) definitionsUsed() error {
	in := c.in
	if in.LocalSecondaryIndexes == nil && in.GlobalSecondaryIndexes == nil && in.VectorIndexes == nil {
		if len(c.keys) != len(c.defs) {
			return shape.InvalidParam("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
		}
		return nil
	}
	var used []string
	seen := map[string]bool{}
	note := func(ks []api.KeySchemaElement) {
		for _, k := range ks {
			if n := shape.StrOrDefault(k.AttributeName, ""); !seen[n] {
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
	for _, x := range in.VectorIndexes {
		// The vector attribute too: defining it is refused with its own
		// message (vectors.Check).
		note([]api.KeySchemaElement{{AttributeName: x.VectorAttribute.AttributeName}})
		for _, s := range x.SearchSchema {
			note([]api.KeySchemaElement{{AttributeName: s.AttributeName}})
		}
	}
	for _, d := range c.defs {
		if !seen[d] {
			return shape.InvalidParam("Some AttributeDefinitions are not used. AttributeDefinitions: [%s], keys used: [%s]",
				strings.Join(c.defs, ", "), strings.Join(used, ", "))
		}
	}
	return nil
}

// projection checks an index's Projection and counts its attributes.
func (c *createCheck) projection(p *api.Projection) error {
	if err := shape.CheckProjection(p); err != nil {
		return err
	}
	c.projected += len(p.NonKeyAttributes)
	return nil
}

// indexName refuses a second index of the same name.
func (c *createCheck) indexName(name string) error {
	if c.indexNames[name] {
		return shape.InvalidParam("Duplicate index name: %s", name)
	}
	c.indexNames[name] = true
	return nil
}

// localIndexes checks the LocalSecondaryIndexes.
func (c *createCheck) localIndexes() error {
	lsis, keys := c.in.LocalSecondaryIndexes, c.keys
	if lsis == nil {
		return nil
	}
	if len(lsis) == 0 {
		return shape.InvalidParam("List of LocalSecondaryIndexes is empty")
	}
	if len(keys) != 2 {
		return shape.InvalidParam("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
	}
	for _, l := range lsis {
		ik := keyNames(l.KeySchema)
		if c.undefined(ik) {
			return c.notDefined(ik)
		}
		if len(ik) == 2 && ik[0] == ik[1] {
			return api.Validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
		}
		if *l.KeySchema[0].KeyType != keyHash {
			return api.Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
		}
		if len(ik) == 2 && *l.KeySchema[1].KeyType != keyRange {
			return api.Validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
		}
		if len(ik) != 2 {
			return shape.InvalidParam("Index KeySchema does not have a range key for index: %s", *l.IndexName)
		}
		if ik[0] != keys[0] {
			return shape.InvalidParam("Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s",
				*l.IndexName, ik[0], keys[0])
		}
		if err := c.projection(l.Projection); err != nil {
			return err
		}
		if err := c.indexName(*l.IndexName); err != nil {
			return err
		}
	}
	if len(lsis) > maxLSIs {
		return shape.InvalidParam("Number of LocalSecondaryIndexes exceeds per-table limit of %d", maxLSIs)
	}
	return nil
}

// globalIndexes checks the GlobalSecondaryIndexes' keys and projections.
func (c *createCheck) globalIndexes() error {
	gsis := c.in.GlobalSecondaryIndexes
	if gsis == nil {
		return nil
	}
	if len(gsis) == 0 {
		return shape.InvalidParam("List of GlobalSecondaryIndexes is empty")
	}
	for _, g := range gsis {
		ik := keyNames(g.KeySchema)
		if c.undefined(ik) {
			return c.notDefined(ik)
		}
		if err := checkGSIKeySchema(g.KeySchema); err != nil {
			return err
		}
		if err := c.projection(g.Projection); err != nil {
			return err
		}
		if err := c.indexName(*g.IndexName); err != nil {
			return err
		}
	}
	if len(gsis) > maxGSIs {
		return shape.InvalidParam("GlobalSecondaryIndex count exceeds the per-table limit of %d", maxGSIs)
	}
	return nil
}

// checkCreateThroughputs checks each GSI's throughput settings against
// the billing mode, then the table's on-demand and warm throughput.
func checkCreateThroughputs(in *api.CreateTableInput, billing string) error {
	for _, g := range in.GlobalSecondaryIndexes {
		name := *g.IndexName
		switch {
		case billing == billingPayPerRequest && g.ProvisionedThroughput != nil:
			return shape.InvalidParam("ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", name)
		case billing == billingProvisioned && g.ProvisionedThroughput == nil:
			return shape.InvalidParam("ProvisionedThroughput is not specified for index: %s", name)
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
	return checkCreateWarm(in.WarmThroughput, billing, in.ProvisionedThroughput, "table")
}

// checkGSIKeySchema applies the GSI key rules: HASH first, at most four HASH
// and four RANGE attributes, HASH before RANGE, no name twice.
func checkGSIKeySchema(ks []api.KeySchemaElement) error {
	if *ks[0].KeyType != keyHash {
		return api.Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(ks) == 2 && *ks[0].AttributeName == *ks[1].AttributeName {
		return api.Validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	hashes, ranges := 0, 0
	seen := map[string]bool{}
	for _, k := range ks {
		if seen[*k.AttributeName] {
			return api.Validation("The KeySchema contains multiple key attributes with the same name")
		}
		seen[*k.AttributeName] = true
		if *k.KeyType == keyHash {
			if ranges > 0 {
				return shape.InvalidParam("All HASH key attributes must precede RANGE key attributes in the KeySchema")
			}
			hashes++
		} else {
			ranges++
		}
	}
	if hashes > maxGSIHashOrRangeKs {
		return shape.InvalidParam("The KeySchema exceeds the maximum allowed number of HASH key attributes")
	}
	if ranges > maxGSIHashOrRangeKs {
		return shape.InvalidParam("The KeySchema exceeds the maximum allowed number of RANGE key attributes")
	}
	return nil
}

// checkCreateODT checks an OnDemandThroughput at creation; what names the
// table ("table") or an index ("index : NAME").
func checkCreateODT(o *api.OnDemandThroughput, billing, what string) error {
	if o == nil {
		return nil
	}
	if billing == billingProvisioned && (o.MaxReadRequestUnits != nil || o.MaxWriteRequestUnits != nil) {
		member := "MaxReadRequestUnits"
		if o.MaxReadRequestUnits == nil {
			member = "MaxWriteRequestUnits"
		}
		if what == "table" {
			return shape.InvalidParam("%s for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED", member)
		}
		return shape.InvalidParam("%s for OnDemandThroughput for %s cannot be specified when the table BillingMode is PROVISIONED", member, what)
	}
	if o.MaxReadRequestUnits != nil && *o.MaxReadRequestUnits < 1 {
		return shape.InvalidParam("Requested MaxReadRequestUnits for OnDemandThroughput for %s is outside of valid range", what)
	}
	if o.MaxWriteRequestUnits != nil && *o.MaxWriteRequestUnits < 1 {
		return shape.InvalidParam("Requested MaxWriteRequestUnits for OnDemandThroughput for %s is outside of valid range", what)
	}
	return nil
}

// checkCreateWarm checks a WarmThroughput at creation: not below the
// on-demand starting point, nor below provisioned capacity.
func checkCreateWarm(w *api.WarmThroughput, billing string, pt *api.ProvisionedThroughput, what string) error {
	if w == nil {
		return nil
	}
	if billing == billingPayPerRequest {
		if w.ReadUnitsPerSecond != nil && *w.ReadUnitsPerSecond < onDemandWarmRead {
			return shape.InvalidParam("Requested ReadUnitsPerSecond for WarmThroughput for %s is lower than initial throughput for OnDemand", what)
		}
		if w.WriteUnitsPerSecond != nil && *w.WriteUnitsPerSecond < onDemandWarmWrite {
			return shape.InvalidParam("Requested WriteUnitsPerSecond for WarmThroughput for %s is lower than initial throughput for OnDemand", what)
		}
		return nil
	}
	if pt == nil {
		return nil
	}
	if w.ReadUnitsPerSecond != nil && *w.ReadUnitsPerSecond < *pt.ReadCapacityUnits {
		return shape.InvalidParam("Requested ReadUnitsPerSecond for WarmThroughput for %s is lower than ReadCapacityUnits of ProvisionedThroughput", what)
	}
	if w.WriteUnitsPerSecond != nil && *w.WriteUnitsPerSecond < *pt.WriteCapacityUnits {
		return shape.InvalidParam("Requested WriteUnitsPerSecond for WarmThroughput for %s is lower than WriteCapacityUnits of ProvisionedThroughput", what)
	}
	return nil
}

// checkSSESpec checks an SSESpecification's combination of members.
func checkSSESpec(s *api.SSESpecification) error {
	if s == nil {
		return nil
	}
	if s.Enabled != nil && !*s.Enabled {
		if s.SSEType != nil {
			return shape.InvalidParam("SSEType can not be specified if Enabled is false")
		}
		if s.KMSMasterKeyId != nil {
			return shape.InvalidParam("KMSMasterKeyId can not be specified if Enabled is false")
		}
	}
	if s.SSEType != nil && *s.SSEType == "AES256" {
		return shape.InvalidParam("SSEType AES256 is not supported")
	}
	if s.KMSMasterKeyId != nil && (s.SSEType == nil || *s.SSEType != "KMS") {
		return shape.InvalidParam("SSEType KMS is required if KMSMasterKeyId is specified")
	}
	return nil
}

// sseWanted reports whether s asks for KMS encryption.
func sseWanted(s *api.SSESpecification) bool {
	if s == nil {
		return false
	}
	if s.Enabled != nil {
		return *s.Enabled
	}
	return s.SSEType != nil
}

func checkTableClass(c *string) error {
	if c != nil && *c != classStandard && *c != classIA {
		return api.Validation("Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS].")
	}
	return nil
}

// checkTags applies the tag rules to tags added to existing ones.
func checkTags(tags []api.Tag, existing int) error {
	seen := map[string]bool{}
	for _, tg := range tags {
		k := *tg.Key
		if !validTagText(k) {
			return api.Validation("The Tag Key provided is invalid, Key: %s", k)
		}
		if strings.HasPrefix(strings.ToLower(k), "aws:") {
			return api.Validation("Tag Key cannot be prefixed with aws:, Key: %s", k)
		}
		if !validTagText(*tg.Value) {
			return api.Validation("The Tag Value provided is invalid, Value: %s", *tg.Value)
		}
		if seen[k] {
			return api.Validation("Duplicate Tag Keys provided as input: Duplicate Tag Key found %s", k)
		}
		seen[k] = true
	}
	if len(tags)+existing > maxTags {
		return api.Validation("Number of Tags exceed the current limit for the provided ResourceArn")
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
func (e *Engine) buildTable(ns api.Namespace, in *api.CreateTableInput, billing string, now time.Time) (*tableMeta, error) {
	id, err := keyspace.NewTableID()
	if err != nil {
		return nil, internalError(err)
	}
	t := &tableMeta{
		Version: metaVersion, Account: ns.Account, Region: ns.Region, Name: *in.TableName,
		ID: id, CreatedAt: now, tableBilling: tableBilling{BillingMode: billing},
		tableClassState: tableClassState{TableClass: classStandard},
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
	for i := range in.VectorIndexes {
		t.Vectors = append(t.Vectors, t.newVectorIndex(&in.VectorIndexes[i], false))
	}
	if s := in.StreamSpecification; s != nil && *s.StreamEnabled {
		t.StreamEnabled, t.StreamViewType = true, *s.StreamViewType
		t.StreamLabel = now.UTC().Format(streamLabelLayout)
	}
	if sseWanted(in.SSESpecification) {
		t.SSEEnabled = true
		t.SSEKMSKeyArn = ns.KMSKeyARN(in.SSESpecification.KMSMasterKeyId)
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
func (t *tableMeta) keyElems(ks []api.KeySchemaElement) []keyElem {
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
func (t *tableMeta) newGSI(g *api.GlobalSecondaryIndex, backfill bool) *indexMeta {
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

func odtFrom(o *api.OnDemandThroughput) odtCaps {
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
func raiseWarm(w *warmState, req *api.WarmThroughput) {
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
func (e *Engine) checkTableLimits(ns api.Namespace, t *tableMeta, read, write int64) error {
	lim := e.opts.Limits
	if read > lim.TableMaxReadCapacityUnits {
		return api.NewError(api.CodeLimitExceeded, "The requested ReadCapacityUnits, %d, is above the per table maximum for the account in %s. Per table maximum: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
			read, ns.Region, lim.TableMaxReadCapacityUnits)
	}
	if write > lim.TableMaxWriteCapacityUnits {
		return api.NewError(api.CodeLimitExceeded, "The requested WriteCapacityUnits, %d, is above the per table maximum for the account in %s. Per table maximum: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
			write, ns.Region, lim.TableMaxWriteCapacityUnits)
	}
	for _, ix := range t.GSIs {
		if err := e.checkIndexLimits(ns, ix.Name, ix.Throughput.Read, ix.Throughput.Write); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) checkIndexLimits(ns api.Namespace, name string, read, write int64) error {
	lim := e.opts.Limits
	if read > lim.TableMaxReadCapacityUnits {
		return api.NewError(api.CodeLimitExceeded, "The requested ReadCapacityUnits for index %s, %d, is above the per index maximum for the account in %s. Per table maximum: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
			name, read, ns.Region, lim.TableMaxReadCapacityUnits)
	}
	if write > lim.TableMaxWriteCapacityUnits {
		return api.NewError(api.CodeLimitExceeded, "The requested WriteCapacityUnits for index %s, %d, is above the per index maximum for the account in %s. Per table maximum: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
			name, write, ns.Region, lim.TableMaxWriteCapacityUnits)
	}
	return nil
}
