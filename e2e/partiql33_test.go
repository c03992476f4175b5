package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/internal/testserver"
)

// PartiQL's exact errors (issue 33), through the SDK. The expected texts
// are DynamoDB's answers as public conformance suites captured them:
// paritysuite/dynamodb-conformance tests/tier3/error-messages/
// {partiqlFunctions,partiqlGrammar,partiqlMultiAttributeIndex}.test.ts
// (eu-west-2, Oct 2026; other Regions gave the same) and floci-io/floci's
// DynamoDbPartiQLEdgeCaseIntegrationTest (eu-west-2, Sep 2026).

// pq33At is "1:<column>:<length>" of the first token at or after from in
// statement: the position DynamoDB appends to some messages (characters,
// from 1). length < 0 is the token's.
func pq33At(statement, token string, length, from int) string {
	i := strings.Index(statement[from:], token) + from
	if length < 0 {
		length = len(token)
	}
	return fmt.Sprintf("1:%d:%d", i+1, length)
}

// pq33Server has pqH (pk S) holding item "it" with sets, a string and a
// map, and pqN (pk N).
func pq33Server(t *testing.T) *testserver.Server {
	s := testserver.New(t)
	ctx := context.Background()
	for name, typ := range map[string]types.ScalarAttributeType{"pqH": types.ScalarAttributeTypeS, "pqN": types.ScalarAttributeTypeN} {
		if _, err := s.Client.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: typ}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("pqH"), Item: map[string]types.AttributeValue{
		"pk": itS("it"),
		"ss": &types.AttributeValueMemberSS{Value: []string{"a", "b", "c"}},
		"ns": &types.AttributeValueMemberNS{Value: []string{"1", "2", "3"}},
		"s":  itS("str"),
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{itS("a"), itS("b")}},
		"m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"inner": &types.AttributeValueMemberSS{Value: []string{"x"}}}},
	}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// pq33Msg is "Code: message" of an API error.
func pq33Msg(err error) string {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return fmt.Sprintf("<%v>", err)
	}
	return ae.ErrorCode() + ": " + ae.ErrorMessage()
}

// pq33Case is a statement and the ValidationException message it gets.
type pq33Case struct {
	st   string
	want string
	args []types.AttributeValue
}

func pq33Run(t *testing.T, c *dynamodb.Client, cases []pq33Case) {
	t.Helper()
	for _, tc := range cases {
		in := &dynamodb.ExecuteStatementInput{Statement: aws.String(tc.st)}
		if len(tc.args) > 0 {
			in.Parameters = tc.args
		}
		_, err := c.ExecuteStatement(context.Background(), in)
		if got := pq33Msg(err); got != "ValidationException: "+tc.want {
			t.Errorf("%s\n  got  %s\n  want ValidationException: %s", tc.st, got, tc.want)
		}
	}
}

// TestPartiQL33FunctionMessages: functions refused or misused, with
// their positions (paritysuite partiqlFunctions.test.ts).
func TestPartiQL33FunctionMessages(t *testing.T) {
	s := pq33Server(t)
	where := func(c string) string { return `SELECT * FROM "pqH" WHERE pk = 'it' AND ` + c }
	update := func(c string) string { return `UPDATE "pqH" SET ` + c + ` WHERE pk = 'it'` }
	const nwf = "Statement wasn't well formed, can't be processed: "
	var cases []pq33Case
	add := func(st, want string) { cases = append(cases, pq33Case{st: st, want: want}) }
	add(where("attribute_exists('ss')"), "Operator or function requires a document path; operator or function: attribute_exists")
	cases = append(cases, pq33Case{where("attribute_exists(?)"), "Operator or function requires a document path; operator or function: attribute_exists", []types.AttributeValue{itS("ss")}})
	add(where("attribute_exists()"), "Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 0")
	add(where("attribute_exists(ss, ns)"), "Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2")
	st := `SELECT attribute_exists(ss) FROM "pqH" WHERE pk = 'it'`
	add(st, "Unexpected path component at "+pq33At(st, "attribute_exists", -1, 0))
	st = where("EXISTS(ss)")
	add(st, "Unrecognized function: exists at "+pq33At(st, "EXISTS", -1, 0))
	add(where("attribute_exists(m.inner)"), nwf+"Invalid path dot component")
	for _, fn := range []string{"set_add", "set_delete"} {
		up := strings.ToUpper(fn)
		st = update("t = " + fn + "(ss, <<'x'>>)")
		add(st, "The first argument to "+up+" must equal the assignment value at "+pq33At(st, fn, -1, 0))
		st = update("ss = " + fn + "(ss, 'x')")
		add(st, "The second argument to "+up+" must be a value with type SET at "+pq33At(st, "ss", 2, strings.Index(st, fn+"(")))
		add(update("ss = "+fn+"(ss, <<1>>)"), "An operand in the update expression has an incorrect data type")
	}
	st = update("ss = set_add(<<'a'>>, <<'b'>>)")
	add(st, "The first argument to SET_ADD must equal the assignment value at "+pq33At(st, "set_add", -1, 0))
	st = update("ss = set_add(ss, ['x'])")
	add(st, "The second argument to SET_ADD must be a value with type SET at "+pq33At(st, "ss", 2, strings.Index(st, "set_add(")))
	st = update("ss = set_add(ss)")
	add(st, "SET_ADD must have exactly two arguments at "+pq33At(st, "set_add", -1, 0))
	st = update("ss = set_add(ss, <<'x'>>, <<'y'>>)")
	add(st, "SET_ADD must have exactly two arguments at "+pq33At(st, "set_add", -1, 0))
	add(update("s = set_add(s, <<'x'>>)"), "An operand in the update expression has an incorrect data type")
	add(update("ss = set_add(ss, <<'x', 'x'>>)"), "One or more parameter values were invalid: Input collection [x, x] contains duplicates.")
	add(update("ss = set_add(ss, <<>>)"), "Empty bags are not supported")
	add(update("m.inner = set_add(m.inner, <<'y'>>)"), nwf+"Invalid path dot component")
	st = where("set_add(ss, <<'x'>>) = ss")
	add(st, "Unrecognized function: set_add at "+pq33At(st, "set_add", -1, 0))
	st = `INSERT INTO "pqH" VALUE {'pk': 'ins', 'ss': set_add(<<'a'>>, <<'b'>>)}`
	add(st, "Unsupported data type: set_add under key root at "+pq33At(st, "set_add", -1, 0))
	// Positions on a later line, and a quoted path's length with its
	// quotes (floci's edge cases).
	add("UPDATE \"pqH\"\nSET ss = set_add(ss, 'x')\nWHERE pk='it'", "The second argument to SET_ADD must be a value with type SET at 2:18:2")
	st = `UPDATE "pqH" SET "ss" = set_delete(`
	add(st+`"ss", ['x']) WHERE pk='it'`, fmt.Sprintf("The second argument to SET_DELETE must be a value with type SET at 1:%d:4", len(st)+1))
	add(`SELECT * FROM "pqH" WHERE pk='it' AND attribute_type(ss, 1)`, "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N")
	add(`SELECT * FROM "pqH" WHERE pk='it' AND attribute_type(ss, true)`, "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: BOOL")
	add(`SELECT * FROM "pqH" WHERE pk='it' AND ss = <<'a','a'>>`, "One or more parameter values were invalid: Input collection [a, a] contains duplicates.")
	pq33Run(t, s.Client, cases)

	// attribute_exists beside the key in a transaction's or a batch's
	// SELECT gets the key-only message.
	ctx := context.Background()
	_, err := s.Client.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{{Statement: aws.String(where("attribute_exists(ss)"))}}})
	if got := pq33Msg(err); got != "ValidationException: Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must specify the primary key in the where clause." {
		t.Errorf("ExecuteTransaction: %s", got)
	}
	out, err := s.Client.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{{Statement: aws.String(where("attribute_exists(ss)"))}}})
	if err != nil || len(out.Responses) != 1 || out.Responses[0].Error == nil || out.Responses[0].Error.Code != types.BatchStatementErrorCodeEnumValidationError ||
		aws.ToString(out.Responses[0].Error.Message) != "Select statements within BatchExecuteStatement must specify the primary key in the where clause." {
		t.Errorf("BatchExecuteStatement: %v %+v", err, out)
	}
	_, err = s.Client.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(`EXISTS(SELECT * FROM "pqH" WHERE pk = 'it')`)},
		{Statement: aws.String(`UPDATE "pqH" SET z = 1 WHERE pk = 'never'`)}}})
	if got := pq33Msg(err); got != "ValidationException: Validation failed in TransactStatements[0]: EXISTS() must contain a single item read with additional condition" {
		t.Errorf("EXISTS without a condition: %s", got)
	}
}

// TestPartiQL33GrammarMessages: statements the parser refuses
// (paritysuite partiqlGrammar.test.ts; floci's edge cases for the list
// index and the number set).
func TestPartiQL33GrammarMessages(t *testing.T) {
	s := pq33Server(t)
	const nwf = "Statement wasn't well formed, can't be processed: "
	lo := nwf + "Unexpected token after expression"
	var cases []pq33Case
	add := func(st, want string) { cases = append(cases, pq33Case{st: st, want: want}) }
	for _, st := range []string{
		`SELECT * FROM "pqN" WHERE pk = 1 foo`,
		`SELECT * FROM "pqN" WHERE pk = 1 e5`,
		`INSERT INTO "pqN" VALUE {'pk': 970001} foo`,
		`UPDATE "pqN" SET a = 9 WHERE pk = 970002 foo`,
		`DELETE FROM "pqN" WHERE pk = 970003 foo`,
		`SELECT * FROM "pqN" WHERE pk = 1)`,
		`DELETE FROM "pqN" WHERE pk = 970004 ORDER BY pk`,
		`SELECT * FROM "pqN" ORDER BY pk WHERE pk = 1`,
		`INSERT INTO "pqH" t VALUE {'pk': 'x'}`,
	} {
		add(st, lo)
	}
	for _, st := range []string{
		`SELECT * FROM "pqN" WHERE pk = 1e2147483648`,
		`SELECT * FROM "pqN" WHERE pk = 1e99999999999`,
		`SELECT * FROM "pqN" WHERE pk = 1.5e-2147483647`,
		`SELECT * FROM "pqN" WHERE pk = 1 # note`,
		`SELECT * FROM "pqN" WHERE pk = 1 /* note`,
	} {
		add(st, nwf)
	}
	for _, st := range []string{
		`SELECT * FROM "pqH" t WHERE pk = 'x'`,
		`SELECT * FROM "pqH" AS t WHERE pk = 'x'`,
		`UPDATE "pqH" t SET a = 3 WHERE pk = 'x'`,
		`DELETE FROM "pqH" t WHERE pk = 'x'`,
	} {
		add(st, "Aliasing is not supported")
	}
	add(`SELECT COUNT(*) FROM "pqH"`, "Unexpected path component at 1:8:5")
	// A negative list index, at the number after the minus; -0 is 0.
	add(`SELECT l[-1] FROM "pqH" WHERE pk='it'`, "List index is not within the allowable range; index: [-1] at 1:11:1")
	// Equal numbers written differently in a set literal.
	add(`UPDATE "pqH" SET ns = set_add(ns, <<2, 2.0>>) WHERE pk='it'`, "One or more parameter values were invalid: Input collection [2, 2.0] contains duplicates! under root")
	pq33Run(t, s.Client, cases)

	// [-0] reads as [0] (the shape of the answer is not checked here).
	out, err := s.Client.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT l[-0] FROM "pqH" WHERE pk='it'`)})
	if err != nil || len(out.Items) != 1 || out.Items[0]["l"] == nil {
		t.Errorf("l[-0]: %v %+v", err, out)
	}
}

// TestPartiQL33ParametersFirst: a parameter's value is refused before the
// statement is read (floci's edge cases, captured on eu-west-2): a
// statement that does not parse still reports its parameter's duplicate
// set member, and a transaction reports it without the statement's place.
func TestPartiQL33ParametersFirst(t *testing.T) {
	s := pq33Server(t)
	dup := "One or more parameter values were invalid: Input collection [a, a] contains duplicates."
	ss := &types.AttributeValueMemberSS{Value: []string{"a", "a"}}
	pq33Run(t, s.Client, []pq33Case{
		{`UPDATE "pqH" SET WHERE`, dup, []types.AttributeValue{ss}},
		{`INSERT INTO "pqH" VALUE {'pk':'params','x':?}`, "One or more parameter values were invalid: Null attribute value types must have the value of true",
			[]types.AttributeValue{&types.AttributeValueMemberNULL{Value: false}}},
	})
	ctx := context.Background()
	_, err := s.Client.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(`UPDATE "pqH" SET y = ? WHERE pk='it'`), Parameters: []types.AttributeValue{itN("1")}},
		{Statement: aws.String(`INSERT INTO "pqH" VALUE {'pk':'params','x':?}`), Parameters: []types.AttributeValue{ss}},
	}})
	if got := pq33Msg(err); got != "ValidationException: "+dup {
		t.Errorf("ExecuteTransaction: %s", got)
	}
	out, err := s.Client.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`UPDATE "pqH" SET y = ? WHERE pk='it'`), Parameters: []types.AttributeValue{&types.AttributeValueMemberSS{Value: []string{}}}},
	}})
	if err != nil || out.Responses[0].Error == nil || out.Responses[0].Error.Code != types.BatchStatementErrorCodeEnumValidationError ||
		aws.ToString(out.Responses[0].Error.Message) != "One or more parameter values were invalid: An string set  may not be empty" {
		t.Errorf("BatchExecuteStatement: %v %+v", err, out)
	}
	g, err := s.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("pqH"), Key: map[string]types.AttributeValue{"pk": itS("params")}})
	if err != nil || g.Item != nil {
		t.Errorf("params item written: %v %v", err, g.Item)
	}
}

// TestPartiQL33MultiKeyIndexCount: SELECT COUNT(*) of a GSI with a
// multi-attribute key gets the multi-attribute refusal, which DynamoDB
// reports ahead of the function in the list (paritysuite
// partiqlMultiAttributeIndex.test.ts, eu-west-2 and us-east-1); of the
// table it keeps "Unexpected path component".
func TestPartiQL33MultiKeyIndexCount(t *testing.T) {
	s := pq33Server(t)
	ctx := context.Background()
	str := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	ke := func(n string, k types.KeyType) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(n), KeyType: k}
	}
	if _, err := s.Client.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("pqM"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{str("id"), str("h1"), str("h2"), str("r1"), str("g")},
		KeySchema:            []types.KeySchemaElement{ke("id", types.KeyTypeHash)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("gsi"), KeySchema: []types.KeySchemaElement{ke("h1", types.KeyTypeHash), ke("h2", types.KeyTypeHash), ke("r1", types.KeyTypeRange)},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
			{IndexName: aws.String("single"), KeySchema: []types.KeySchemaElement{ke("g", types.KeyTypeHash)},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
		},
	}); err != nil {
		t.Fatal(err)
	}
	refused := "PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute RANGE keys."
	pq33Run(t, s.Client, []pq33Case{
		{st: `SELECT COUNT(*) FROM "pqM"."gsi"`, want: refused},
		{st: `SELECT COUNT(*) FROM "pqM"`, want: "Unexpected path component at 1:8:5"},
		{st: `SELECT id, size(h1) FROM "pqM"."single" WHERE g = 'x'`, want: "Unexpected path component at 1:12:4"},
		{st: `SELECT COUNT(*) FROM "pqM"."gsi" WHERE`, want: "Statement wasn't well formed, can't be processed: Unexpected term"},
	})
}
