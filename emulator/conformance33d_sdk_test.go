package emulator_test

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Conformance with DynamoDB's observed behaviour (issue 33, next edition,
// fourth batch), through the SDK.

// pqSortKeys runs a SELECT on "Cs1" and returns the sort keys it answers,
// sorted.
func pqSortKeys(t *testing.T, c *dynamodb.Client, where string) []string {
	t.Helper()
	out, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{
		Statement: aws.String(`SELECT * FROM "Cs1" WHERE ` + where), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return nil
	}
	var sks []string
	for _, it := range out.Items {
		sks = append(sks, it["sk"].(*types.AttributeValueMemberS).Value)
	}
	sort.Strings(sks)
	return sks
}

// TestConformance33dPartiQLNegatedSortKeyOr: OR branches whose sort-key
// condition is negated (NOT …, <>) beside an equality branch are not
// overlapping conditions: the statement runs and returns the union, as
// DynamoDB answers (paritysuite tests/tier2/partiql/whereOverlap.test.ts,
// captured on eu-west-2 and us-east-1).
func TestConformance33dPartiQLNegatedSortKeyOr(t *testing.T) {
	c := pqServer(t)
	for _, sk := range []string{"1", "2", "3"} {
		put(t, c, "Cs1", avm{"pk": sv("p"), "sk": sv(sk)})
	}
	for _, tc := range []struct {
		left string
		want string
	}{
		{`pk = 'p' AND NOT sk = '1'`, "2,3"},
		{`pk = 'p' AND sk <> '1'`, "2,3"},
		{`pk = 'p' AND NOT begins_with(sk, 'x')`, "1,2,3"},
		{`pk = 'p' AND NOT sk IN ['1', '3']`, "2"},
		{`pk = 'p' AND NOT sk > '5'`, "1,2,3"},
		{`pk = 'p' AND NOT (sk = '1')`, "2,3"},
	} {
		if got := strings.Join(pqSortKeys(t, c, tc.left+` OR pk = 'p' AND sk = '2'`), ","); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.left, got, tc.want)
		}
	}
	if got := strings.Join(pqSortKeys(t, c, `pk = 'p' OR pk = 'p' AND NOT sk = '1'`), ","); got != "1,2,3" {
		t.Errorf("bare partition branch: got %s", got)
	}
	// Each item once, however many branches name the partition.
	if got := strings.Join(pqSortKeys(t, c, `pk = 'p' AND sk = '1' OR pk = 'p' AND sk = '2' OR pk = 'p' AND NOT sk = '3'`), ","); got != "1,2" {
		t.Errorf("three branches: got %s", got)
	}
	_, err := exec(c, `SELECT * FROM "Cs1" WHERE pk='p' AND sk > '1' OR pk='p' AND sk = '2'`)
	wantAPIError(t, err, "ValidationException", "Overlapping conditions with range keys are not supported in where clause")
}

// TestConformance33dPartiQLMultiKeyIndex: a read of a GSI with a
// multi-attribute key is refused after the statement parses and its
// parameters convert, and before the key's types, WHERE's requirements
// and ORDER BY are looked at; in a BatchExecuteStatement it fails its own
// statement only, ahead of the batch's key-only rule (paritysuite
// tests/tier3/error-messages/partiqlMultiAttributeIndex.test.ts, captured
// on eu-west-2 and us-east-1).
func TestConformance33dPartiQLMultiKeyIndex(t *testing.T) {
	_, c := mkServer(t)
	mkPut(t, c, "games", mkRows...)
	const refused = "PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute RANGE keys."
	ctx := context.Background()
	run := func(st string, params ...types.AttributeValue) error {
		in := &dynamodb.ExecuteStatementInput{Statement: aws.String(st)}
		if len(params) > 0 {
			in.Parameters = params
		}
		_, err := c.ExecuteStatement(ctx, in)
		return err
	}
	for _, st := range []string{
		`SELECT * FROM "games"."match" WHERE tour = 'T1'`,
		`SELECT id FROM "games"."match" WHERE tour = 'T1' AND rgn = 1 ORDER BY round DESC`,
		`SELECT * FROM "games"."match" WHERE tour = 5`,
		`SELECT * FROM "games"."match" WHERE id = 'c'`,
		`SELECT * FROM "games"."match"`,
	} {
		wantAPIError(t, run(st), "ValidationException", refused)
	}
	wantAPIError(t, run(`SELECT * FROM "games"."match" WHERE`), "ValidationException", "Statement wasn't well formed, can't be processed: Unexpected term")
	wantAPIError(t, run(`SELECT * FROM "games"."match" WHERE tour = ?`, cfN("1e99999999999")), "ValidationException",
		"The parameter cannot be converted to a numeric value: 1e99999999999")

	out, err := c.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`SELECT * FROM "games"."match" WHERE tour = 'T1' AND rgn = 1 AND round = 10 AND bracket = 'upper' AND seq = 5`)},
		{Statement: aws.String(`SELECT * FROM "games" WHERE id = 'c'`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if e := out.Responses[0].Error; e == nil || e.Code != types.BatchStatementErrorCodeEnumValidationError || aws.ToString(e.Message) != refused {
		t.Errorf("batch [0]: %+v", e)
	}
	if r := out.Responses[1]; r.Error != nil || r.Item["id"] == nil {
		t.Errorf("batch [1]: %+v", r)
	}
}

// TestConformance33dPartiQLKeyReadConditions: a SELECT in ExecuteTransaction
// or BatchExecuteStatement names the key and nothing else (attribute_exists,
// a filter, a second value for the key); both answer their key-only message (paritysuite
// tests/tier3/error-messages/partiqlFunctions.test.ts; floci's PartiQL edge
// cases, captured on eu-west-2).
func TestConformance33dPartiQLKeyReadConditions(t *testing.T) {
	c := pqServer(t)
	put(t, c, "Hh1", avm{"pk": sv("a"), "ss": &types.AttributeValueMemberSS{Value: []string{"x"}}, "flag": sv("right")})
	const txKey = "Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must specify the primary key in the where clause."
	for _, st := range []string{
		`SELECT * FROM "Hh1" WHERE pk = 'a' AND attribute_exists(ss)`,
		`SELECT * FROM "Hh1" WHERE pk = 'a' AND attribute_not_exists(nope)`,
		`SELECT * FROM "Hh1" WHERE pk = 'a' AND flag = 'right'`,
	} {
		_, err := tx(c, "", st)
		wantAPIError(t, err, "ValidationException", txKey)
	}
	if out, err := tx(c, "", `SELECT * FROM "Hh1" WHERE pk = 'a'`); err != nil || len(out.Responses) != 1 || out.Responses[0].Item == nil {
		t.Errorf("key-only transaction read: %v", err)
	}
	// The key written twice with one value reads the item; with two values
	// it does not name one item.
	if out, err := tx(c, "", `SELECT * FROM "Hh1" WHERE (pk = 'a') AND pk = 'a'`); err != nil || len(out.Responses) != 1 || out.Responses[0].Item == nil {
		t.Errorf("key written twice: %v", err)
	}
	_, err := tx(c, "", `SELECT * FROM "Hh1" WHERE pk = 'a' AND pk = 'b'`)
	wantAPIError(t, err, "ValidationException", txKey)
	out, err := batch(c,
		`SELECT * FROM "Hh1" WHERE pk = 'a' AND attribute_exists(ss)`,
		`SELECT * FROM "Hh1" WHERE pk = 'b' AND NOT attribute_not_exists(ss)`,
		`SELECT * FROM "Hh1" WHERE pk = 'a' AND flag = 'right'`)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if e := out.Responses[i].Error; e == nil || e.Code != types.BatchStatementErrorCodeEnumValidationError ||
			aws.ToString(e.Message) != "Select statements within BatchExecuteStatement must specify the primary key in the where clause." {
			t.Errorf("batch [%d]: %+v", i, e)
		}
	}
	out, err = batch(c, `SELECT * FROM "Hh1" WHERE pk = 'a' AND pk = 'b'`, `SELECT * FROM "Hh1" WHERE pk = 'a'`)
	if err != nil {
		t.Fatal(err)
	}
	if e := out.Responses[0].Error; e == nil || aws.ToString(e.Message) != "Select statements within BatchExecuteStatement must specify the primary key in the where clause." {
		t.Errorf("batch, two values for the key: %+v", e)
	}
	if r := out.Responses[1]; r.Error != nil || r.Item == nil {
		t.Errorf("batch, the key alone: %+v", r)
	}
}

// TestConformance33dPartiQLIndexProjection: a SELECT list naming
// attributes a GSI does not project is refused, listing them in statement
// order; an LSI read reaches the table for attributes outside its
// projection, in the SELECT list or WHERE, keyed or scanning (paritysuite
// tests/tier2/partiql/executeStatementIndex.test.ts, captured on
// eu-west-1).
func TestConformance33dPartiQLIndexProjection(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	str := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	ks := func(kv ...string) []types.KeySchemaElement {
		var out []types.KeySchemaElement
		for i := 0; i < len(kv); i += 2 {
			out = append(out, types.KeySchemaElement{AttributeName: aws.String(kv[i]), KeyType: types.KeyType(kv[i+1])})
		}
		return out
	}
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("ixp"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{str("pk"), str("sk"), str("gk"), str("lk")},
		KeySchema:            ks("pk", "HASH", "sk", "RANGE"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi2"), KeySchema: ks("gk", "HASH"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"inc"}}}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi2"), KeySchema: ks("pk", "HASH", "lk", "RANGE"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"gk"}}}},
	}); err != nil {
		t.Fatal(err)
	}
	cfPut(t, c, "ixp", map[string]types.AttributeValue{"pk": cfS("p"), "sk": cfS("s1"), "gk": cfS("g"), "lk": cfS("b"),
		"inc": cfS("i"), "data": cfS("one"), "alternate": cfS("x"), "mymap": cfS("y")})

	_, err := exec(c, `SELECT alternate, pk, mymap FROM "ixp"."gsi2" WHERE gk = 'g'`)
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Global secondary index gsi2 does not project [alternate, mymap]")
	_, err = exec(c, `SELECT alternate FROM "ixp"."gsi2"`)
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Global secondary index gsi2 does not project [alternate]")
	if items := mustExec(t, c, `SELECT pk, inc FROM "ixp"."gsi2" WHERE gk = 'g'`); len(items) != 1 || items[0]["inc"] == nil {
		t.Errorf("projected GSI columns: %s", show(items))
	}
	for _, st := range []string{
		`SELECT data FROM "ixp"."lsi2" WHERE pk = 'p' AND lk = 'b'`,
		`SELECT data FROM "ixp"."lsi2"`,
	} {
		items := mustExec(t, c, st)
		if len(items) != 1 || showV(items[0]["data"]) != showV(cfS("one")) || len(items[0]) != 1 {
			t.Errorf("%s: %s", st, show(items))
		}
	}
	// A keyed LSI read may not filter on what the LSI does not project
	// (nubo-db/dynamodb-conformance, recorded in eu-west-2).
	for _, v := range []string{"x", "nope"} {
		_, err := exec(c, `SELECT data FROM "ixp"."lsi2" WHERE pk = 'p' AND alternate = '`+v+`'`)
		wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Secondary index lsi2 does not project one or more filter attributes: [alternate]")
	}
}

// TestConformance33dPartiQLGrammarMessages: DynamoDB's texts for statements
// its PartiQL reader refuses (paritysuite
// tests/tier3/error-messages/partiqlGrammar.test.ts, captured on eu-west-2):
// a number literal whose exponent or scale does not fit 32 bits, a #, and
// an unterminated /* comment are "wasn't well formed" with nothing after
// the colon, ahead of a multi-attribute index's refusal; an alias on an
// INSERT is a leftover token.
func TestConformance33dPartiQLGrammarMessages(t *testing.T) {
	c := pqServer(t)
	const nwf = "Statement wasn't well formed, can't be processed: "
	const left = nwf + "Unexpected token after expression"
	for _, tc := range []struct{ st, want string }{
		{`SELECT * FROM "Hh1" WHERE pk = 1e2147483648`, nwf},
		{`SELECT * FROM "Hh1" WHERE pk = 1e99999999999`, nwf},
		{`SELECT * FROM "Hh1" WHERE pk = -1e99999999999`, nwf},
		{`SELECT * FROM "Hh1" WHERE pk = 1.5e-2147483647`, nwf},
		{`INSERT INTO "Hh1" VALUE {'pk': 'a', 'n': 1e-99999999999}`, nwf},
		{`SELECT * FROM "Hh1" WHERE pk = 1 # note`, nwf},
		{`SELECT * FROM "Hh1" WHERE pk = 1 /* note`, nwf},
		{`INSERT INTO "Hh1" t VALUE {'pk': 'x'}`, left},
		{`SELECT * FROM "Hh1" t WHERE pk = 'x'`, "Aliasing is not supported"},
		{`UPDATE "Hh1" t SET a = 3 WHERE pk = 'x'`, "Aliasing is not supported"},
		{`SELECT * FROM "Hh1" WHERE pk = 1e126`, "Number overflow. Attempting to store a number with magnitude larger than supported range under root"},
	} {
		_, err := exec(c, tc.st)
		wantAPIError(t, err, "ValidationException", tc.want)
	}
	_, err := exec(c, `SELECT * FROM "Nope" WHERE pk = 1e99999999999`)
	wantAPIError(t, err, "ValidationException", nwf)

	_, mc := mkServer(t)
	_, err = mc.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{
		Statement: aws.String(`SELECT * FROM "games"."match" WHERE tour = 1e99999999999`)})
	wantAPIError(t, err, "ValidationException", nwf)
}

// TestConformance33dPartiQLValuePaths: an INSERT's attribute values are
// named "root" in number and data-type messages ({'m': {'x': 1e126}} under
// root.x, a list element under root[1]); set_add/set_delete whose second
// argument is not a set are placed at their first argument (paritysuite
// tests/tier3/error-messages/partiqlGrammar.test.ts and
// partiqlFunctions.test.ts, captured on eu-west-2; floci's PartiQL edge
// cases, eu-west-2, for a second line and a quoted name).
func TestConformance33dPartiQLValuePaths(t *testing.T) {
	c := pqServer(t)
	put(t, c, "Hh1", avm{"pk": sv("i"), "ss": &types.AttributeValueMemberSS{Value: []string{"a"}}})
	const over = "Number overflow. Attempting to store a number with magnitude larger than supported range under "
	at := func(st, tok string, from int) string {
		i := strings.Index(st[from:], tok) + from
		return " at 1:" + strconv.Itoa(i+1) + ":" + strconv.Itoa(len(tok))
	}
	ins := `INSERT INTO "Hh1" VALUE {'pk': 'n', 'ss': set_add(<<'a'>>, <<'b'>>)}`
	for _, tc := range []struct{ st, want string }{
		{`INSERT INTO "Hh1" VALUE {'pk': 'n', 'n': 1e126}`, over + "root"},
		{`INSERT INTO "Hh1" VALUE {'pk': 'n', 'm': {'x': 1e126}}`, over + "root.x"},
		{`INSERT INTO "Hh1" VALUE {'pk': 'n', 'l': [1, 1e126]}`, over + "root[1]"},
		{`INSERT INTO "Hh1" VALUE {'pk': 'n', 'm': {'a': {'x': [1e126]}}}`, over + "root.a.x[0]"},
		{`UPDATE "Hh1" SET a = {'x': 1e126} WHERE pk = 'i'`, over + "root.x"},
		{ins, "Unsupported data type: set_add under key root" + at(ins, "set_add", 0)},
	} {
		_, err := exec(c, tc.st)
		wantAPIError(t, err, "ValidationException", tc.want)
	}
	for _, f := range []string{"set_add", "set_delete"} {
		up := strings.ToUpper(f)
		for _, arg := range []string{"'x'", "['x']"} {
			st := `UPDATE "Hh1" SET ss = ` + f + `(ss, ` + arg + `) WHERE pk = 'i'`
			_, err := exec(c, st)
			wantAPIError(t, err, "ValidationException", "The second argument to "+up+" must be a value with type SET"+at(st, "ss", strings.Index(st, f+"(")))
		}
	}
	st := "UPDATE \"Hh1\"\nSET ss = set_add(ss, 'x')\nWHERE pk = 'i'"
	_, err := exec(c, st)
	wantAPIError(t, err, "ValidationException", "The second argument to SET_ADD must be a value with type SET at 2:18:2")
	st = `UPDATE "Hh1" SET "ss" = set_delete("ss", ['x']) WHERE pk = 'i'`
	_, err = exec(c, st)
	wantAPIError(t, err, "ValidationException", "The second argument to SET_DELETE must be a value with type SET"+at(st, `"ss"`, strings.Index(st, "set_delete(")))
}

// TestConformance33dBatchWriteKeyMismatch: a BatchWriteItem PutRequest whose
// item lacks a key attribute or has one of the wrong type gets DynamoDB's
// key-lookup text, as a DeleteRequest's key does; an empty key value keeps
// its own message (paritysuite tests/tier3/error-messages/batchWriteItem.test.ts,
// captured in eu-west-2, us-east-1, ap-southeast-2 and eu-central-1).
func TestConformance33dBatchWriteKeyMismatch(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	const mismatch = "The provided key element does not match the schema"
	bw := func(table string, r types.WriteRequest) error {
		_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {r}}})
		return err
	}
	pr := func(item map[string]types.AttributeValue) types.WriteRequest {
		return types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}
	}
	dr := func(key map[string]types.AttributeValue) types.WriteRequest {
		return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}}
	}
	type avs = map[string]types.AttributeValue
	for _, r := range []types.WriteRequest{
		pr(avs{"pk": cfN("5")}),
		pr(avs{"pk": &types.AttributeValueMemberL{Value: []types.AttributeValue{cfS("x")}}}),
		pr(avs{"other": cfS("x")}),
		dr(avs{"other": cfS("x")}),
		dr(avs{"pk": cfN("5")}),
	} {
		wantAPIError(t, bw("hto", r), "ValidationException", mismatch)
	}
	wantAPIError(t, bw("hrt", pr(avs{"pk": cfS("x")})), "ValidationException", mismatch)
	wantAPIError(t, bw("hto", pr(avs{"pk": cfS("")})), "ValidationException",
		"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk")
	// PutItem keeps its own wording.
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hto"), Item: avs{"other": cfS("x")}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Missing the key pk in the item")
}

// TestConformance33dWriteEnvelope: PutItem, DeleteItem and UpdateItem report
// their request-validation errors (expression parameters without an
// expression or empty, an empty ConditionExpression, ReturnValues, a
// malformed Expected, an undefined condition value) inside "1 validation
// error detected: ", PutItem's and DeleteItem's unused-values text without
// ": ConditionExpression is null" (paritysuite
// tests/tier3/error-messages/{putItem,deleteItem,updateItem}.test.ts,
// captured in eu-west-2 and us-east-1).
func TestConformance33dWriteEnvelope(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	one := func(m string) string { return "1 validation error detected: " + m }
	const inv = "One or more parameter values were invalid: "
	type avs = map[string]types.AttributeValue
	item := avs{"pk": cfS("e")}
	x := cfS("x")
	type tc struct {
		mod  func(*dynamodb.PutItemInput)
		want string
	}
	for _, tc := range []tc{
		{func(in *dynamodb.PutItemInput) { in.ExpressionAttributeValues = avs{":v": x} }, one("ExpressionAttributeValues can only be specified when using expressions")},
		{func(in *dynamodb.PutItemInput) { in.ExpressionAttributeNames = map[string]string{"#a": "a"} }, one("ExpressionAttributeNames can only be specified when using expressions")},
		{func(in *dynamodb.PutItemInput) { in.ConditionExpression = aws.String("") }, one("Invalid ConditionExpression: The expression can not be empty;")},
		{func(in *dynamodb.PutItemInput) {
			in.Expected = map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(true)}}
		}, one(inv + "Value must be provided when Exists is true for Attribute: a")},
		{func(in *dynamodb.PutItemInput) {
			in.Expected = map[string]types.ExpectedAttributeValue{"a": {ComparisonOperator: "EQ"}}
		}, one(inv + "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a")},
	} {
		in := &dynamodb.PutItemInput{TableName: aws.String("hto"), Item: item}
		tc.mod(in)
		_, err := c.PutItem(ctx, in)
		wantAPIError(t, err, "ValidationException", tc.want)
	}
	type dc struct {
		mod  func(*dynamodb.DeleteItemInput)
		want string
	}
	cond := aws.String("attribute_exists(a)")
	for _, tc := range []dc{
		{func(in *dynamodb.DeleteItemInput) { in.ExpressionAttributeValues = avs{":v": x} }, one("ExpressionAttributeValues can only be specified when using expressions")},
		{func(in *dynamodb.DeleteItemInput) { in.ExpressionAttributeNames = map[string]string{"#a": "a"} }, one("ExpressionAttributeNames can only be specified when using expressions")},
		{func(in *dynamodb.DeleteItemInput) {
			in.Expected = map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(false)}}
			in.ExpressionAttributeNames = map[string]string{"#a": "a"}
		}, one("ExpressionAttributeNames can only be specified when using expressions")},
		{func(in *dynamodb.DeleteItemInput) {
			in.ConditionExpression = cond
			in.ExpressionAttributeValues = avs{}
		}, one("ExpressionAttributeValues must not be empty")},
		{func(in *dynamodb.DeleteItemInput) {
			in.ConditionExpression = cond
			in.ExpressionAttributeNames = map[string]string{}
		}, one("ExpressionAttributeNames must not be empty")},
		{func(in *dynamodb.DeleteItemInput) { in.ConditionExpression = aws.String("") }, one("Invalid ConditionExpression: The expression can not be empty;")},
		{func(in *dynamodb.DeleteItemInput) { in.ReturnValues = "ALL_NEW" }, one("ReturnValues can only be ALL_OLD or NONE")},
		{func(in *dynamodb.DeleteItemInput) { in.ReturnValues = "UPDATED_NEW" }, one("ReturnValues can only be ALL_OLD or NONE")},
		{func(in *dynamodb.DeleteItemInput) {
			in.Expected = map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(true)}}
		}, one(inv + "Value must be provided when Exists is true for Attribute: a")},
		{func(in *dynamodb.DeleteItemInput) {
			in.Expected = map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(false), Value: x}}
		}, one(inv + "Value cannot be used when Exists is false for Attribute: a")},
		{func(in *dynamodb.DeleteItemInput) {
			in.Expected = map[string]types.ExpectedAttributeValue{"a": {Value: x, ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{x}}}
		}, one(inv + "Value and AttributeValueList cannot be used together for Attribute: a")},
		{func(in *dynamodb.DeleteItemInput) {
			in.Expected = map[string]types.ExpectedAttributeValue{"a": {ComparisonOperator: "EQ"}}
		}, one(inv + "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a")},
		{func(in *dynamodb.DeleteItemInput) {
			in.Expected = map[string]types.ExpectedAttributeValue{"a": {ComparisonOperator: "BETWEEN", AttributeValueList: []types.AttributeValue{x}}}
		}, one(inv + "Invalid number of argument(s) for the BETWEEN ComparisonOperator")},
	} {
		in := &dynamodb.DeleteItemInput{TableName: aws.String("hto"), Key: item}
		tc.mod(in)
		_, err := c.DeleteItem(ctx, in)
		wantAPIError(t, err, "ValidationException", tc.want)
	}

	// UpdateItem: an undefined value in the ConditionExpression beside a
	// defined one in the UpdateExpression.
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: item,
		UpdateExpression: aws.String("SET b = :w"), ConditionExpression: aws.String("a = :v"), ExpressionAttributeValues: avs{":w": x}})
	wantAPIError(t, err, "ValidationException", one("Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v"))
	// GetItem keeps the bare text.
	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: item, ExpressionAttributeNames: map[string]string{"#a": "a"}})
	wantAPIError(t, err, "ValidationException", "ExpressionAttributeNames can only be specified when using expressions")
}

// TestConformance33dUpdateItemSize: UpdateItem, a PartiQL UPDATE and a
// transacted Update apply one 400 KB rule, the size of the item the update
// leaves (names and values, key included): 409,600 bytes are written, one
// more is refused with "Item size to update has exceeded the maximum
// allowed size" (a transaction cancels with it as a ValidationError
// reason); the Region split is in docs/differences.md.
func TestConformance33dUpdateItemSize(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	const tooLarge = "Item size to update has exceeded the maximum allowed size"
	// pk "uN" (4 bytes) + "big" (3) + value: 409,600 - 7 - 4 bytes, so
	// that "c" (1) + 3 more bytes reach 409,600 exactly. Each surface has
	// its own partition: 400 KB writes are 400 write units each.
	big := strings.Repeat("x", 409600-7-4)
	var key map[string]types.AttributeValue
	reset := func(pk string) {
		key = map[string]types.AttributeValue{"pk": cfS(pk)}
		cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS(pk), "big": cfS(big)})
	}
	upd := func(v string) error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key,
			UpdateExpression: aws.String("SET c = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfS(v)}})
		return err
	}
	reset("u1")
	wantAPIError(t, upd("abcd"), "ValidationException", tooLarge)
	if err := upd("abc"); err != nil {
		t.Errorf("UpdateItem to 409,600 bytes: %v", err)
	}
	reset("u2")
	_, err := exec(c, `UPDATE "hto" SET c = 'abcd' WHERE pk = 'u2'`)
	wantAPIError(t, err, "ValidationException", tooLarge)
	if _, err := exec(c, `UPDATE "hto" SET c = 'abc' WHERE pk = 'u2'`); err != nil {
		t.Errorf("PartiQL UPDATE to 409,600 bytes: %v", err)
	}
	reset("u3")
	tw := func(v string) error {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{
			TableName: aws.String("hto"), Key: key, UpdateExpression: aws.String("SET c = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfS(v)}}}}})
		return err
	}
	var tce *types.TransactionCanceledException
	if err := tw("abcd"); !errors.As(err, &tce) || len(tce.CancellationReasons) != 1 ||
		aws.ToString(tce.CancellationReasons[0].Code) != "ValidationError" || aws.ToString(tce.CancellationReasons[0].Message) != tooLarge {
		t.Errorf("transacted Update over 400 KB: %v", err)
	}
	if err := tw("abc"); err != nil {
		t.Errorf("transacted Update to 409,600 bytes: %v", err)
	}
}

// TestConformance33dPartiQLIndexFilterProjection: a keyed read of a GSI
// whose WHERE names attributes the index does not project is refused,
// listing them as DynamoDB's Java set does; a statement whose top level is
// an OR, or a term beside the key that names the key too, is read (floci's
// PartiQL edge cases, captured from DynamoDB in eu-west-2).
func TestConformance33dPartiQLIndexFilterProjection(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	str := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("ixf"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{str("pk"), str("gsiPk")},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi-inc"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("gsiPk"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"projattr"}}}},
	}); err != nil {
		t.Fatal(err)
	}
	cfPut(t, c, "ixf", map[string]types.AttributeValue{"pk": cfS("p"), "gsiPk": cfS("y"), "projattr": cfS("proj1"), "nonproj": cfS("np1")})
	const sel = `SELECT pk FROM "ixf"."gsi-inc" WHERE gsiPk='y' AND `
	const refused = "One or more parameter values were invalid: Secondary index gsi-inc does not project one or more filter attributes: "
	for _, tc := range []struct{ where, want string }{
		{"NOT (nonproj='np1' OR projattr='x')", "[nonproj]"},
		{"b='1' AND (a='2' OR projattr='3')", "[a, b]"},
		{"(zz='1' OR aa='2' OR mm='3')", "[zz, aa, mm]"},
	} {
		_, err := exec(c, sel+tc.where)
		wantAPIError(t, err, "ValidationException", refused+tc.want)
	}
	if items := mustExec(t, c, sel+"(projattr='proj1' OR projattr='proj2')"); len(items) != 1 {
		t.Errorf("projected filter: %s", show(items))
	}
	const idx = `SELECT pk FROM "ixf"."gsi-inc" WHERE `
	_, err := exec(c, idx+"(gsiPk='y' OR gsiPk='z') AND zz='1'")
	wantAPIError(t, err, "ValidationException", refused+"[zz]")
	for _, where := range []string{
		"(gsiPk='y' AND projattr='1') OR (gsiPk='z' AND aa='1')",
		"gsiPk > 'a' AND zz='1'",
		"gsiPk='y' AND (gsiPk='z' OR zz='1')",
		"(gsiPk='y' AND zz='1') OR aa='1'",
	} {
		if _, err := exec(c, idx+where); err != nil {
			t.Errorf("%s: %v", where, err)
		}
	}
}

// TestConformance33dPartiQLOperandTypes: an operand of the wrong type in a
// statement's function or arithmetic gets DynamoDB's bare "Incorrect operand
// type …" text, without a classic expression's name, before the table's
// item is read (floci's PartiQL edge cases, captured from DynamoDB in
// eu-west-2).
func TestConformance33dPartiQLOperandTypes(t *testing.T) {
	c := pqServer(t)
	put(t, c, "Cs1", avm{"pk": sv("a"), "sk": sv("1"), "n": nv("1"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{sv("a")}}})
	const msg = "Incorrect operand type for operator or function; operator or function: "
	for _, tc := range []struct{ st, want string }{
		{`SELECT sk FROM "Cs1" WHERE pk='a' AND attribute_type(l, 1)`, msg + "attribute_type, operand type: N"},
		{`SELECT sk FROM "Cs1" WHERE pk='a' AND attribute_type(l, true)`, msg + "attribute_type, operand type: BOOL"},
		{`UPDATE "Cs1" SET n = 'a' + 1 WHERE pk='a' AND sk='1' AND nope='x'`, msg + "+, operand type: S"},
		{`UPDATE "Cs1" SET n = n - null WHERE pk='a' AND sk='1' AND nope='x'`, msg + "-, operand type: NULL"},
	} {
		_, err := exec(c, tc.st)
		wantAPIError(t, err, "ValidationException", tc.want)
	}
	out, err := batch(c, `UPDATE "Cs1" SET n = 'a' + 1 WHERE pk='a' AND sk='1'`)
	if err != nil {
		t.Fatal(err)
	}
	if e := out.Responses[0].Error; e == nil || aws.ToString(e.Message) != msg+"+, operand type: S" {
		t.Errorf("batch: %+v", e)
	}
	if got := getItem(t, c, "Cs1", avm{"pk": sv("a"), "sk": sv("1")}); showV(got["n"]) != showV(nv("1")) {
		t.Errorf("n = %s", showV(got["n"]))
	}
}
