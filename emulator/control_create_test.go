package emulator

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
)

func TestCreateTableValidation(t *testing.T) {
	gsi := func(name string, ks []api.KeySchemaElement, proj string, nonKey ...string) api.GlobalSecondaryIndex {
		g := api.GlobalSecondaryIndex{IndexName: sp(name), KeySchema: ks, Projection: &api.Projection{ProjectionType: sp(proj)}}
		if nonKey != nil {
			g.Projection.NonKeyAttributes = nonKey
		}
		return g
	}
	lsi := func(name string, ks []api.KeySchemaElement, proj string) api.LocalSecondaryIndex {
		return api.LocalSecondaryIndex{IndexName: sp(name), KeySchema: ks, Projection: &api.Projection{ProjectionType: sp(proj)}}
	}
	ppr := func(mod func(*api.CreateTableInput)) *api.CreateTableInput {
		in := &api.CreateTableInput{
			TableName:            sp("tbl"),
			AttributeDefinitions: attrs("pk", "S", "sk", "N"),
			KeySchema:            keys("pk", "HASH", "sk", "RANGE"),
			BillingMode:          sp("PAY_PER_REQUEST"),
		}
		mod(in)
		return in
	}
	many := func(n int) []api.GlobalSecondaryIndex {
		var out []api.GlobalSecondaryIndex
		for i := range n {
			out = append(out, gsi(fmt.Sprintf("g%02d", i), keys("pk", "HASH"), "KEYS_ONLY"))
		}
		return out
	}
	tags := func(n int) []api.Tag {
		var out []api.Tag
		for i := range n {
			out = append(out, api.Tag{Key: sp(fmt.Sprintf("k%d", i)), Value: sp("v")})
		}
		return out
	}
	cases := []struct {
		name string
		in   *api.CreateTableInput
		code string
		msg  string
	}{
		{"empty request", &api.CreateTableInput{}, api.CodeValidation,
			"The parameter 'TableName' is required but was not present in the request"},
		{"no table name, before other violations", &api.CreateTableInput{AttributeDefinitions: attrs("a", "X")}, api.CodeValidation,
			"The parameter 'TableName' is required but was not present in the request"},
		{"bad name chars", &api.CreateTableInput{TableName: sp("abc;"), AttributeDefinitions: attrs(), KeySchema: keys("a", "HASH")}, api.CodeValidation,
			"1 validation error detected: Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"short name", ppr(func(in *api.CreateTableInput) { in.TableName = sp("ab") }), api.CodeValidation,
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"long name", ppr(func(in *api.CreateTableInput) { in.TableName = sp(strings.Repeat("a", 256)) }), api.CodeValidation,
			"1 validation error detected: Value '" + strings.Repeat("a", 256) + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{"zero capacity", &api.CreateTableInput{TableName: sp("abc"), AttributeDefinitions: attrs(), KeySchema: []api.KeySchemaElement{}, ProvisionedThroughput: pt(0, -1)}, api.CodeValidation,
			"3 validation errors detected: Value '-1' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1; Value '0' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1; Value '[]' at 'keySchema' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"key type enum and nulls", &api.CreateTableInput{TableName: sp("abc"), AttributeDefinitions: attrs("a", "SS"), KeySchema: []api.KeySchemaElement{{KeyType: sp("HASH")}, {AttributeName: sp("a"), KeyType: sp("Woop")}}}, api.CodeValidation,
			"3 validation errors detected: Value 'SS' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]; Value null at 'keySchema.1.member.attributeName' failed to satisfy constraint: Member must not be null; Value 'Woop' at 'keySchema.2.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"},
		{"three key elements", ppr(func(in *api.CreateTableInput) { in.KeySchema = keys("pk", "HASH", "sk", "RANGE", "x", "RANGE") }), api.CodeValidation,
			"1 validation error detected: Value '[KeySchemaElement(attributeName=pk, keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), KeySchemaElement(attributeName=x, keyType=RANGE)]' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2"},
		{"billing enum", ppr(func(in *api.CreateTableInput) { in.BillingMode = sp("ON_DEMAND") }), api.CodeValidation,
			"1 validation error detected: Value 'ON_DEMAND' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"},
		{"PPR with throughput", ppr(func(in *api.CreateTableInput) { in.ProvisionedThroughput = pt(1, 1) }), api.CodeValidation,
			"One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"},
		{"provisioned without throughput", ppr(func(in *api.CreateTableInput) { in.BillingMode = nil }), api.CodeValidation,
			"One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"},
		{"capacity out of bounds", ppr(func(in *api.CreateTableInput) { in.BillingMode = nil; in.ProvisionedThroughput = pt(1000000000001, 1) }), api.CodeValidation,
			"Given value 1000000000001 for ReadCapacityUnits is out of bounds"},
		{"duplicate attribute", ppr(func(in *api.CreateTableInput) { in.AttributeDefinitions = attrs("pk", "S", "pk", "N") }), api.CodeValidation,
			"Attribute Name is duplicated: pk"},
		{"two keys one undefined", ppr(func(in *api.CreateTableInput) { in.AttributeDefinitions = attrs("pk", "S") }), api.CodeValidation,
			"Invalid KeySchema: Some index key attribute have no definition"},
		{"hash key undefined", ppr(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = attrs("b", "S")
			in.KeySchema = keys("a", "HASH")
		}), api.CodeValidation,
			"One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [a], AttributeDefinitions: [b]"},
		{"same hash and range", ppr(func(in *api.CreateTableInput) { in.KeySchema = keys("pk", "HASH", "pk", "RANGE") }), api.CodeValidation,
			"Both the Hash Key and the Range Key element in the KeySchema have the same name"},
		{"range first", ppr(func(in *api.CreateTableInput) { in.KeySchema = keys("sk", "RANGE", "pk", "HASH") }), api.CodeValidation,
			"Invalid KeySchema: The first KeySchemaElement is not a HASH key type"},
		{"two hashes", ppr(func(in *api.CreateTableInput) { in.KeySchema = keys("pk", "HASH", "sk", "HASH") }), api.CodeValidation,
			"Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"},
		{"unused attribute", ppr(func(in *api.CreateTableInput) { in.AttributeDefinitions = attrs("pk", "S", "sk", "N", "x", "S") }), api.CodeValidation,
			"One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"},
		{"unused attribute with index", ppr(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = attrs("sk", "N", "a", "S", "b", "S", "pk", "S", "c", "S")
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi1", keys("a", "HASH", "sk", "RANGE"), "ALL")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Some AttributeDefinitions are not used. AttributeDefinitions: [sk, a, b, pk, c], keys used: [pk, sk, a]"},
		{"gsi key undefined", ppr(func(in *api.CreateTableInput) {
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi1", keys("q", "HASH"), "ALL")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [q], AttributeDefinitions: [pk, sk]"},
		{"empty gsi list", ppr(func(in *api.CreateTableInput) { in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{} }), api.CodeValidation,
			"One or more parameter values were invalid: List of GlobalSecondaryIndexes is empty"},
		{"empty lsi list", ppr(func(in *api.CreateTableInput) { in.LocalSecondaryIndexes = []api.LocalSecondaryIndex{} }), api.CodeValidation,
			"One or more parameter values were invalid: List of LocalSecondaryIndexes is empty"},
		{"lsi without table range", ppr(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = attrs("pk", "S", "x", "S")
			in.KeySchema = keys("pk", "HASH")
			in.LocalSecondaryIndexes = []api.LocalSecondaryIndex{lsi("lsi1", keys("pk", "HASH", "x", "RANGE"), "ALL")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"},
		{"lsi other hash", ppr(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = attrs("pk", "S", "sk", "N", "a", "S")
			in.LocalSecondaryIndexes = []api.LocalSecondaryIndex{lsi("l-a", keys("a", "HASH", "sk", "RANGE"), "ALL")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: l-a. index hash key: a, table hash key: pk"},
		{"lsi no range", ppr(func(in *api.CreateTableInput) {
			in.LocalSecondaryIndexes = []api.LocalSecondaryIndex{lsi("l-a", keys("pk", "HASH"), "ALL")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Index KeySchema does not have a range key for index: l-a"},
		{"six lsis", ppr(func(in *api.CreateTableInput) {
			for i := range 6 {
				in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, lsi(fmt.Sprintf("l%d0", i), keys("pk", "HASH", "sk", "RANGE"), "ALL"))
			}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds per-table limit of 5"},
		{"21 gsis", ppr(func(in *api.CreateTableInput) { in.GlobalSecondaryIndexes = many(21) }), api.CodeValidation,
			"One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of 20"},
		{"duplicate index name", ppr(func(in *api.CreateTableInput) {
			in.LocalSecondaryIndexes = []api.LocalSecondaryIndex{lsi("dup", keys("pk", "HASH", "sk", "RANGE"), "ALL")}
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("dup", keys("sk", "HASH"), "ALL")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Duplicate index name: dup"},
		{"index name short", ppr(func(in *api.CreateTableInput) {
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("g", keys("sk", "HASH"), "ALL")}
		}), api.CodeValidation,
			"1 validation error detected: Value 'g' at 'globalSecondaryIndexes.1.member.indexName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"projection null", ppr(func(in *api.CreateTableInput) {
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{{IndexName: sp("gsi1"), KeySchema: keys("sk", "HASH")}}
		}), api.CodeValidation,
			"1 validation error detected: Value null at 'globalSecondaryIndexes.1.member.projection' failed to satisfy constraint: Member must not be null"},
		{"projection type null", ppr(func(in *api.CreateTableInput) {
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{{IndexName: sp("gsi1"), KeySchema: keys("sk", "HASH"), Projection: &api.Projection{}}}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Unknown ProjectionType: null"},
		{"include without attrs", ppr(func(in *api.CreateTableInput) {
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi1", keys("sk", "HASH"), "INCLUDE")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified"},
		{"keys only with attrs", ppr(func(in *api.CreateTableInput) {
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi1", keys("sk", "HASH"), "KEYS_ONLY", "x")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified"},
		{"duplicate non-key", ppr(func(in *api.CreateTableInput) {
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi1", keys("sk", "HASH"), "INCLUDE", "x", "x")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Duplicate element in NonKeyAttributes: x"},
		{"over 100 projected", ppr(func(in *api.CreateTableInput) {
			in.GlobalSecondaryIndexes = many(6)
			for i := range in.GlobalSecondaryIndexes {
				in.GlobalSecondaryIndexes[i].Projection = &api.Projection{ProjectionType: sp("INCLUDE")}
				for j := range 17 {
					in.GlobalSecondaryIndexes[i].Projection.NonKeyAttributes = append(in.GlobalSecondaryIndexes[i].Projection.NonKeyAttributes, fmt.Sprintf("a%d", j))
				}
			}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Number of projected attributes in all indexes exceeds limit of 100"},
		{"gsi hash after range", ppr(func(in *api.CreateTableInput) {
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi1", keys("pk", "HASH", "sk", "RANGE", "pk2", "HASH"), "ALL")}
			in.AttributeDefinitions = attrs("pk", "S", "sk", "N", "pk2", "S")
		}), api.CodeValidation,
			"One or more parameter values were invalid: All HASH key attributes must precede RANGE key attributes in the KeySchema"},
		{"gsi five hashes", ppr(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = attrs("pk", "S", "sk", "N", "a", "S", "b", "S", "c", "S")
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi1", keys("pk", "HASH", "sk", "HASH", "a", "HASH", "b", "HASH", "c", "HASH"), "ALL")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of HASH key attributes"},
		{"PPR gsi with throughput", ppr(func(in *api.CreateTableInput) {
			g := gsi("g-a", keys("sk", "HASH"), "ALL")
			g.ProvisionedThroughput = pt(1, 1)
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{g}
		}), api.CodeValidation,
			"One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: g-a when BillingMode is PAY_PER_REQUEST"},
		{"provisioned gsi without throughput", ppr(func(in *api.CreateTableInput) {
			in.BillingMode, in.ProvisionedThroughput = nil, pt(1, 1)
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("g-a", keys("sk", "HASH"), "ALL")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: ProvisionedThroughput is not specified for index: g-a"},
		{"odt on provisioned", ppr(func(in *api.CreateTableInput) {
			in.BillingMode, in.ProvisionedThroughput = nil, pt(1, 1)
			in.OnDemandThroughput = &api.OnDemandThroughput{MaxReadRequestUnits: i64(10)}
		}), api.CodeValidation,
			"One or more parameter values were invalid: MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED"},
		{"odt zero", ppr(func(in *api.CreateTableInput) {
			in.OnDemandThroughput = &api.OnDemandThroughput{MaxWriteRequestUnits: i64(0)}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of valid range"},
		{"gsi odt -1", ppr(func(in *api.CreateTableInput) {
			g := gsi("g-a", keys("sk", "HASH"), "ALL")
			g.OnDemandThroughput = &api.OnDemandThroughput{MaxReadRequestUnits: i64(-1)}
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{g}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Requested MaxReadRequestUnits for OnDemandThroughput for index : g-a is outside of valid range"},
		{"warm below on-demand", ppr(func(in *api.CreateTableInput) { in.WarmThroughput = &api.WarmThroughput{ReadUnitsPerSecond: i64(100)} }), api.CodeValidation,
			"One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand"},
		{"warm below provisioned", ppr(func(in *api.CreateTableInput) {
			in.BillingMode, in.ProvisionedThroughput = nil, pt(50, 50)
			in.WarmThroughput = &api.WarmThroughput{ReadUnitsPerSecond: i64(10)}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for table is lower than ReadCapacityUnits of ProvisionedThroughput"},
		{"stream enabled without type", ppr(func(in *api.CreateTableInput) {
			in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true)}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Table is being created with a stream enabled, UpdateViewType is required"},
		{"stream disabled with type", ppr(func(in *api.CreateTableInput) {
			in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(false), StreamViewType: sp("KEYS_ONLY")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Table is being created with a stream disabled, UpdateViewType should not be specified"},
		{"stream enabled null", ppr(func(in *api.CreateTableInput) { in.StreamSpecification = &api.StreamSpecification{} }), api.CodeValidation,
			"1 validation error detected: Value null at 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null"},
		{"sse disabled with type", ppr(func(in *api.CreateTableInput) {
			in.SSESpecification = &api.SSESpecification{Enabled: bl(false), SSEType: sp("KMS")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: SSEType can not be specified if Enabled is false"},
		{"sse AES256", ppr(func(in *api.CreateTableInput) { in.SSESpecification = &api.SSESpecification{SSEType: sp("AES256")} }), api.CodeValidation,
			"One or more parameter values were invalid: SSEType AES256 is not supported"},
		{"sse key without KMS", ppr(func(in *api.CreateTableInput) {
			in.SSESpecification = &api.SSESpecification{Enabled: bl(true), KMSMasterKeyId: sp("k")}
		}), api.CodeValidation,
			"One or more parameter values were invalid: SSEType KMS is required if KMSMasterKeyId is specified"},
		{"table class", ppr(func(in *api.CreateTableInput) { in.TableClass = sp("COLD") }), api.CodeValidation,
			"Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS]."},
		{"tag aws prefix", ppr(func(in *api.CreateTableInput) { in.Tags = []api.Tag{{Key: sp("aws:x"), Value: sp("v")}} }), api.CodeValidation,
			"Tag Key cannot be prefixed with aws:, Key: aws:x"},
		{"tag bad key", ppr(func(in *api.CreateTableInput) { in.Tags = []api.Tag{{Key: sp("a*b"), Value: sp("v")}} }), api.CodeValidation,
			"The Tag Key provided is invalid, Key: a*b"},
		{"tag duplicate", ppr(func(in *api.CreateTableInput) {
			in.Tags = []api.Tag{{Key: sp("a"), Value: sp("v")}, {Key: sp("a"), Value: sp("w")}}
		}), api.CodeValidation,
			"Duplicate Tag Keys provided as input: Duplicate Tag Key found a"},
		{"51 tags", ppr(func(in *api.CreateTableInput) { in.Tags = tags(51) }), api.CodeValidation,
			"Number of Tags exceed the current limit for the provided ResourceArn"},
		{"tag value null", ppr(func(in *api.CreateTableInput) { in.Tags = []api.Tag{{Key: sp("a")}} }), api.CodeValidation,
			"1 validation error detected: Value null at 'tags.1.member.value' failed to satisfy constraint: Member must not be null"},
		{"table above quota", ppr(func(in *api.CreateTableInput) { in.BillingMode, in.ProvisionedThroughput = nil, pt(40001, 1) }), api.CodeLimitExceeded,
			"The requested ReadCapacityUnits, 40001, is above the per table maximum for the account in us-east-1. Per table maximum: 40000. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."},
		{"index above quota", ppr(func(in *api.CreateTableInput) {
			in.BillingMode, in.ProvisionedThroughput = nil, pt(1, 1)
			g := gsi("gsi1", keys("sk", "HASH"), "ALL")
			g.ProvisionedThroughput = pt(1, 40001)
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{g}
		}), api.CodeLimitExceeded,
			"The requested WriteCapacityUnits for index gsi1, 40001, is above the per index maximum for the account in us-east-1. Per table maximum: 40000. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."},
	}
	te := newTestEngine(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := te.CreateTable(context.Background(), nsA, c.in)
			wantErr(t, err, c.code, c.msg)
		})
	}
	// None of the rejected requests created anything.
	out, err := te.ListTables(context.Background(), nsA, &api.ListTablesInput{})
	if err != nil || len(out.TableNames) != 0 {
		t.Fatalf("ListTables = %v, %v; want no tables", out, err)
	}
}

func TestCreateTableAccepted(t *testing.T) {
	te := newTestEngine(t)
	ok := []*api.CreateTableInput{
		// 20 GSIs, 5 LSIs, a GSI identical to the table key, a GSI named like the table.
		func() *api.CreateTableInput {
			in := &api.CreateTableInput{
				TableName:            sp("big"),
				AttributeDefinitions: attrs("pk", "S", "sk", "N", "l", "S"),
				KeySchema:            keys("pk", "HASH", "sk", "RANGE"),
				BillingMode:          sp("PAY_PER_REQUEST"),
			}
			for i := range 20 {
				name := fmt.Sprintf("g%02d", i)
				if i == 0 {
					name = "big"
				}
				in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, api.GlobalSecondaryIndex{IndexName: sp(name), KeySchema: keys("pk", "HASH", "sk", "RANGE"), Projection: &api.Projection{ProjectionType: sp("ALL")}})
			}
			for i := range 5 {
				rk := "l"
				if i == 0 {
					rk = "sk"
				}
				in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, api.LocalSecondaryIndex{IndexName: sp(fmt.Sprintf("l%02d", i)), KeySchema: keys("pk", "HASH", rk, "RANGE"), Projection: &api.Projection{ProjectionType: sp("KEYS_ONLY")}})
			}
			return in
		}(),
		// TableClass STANDARD, SSE {Enabled:false} and Tags=[] as Terraform sends them.
		{
			TableName: sp("tfx"), AttributeDefinitions: attrs("id", "S"), KeySchema: keys("id", "HASH"),
			BillingMode: sp("PROVISIONED"), ProvisionedThroughput: pt(1, 1), TableClass: sp("STANDARD"),
			SSESpecification: &api.SSESpecification{Enabled: bl(false)}, Tags: []api.Tag{},
		},
		// A multi-attribute GSI key.
		{
			TableName: sp("multi"), AttributeDefinitions: attrs("pk", "S", "a", "S", "b", "N"), KeySchema: keys("pk", "HASH"),
			BillingMode:            sp("PAY_PER_REQUEST"),
			GlobalSecondaryIndexes: []api.GlobalSecondaryIndex{{IndexName: sp("gab"), KeySchema: keys("a", "HASH", "b", "HASH", "pk", "RANGE"), Projection: &api.Projection{ProjectionType: sp("ALL")}}},
		},
	}
	for _, in := range ok {
		te.mustCreate(nsA, in)
	}
	d := te.describeT(nsA, "tfx")
	if d.TableClassSummary != nil || d.SSEDescription != nil || d.BillingModeSummary != nil {
		t.Fatalf("defaults reported: class %v sse %v billing %v", d.TableClassSummary, d.SSEDescription, d.BillingModeSummary)
	}
	_, err := te.CreateTable(context.Background(), nsA, simpleTable("tfx"))
	wantErr(t, err, api.CodeResourceInUse, "Table already exists: tfx")
}
