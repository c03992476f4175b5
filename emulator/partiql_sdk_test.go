package emulator_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/internal/testserver"
)

// The PartiQL test cases (API Reference, ExecuteStatement; the Developer
// Guide's PartiQL statement pages; docs/differences.md, "PartiQL"), through
// the SDK against the real server. Tables: H (pk S), C (pk S, sk N),
// G (pk S, GSI g on gk), CS (pk S, sk S).

type avm = map[string]types.AttributeValue

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func nv(n string) types.AttributeValue { return &types.AttributeValueMemberN{Value: n} }

func pqServer(t *testing.T) *dynamodb.Client {
	t.Helper()
	s := testserver.New(t)
	c := s.Client
	mk := func(name string, keys []types.KeySchemaElement, defs []types.AttributeDefinition, gsis []types.GlobalSecondaryIndex) {
		_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
			TableName: aws.String(name), KeySchema: keys, AttributeDefinitions: defs,
			GlobalSecondaryIndexes: gsis, BillingMode: types.BillingModePayPerRequest,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	hash := func(n string) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(n), KeyType: types.KeyTypeHash}
	}
	rng := func(n string) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(n), KeyType: types.KeyTypeRange}
	}
	def := func(n string, t types.ScalarAttributeType) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: t}
	}
	mk("Hh1", []types.KeySchemaElement{hash("pk")}, []types.AttributeDefinition{def("pk", "S")}, nil)
	mk("Cc1", []types.KeySchemaElement{hash("pk"), rng("sk")}, []types.AttributeDefinition{def("pk", "S"), def("sk", "N")}, nil)
	mk("Cs1", []types.KeySchemaElement{hash("pk"), rng("sk")}, []types.AttributeDefinition{def("pk", "S"), def("sk", "S")}, nil)
	mk("Gg1", []types.KeySchemaElement{hash("pk")}, []types.AttributeDefinition{def("pk", "S"), def("gk", "S")},
		[]types.GlobalSecondaryIndex{{IndexName: aws.String("gix"), KeySchema: []types.KeySchemaElement{hash("gk")},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}})
	return c
}

func exec(c *dynamodb.Client, stmt string, params ...types.AttributeValue) (*dynamodb.ExecuteStatementOutput, error) {
	in := &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt)}
	if len(params) > 0 {
		in.Parameters = params
	}
	return c.ExecuteStatement(context.Background(), in)
}

func mustExec(t *testing.T, c *dynamodb.Client, stmt string, params ...types.AttributeValue) []avm {
	t.Helper()
	out, err := exec(c, stmt, params...)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	if out.Items == nil {
		t.Fatalf("%s: Items absent", stmt)
	}
	return out.Items
}

func wantErr(t *testing.T, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code || msg != "" && ae.ErrorMessage() != msg {
		t.Fatalf("got %v, want %s: %s", err, code, msg)
	}
}

func getItem(t *testing.T, c *dynamodb.Client, table string, key avm) avm {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func put(t *testing.T, c *dynamodb.Client, table string, item avm) {
	t.Helper()
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

func sameItems(t *testing.T, got, want []avm) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("items:\n got %s\nwant %s", show(got), show(want))
	}
}

func show(items []avm) string {
	s := "["
	for _, it := range items {
		keys := make([]string, 0, len(it))
		for k := range it {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s += "{"
		for _, k := range keys {
			s += fmt.Sprintf("%s:%s ", k, showV(it[k]))
		}
		s += "}"
	}
	return s + "]"
}

func showV(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return "S" + x.Value
	case *types.AttributeValueMemberN:
		return "N" + x.Value
	case *types.AttributeValueMemberL:
		s := "["
		for _, e := range x.Value {
			s += showV(e) + ","
		}
		return s + "]"
	case *types.AttributeValueMemberM:
		return show([]avm{x.Value})
	case *types.AttributeValueMemberSS:
		return fmt.Sprint(x.Value)
	}
	return fmt.Sprintf("%T", v)
}

const msgMalformed = "Statement wasn't well formed, can't be processed: "

func TestPartiQLInsertSelect(t *testing.T) {
	c := pqServer(t)
	// 1-3: INSERT, duplicate, re-insert after DELETE.
	sameItems(t, mustExec(t, c, `INSERT INTO "Hh1" VALUE {'pk':'a','n':1}`), []avm{})
	if got := getItem(t, c, "Hh1", avm{"pk": sv("a")}); !reflect.DeepEqual(got, avm{"pk": sv("a"), "n": nv("1")}) {
		t.Fatalf("stored %s", show([]avm{got}))
	}
	_, err := exec(c, `INSERT INTO "Hh1" VALUE {'pk':'a','n':2}`)
	wantErr(t, err, "DuplicateItemException", "Duplicate primary key exists in table")
	if got := getItem(t, c, "Hh1", avm{"pk": sv("a")}); !reflect.DeepEqual(got["n"], nv("1")) {
		t.Fatal("duplicate INSERT changed the item")
	}
	mustExec(t, c, `DELETE FROM "Hh1" WHERE pk='a'`)
	mustExec(t, c, `insert into "Hh1" value {'pk':'a','n':1}`)
	// 4-6.
	sameItems(t, mustExec(t, c, `SELECT * FROM "Hh1" WHERE pk='a'`), []avm{{"pk": sv("a"), "n": nv("1")}})
	out, err := exec(c, `SELECT * FROM "Hh1" WHERE pk='zz'`)
	if err != nil || len(out.Items) != 0 || out.NextToken != nil {
		t.Fatalf("miss: %v %v", out, err)
	}
	sameItems(t, mustExec(t, c, `SELECT * FROM "Hh1" WHERE pk=?`, sv("a")), []avm{{"pk": sv("a"), "n": nv("1")}})
	// 7, 8: parameters.
	mustExec(t, c, `INSERT INTO "Hh1" VALUE {'pk':?,'d':?}`, sv("p7"), &types.AttributeValueMemberL{Value: []types.AttributeValue{nv("1")}})
	if got := getItem(t, c, "Hh1", avm{"pk": sv("p7")}); len(got) != 2 {
		t.Fatalf("7: %s", show([]avm{got}))
	}
	_, err = exec(c, `SELECT * FROM "Hh1" WHERE pk=?`)
	wantErr(t, err, "ValidationException", "Number of parameters in request and statement don't match.")
	// 9, 10: projections.
	put(t, c, "Hh1", avm{"pk": sv("m"), "m": &types.AttributeValueMemberM{Value: avm{"x": sv("d")}}, "e": nv("1")})
	sameItems(t, mustExec(t, c, `SELECT m.x FROM "Hh1" WHERE pk='m'`), []avm{{"x": sv("d")}})
	sameItems(t, mustExec(t, c, `SELECT pk, m FROM "Hh1" WHERE pk='m'`), []avm{{"pk": sv("m"), "m": &types.AttributeValueMemberM{Value: avm{"x": sv("d")}}}})
}

func TestPartiQLWhere(t *testing.T) {
	c := pqServer(t)
	// 11: ORDER BY sort key DESC.
	for _, sk := range []string{"1", "2", "3"} {
		put(t, c, "Cc1", avm{"pk": sv("p"), "sk": nv(sk)})
	}
	sameItems(t, mustExec(t, c, `SELECT sk FROM "Cc1" WHERE pk='p' ORDER BY sk DESC`), []avm{{"sk": nv("3")}, {"sk": nv("2")}, {"sk": nv("1")}})
	sameItems(t, mustExec(t, c, `SELECT sk FROM "Cc1" WHERE pk='p' AND sk > 1`), []avm{{"sk": nv("2")}, {"sk": nv("3")}})
	sameItems(t, mustExec(t, c, `SELECT sk FROM "Cc1" WHERE pk='p' AND 2 <= sk`), []avm{{"sk": nv("2")}, {"sk": nv("3")}})
	// 12: begins_with on a string sort key.
	for _, sk := range []string{"pre-a", "pre-b", "o"} {
		put(t, c, "Cs1", avm{"pk": sv("p"), "sk": sv(sk)})
	}
	if got := mustExec(t, c, `SELECT * FROM "Cs1" WHERE pk='p' AND begins_with("sk",'pre-')`); len(got) != 2 {
		t.Fatalf("12: %s", show(got))
	}
	// 13: IN and NOT begins_with.
	put(t, c, "Hh1", avm{"pk": sv("a"), "s": sv("x"), "k": nv("1"),
		"ss": &types.AttributeValueMemberSS{Value: []string{"a", "b", "c"}},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{sv("a"), sv("b")}}})
	put(t, c, "Hh1", avm{"pk": sv("b"), "s": sv("y")})
	sameItems(t, mustExec(t, c, `SELECT pk FROM "Hh1" WHERE pk IN ['a','b'] AND NOT begins_with(s,'x')`), []avm{{"pk": sv("b")}})
	// 14: IS [NOT] MISSING.
	one := func(stmt string, want int, params ...types.AttributeValue) {
		t.Helper()
		if got := mustExec(t, c, stmt, params...); len(got) != want {
			t.Fatalf("%s: got %d items, want %d", stmt, len(got), want)
		}
	}
	one(`SELECT * FROM "Hh1" WHERE pk='a' AND k IS NOT MISSING`, 1)
	one(`SELECT * FROM "Hh1" WHERE pk='a' AND z IS MISSING`, 1)
	one(`SELECT * FROM "Hh1" WHERE pk='a' AND z IS NOT MISSING`, 0)
	// 15-17: equality of sets, lists, absent attributes.
	one(`SELECT * FROM "Hh1" WHERE pk='a' AND ss = ?`, 1, &types.AttributeValueMemberSS{Value: []string{"c", "a", "b"}})
	ba := &types.AttributeValueMemberL{Value: []types.AttributeValue{sv("b"), sv("a")}}
	one(`SELECT * FROM "Hh1" WHERE pk='a' AND l = ?`, 0, ba)
	one(`SELECT * FROM "Hh1" WHERE pk='a' AND l <> ?`, 1, ba)
	one(`SELECT * FROM "Hh1" WHERE pk='a' AND nope <> 'x'`, 0)
	// 18: operand types are checked before the table.
	_, err := exec(c, `SELECT * FROM "Nope" WHERE pk='a' AND x < ?`, &types.AttributeValueMemberBOOL{Value: true})
	wantErr(t, err, "ValidationException", "Incorrect operand type for operator or function; operator or function: <, operand type: BOOL")
	// OR of partition keys, and a scan.
	one(`SELECT * FROM "Hh1" WHERE pk='a' OR pk='b'`, 2)
	one(`SELECT * FROM "Hh1" WHERE s='y'`, 1)
	one(`SELECT * FROM "Hh1" WHERE pk='a' AND attribute_exists(k) = true`, 1)
	one(`SELECT * FROM "Hh1" WHERE pk='a' AND size(ss) = 3 AND contains(ss, 'b') AND attribute_type(ss, 'SS')`, 1)
	one(`SELECT * FROM "Hh1" WHERE pk='a' AND k BETWEEN 0 AND 2 AND s IS STRING`, 1)
	_, err = exec(c, `SELECT * FROM "Cs1" WHERE pk='p' AND x='1' OR pk='p' AND sk='2'`)
	wantErr(t, err, "ValidationException", "Overlapping conditions with range keys are not supported in where clause")
	// 62: comments.
	one("SELECT * FROM \"Hh1\" WHERE pk='a' -- c", 1)
	one("SELECT * /* c */ FROM \"Hh1\" /* d */ WHERE pk='a'", 1)
	_, err = exec(c, "SELECT * FROM \"Hh1\" WHERE pk='a' # c")
	wantErr(t, err, "ValidationException", "")
}

func TestPartiQLUpdateDelete(t *testing.T) {
	c := pqServer(t)
	put(t, c, "Hh1", avm{"pk": sv("a"), "n": nv("5")})
	// 19-21.
	mustExec(t, c, `UPDATE "Hh1" SET n = n + 1 WHERE pk='a'`)
	if got := getItem(t, c, "Hh1", avm{"pk": sv("a")}); !reflect.DeepEqual(got["n"], nv("6")) {
		t.Fatalf("19: %s", show([]avm{got}))
	}
	_, err := exec(c, `UPDATE "Hh1" SET n=1 WHERE pk='ghost'`)
	wantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	if got := getItem(t, c, "Hh1", avm{"pk": sv("ghost")}); got != nil {
		t.Fatal("20: UPDATE created an item")
	}
	_, err = exec(c, `UPDATE "Hh1" SET n=9 WHERE pk='a' AND n=4`)
	wantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	// 22-24.
	_, err = exec(c, `DELETE FROM "Hh1" WHERE n=5`)
	wantErr(t, err, "ValidationException", "Where clause does not contain a mandatory equality on all key attributes")
	_, err = exec(c, `DELETE FROM "Cc1" WHERE pk='p'`)
	wantErr(t, err, "ValidationException", "Where clause does not contain a mandatory equality on all key attributes")
	sameItems(t, mustExec(t, c, `DELETE FROM "Hh1" WHERE pk='none' AND x='y'`), []avm{})
	_, err = exec(c, `DELETE FROM "Hh1" WHERE pk='a' AND n=0`)
	wantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	// 25-27: RETURNING on DELETE.
	_, err = exec(c, `DELETE FROM "Hh1" WHERE pk='a' RETURNING ALL NEW *`)
	wantErr(t, err, "ValidationException", "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed in DELETE statements.")
	sameItems(t, mustExec(t, c, `DELETE FROM "Hh1" WHERE pk='a' RETURNING ALL OLD *`), []avm{{"pk": sv("a"), "n": nv("6")}})
	if getItem(t, c, "Hh1", avm{"pk": sv("a")}) != nil {
		t.Fatal("25: item kept")
	}
	sameItems(t, mustExec(t, c, `DELETE FROM "Hh1" WHERE pk='none' RETURNING ALL OLD *`), []avm{})
	// 28-32: RETURNING MODIFIED.
	put(t, c, "Hh1", avm{"pk": sv("a"), "d": sv("o"), "p": &types.AttributeValueMemberM{Value: avm{"s": sv("o"), "t": sv("k")}},
		"t": &types.AttributeValueMemberL{Value: []types.AttributeValue{sv("a"), sv("b"), sv("c")}}})
	sameItems(t, mustExec(t, c, `UPDATE "Hh1" SET d='n' WHERE pk='a' RETURNING MODIFIED OLD *`), []avm{{"d": sv("o")}})
	sameItems(t, mustExec(t, c, `UPDATE "Hh1" SET p.s='n' WHERE pk='a' RETURNING MODIFIED NEW *`), []avm{{"p": &types.AttributeValueMemberM{Value: avm{"s": sv("n")}}}})
	sameItems(t, mustExec(t, c, `UPDATE "Hh1" REMOVE d WHERE pk='a' RETURNING MODIFIED NEW *`), []avm{})
	sameItems(t, mustExec(t, c, `UPDATE "Hh1" SET t[2]='y', t[0]='x' WHERE pk='a' RETURNING MODIFIED NEW *`),
		[]avm{{"t": &types.AttributeValueMemberL{Value: []types.AttributeValue{sv("x"), sv("y")}}}})
	sameItems(t, mustExec(t, c, `UPDATE "Hh1" SET t[5]='c' WHERE pk='a' RETURNING MODIFIED NEW *`), []avm{})
	if got := getItem(t, c, "Hh1", avm{"pk": sv("a")}); len(got["t"].(*types.AttributeValueMemberL).Value) != 4 {
		t.Fatalf("32: %s", show([]avm{got}))
	}
	// 33.
	_, err = exec(c, `UPDATE "Hh1" SET nl[0]='x' WHERE pk='a'`)
	wantErr(t, err, "ValidationException", "The document path provided in the update expression is invalid for update")
	// 34, 35: set_add / set_delete.
	put(t, c, "Hh1", avm{"pk": sv("s"), "ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}}})
	mustExec(t, c, `UPDATE "Hh1" SET ss=set_add(ss,<<'c'>>) WHERE pk='s'`)
	if got := getItem(t, c, "Hh1", avm{"pk": sv("s")}); len(got["ss"].(*types.AttributeValueMemberSS).Value) != 3 {
		t.Fatalf("34: %s", show([]avm{got}))
	}
	mustExec(t, c, `UPDATE "Hh1" SET ss=set_delete(ss,<<'a','b','c'>>) WHERE pk='s'`)
	if got := getItem(t, c, "Hh1", avm{"pk": sv("s")}); got["ss"] != nil {
		t.Fatalf("34: %s", show([]avm{got}))
	}
	_, err = exec(c, `UPDATE "Hh1" SET t = set_add(ss,<<'x'>>) WHERE pk='s'`)
	wantErr(t, err, "ValidationException", "The first argument to SET_ADD must equal the assignment value at 1:22:7")
	// 36: FROM-first UPDATE.
	mustExec(t, c, `FROM "Hh1" WHERE pk='s' SET c=1`)
	if got := getItem(t, c, "Hh1", avm{"pk": sv("s")}); !reflect.DeepEqual(got["c"], nv("1")) {
		t.Fatalf("36: %s", show([]avm{got}))
	}
	_, err = exec(c, `FROM "Nope" WHERE pk='s' SET c=1`)
	wantErr(t, err, "ResourceNotFoundException", "Requested resource not found")
}

func TestPartiQLErrors(t *testing.T) {
	c := pqServer(t)
	for _, tc := range []struct{ stmt, msg string }{
		{`SLECT * FROM "Hh1"`, msgMalformed + "Expected data manipulation"},
		{`SELECT * FROM "Hh1" WHERE`, msgMalformed + "Unexpected term"},
		{`SELECT * FROM "Hh1" t WHERE pk='a'`, "Aliasing is not supported"},
		{`SELECT COUNT(*) FROM "Hh1"`, "Unexpected path component at 1:8:5"},
		{`SELECT * FROM "Hh1" WHERE pk='p1' AND`, msgMalformed + "Missing right-hand side expression of infix operator"},
		{`SELECT * FROM "Hh1" WHERE pk = 1 foo`, msgMalformed + "Unexpected token after expression"},
		{`DELETE FROM`, msgMalformed + "Expected identifier for simple path"},
		{`SELECT * FROM "Hh1" WHERE x IS FOO`, msgMalformed + "Expected type name"},
		{`SELECT * FROM "Hh1" WHERE IS NULL`, msgMalformed + "Unexpected operator"},
		{`SELECT * FROM "Hh1" WHERE ORDER BY pk`, msgMalformed + "Unexpected keyword"},
		{`SELECT * FROM "Hh1" WHERE m.inner = 1`, msgMalformed + "Invalid path dot component"},
		{`SELECT * FROM "t"."i"."x"`, "A path may contain at most 2 components in the FROM clause"},
		{`SELECT * FROM "Hh1" WHERE EXISTS(x)`, "Unrecognized function: exists at 1:27:6"},
		{`SELECT * FROM "Hh1" WHERE attribute_exists('lit')`, "Operator or function requires a document path; operator or function: attribute_exists"},
		{`SELECT * FROM "Hh1" WHERE attribute_exists()`, "Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 0"},
	} {
		_, err := exec(c, tc.stmt)
		wantErr(t, err, "ValidationException", tc.msg)
	}
	_, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Hh1"`), ReturnConsumedCapacity: "X"})
	wantErr(t, err, "ValidationException", "1 validation error detected: Value 'X' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]")
	long := `SELECT * FROM "Hh1" WHERE pk='` + strings.Repeat("x", 8192) + `'`
	_, err = exec(c, long)
	wantErr(t, err, "ValidationException", "1 validation error detected: Value '"+long+"' at 'statement' failed to satisfy constraint: Member must have length less than or equal to 8192")
	// 41.
	_, err = exec(c, `SELECT * FROM "X" WHERE pk='a'`)
	wantErr(t, err, "ResourceNotFoundException", "Requested resource not found")
}

func TestPartiQLPaging(t *testing.T) {
	c := pqServer(t)
	for i := range 7 {
		n := "drop"
		if i == 3 {
			n = "keep"
		}
		put(t, c, "Hh1", avm{"pk": sv(fmt.Sprint("k", i)), "n": sv(n)})
	}
	// 42: pages of 3, 3, 1 and each key once.
	seen := map[string]bool{}
	var sizes []int
	var token *string
	var first *string
	for {
		out, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Hh1"`), Limit: aws.Int32(3), NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(out.Items))
		for _, it := range out.Items {
			k := it["pk"].(*types.AttributeValueMemberS).Value
			if seen[k] {
				t.Fatalf("key %s twice", k)
			}
			seen[k] = true
		}
		if first == nil {
			first = out.NextToken
		}
		if token = out.NextToken; token == nil {
			break
		}
	}
	if !reflect.DeepEqual(sizes, []int{3, 3, 1}) || len(seen) != 7 {
		t.Fatalf("pages %v, %d keys", sizes, len(seen))
	}
	// 43: a filtered page is short but carries a token.
	out, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Hh1" WHERE n='keep'`), Limit: aws.Int32(2)})
	if err != nil || len(out.Items) > 1 || out.NextToken == nil {
		t.Fatalf("43: %v %v", out, err)
	}
	// 44, 45.
	_, err = c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Hh1" WHERE n='x'`), Limit: aws.Int32(3), NextToken: first})
	wantErr(t, err, "ValidationException", "NextToken does not match request")
	_, err = c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Hh1"`), NextToken: aws.String("abc")})
	wantErr(t, err, "ValidationException", "Invalid NextToken")
	_, err = c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Hh1"`), Limit: aws.Int32(0)})
	wantErr(t, err, "ValidationException", "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
	// IN over several partitions pages across them.
	var all []avm
	token = nil
	for {
		out, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT pk FROM "Hh1" WHERE pk IN ['k1','k2','k3']`), Limit: aws.Int32(1), NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, out.Items...)
		if token = out.NextToken; token == nil {
			break
		}
	}
	sameItems(t, all, []avm{{"pk": sv("k1")}, {"pk": sv("k2")}, {"pk": sv("k3")}})
}

func TestPartiQLIndex(t *testing.T) {
	c := pqServer(t)
	put(t, c, "Gg1", avm{"pk": sv("a"), "gk": sv("v")})
	put(t, c, "Gg1", avm{"pk": sv("b"), "gk": sv("w")})
	// 46, 47.
	sameItems(t, mustExec(t, c, `SELECT pk FROM "Gg1"."gix" WHERE gk='v'`), []avm{{"pk": sv("a")}})
	_, err := exec(c, `SELECT * FROM "Gg1"."nope" WHERE gk='v'`)
	wantErr(t, err, "ValidationException", "The table does not have the specified index")
	_, err = c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Gg1"."gix" WHERE gk='v'`), ConsistentRead: aws.Bool(true)})
	wantErr(t, err, "ValidationException", "Strongly consistent read is not supported on Global Secondary Indexes")
	_, err = exec(c, `UPDATE "Gg1"."gix" SET x=1 WHERE pk='a'`)
	wantErr(t, err, "ValidationException", "This operation is not supported on an index")
	_, err = exec(c, `INSERT INTO "Gg1"."gix" VALUE {'pk':'c'}`)
	wantErr(t, err, "ValidationException", "FROM clause may only contain a single table name in data manipulation statements")
}

func batch(c *dynamodb.Client, stmts ...string) (*dynamodb.BatchExecuteStatementOutput, error) {
	in := &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{}}
	for _, s := range stmts {
		in.Statements = append(in.Statements, types.BatchStatementRequest{Statement: aws.String(s)})
	}
	return c.BatchExecuteStatement(context.Background(), in)
}

func TestPartiQLBatch(t *testing.T) {
	c := pqServer(t)
	put(t, c, "Hh1", avm{"pk": sv("a"), "n": nv("1")})
	// 48: a hit and a missing table.
	out, err := batch(c, `SELECT * FROM "Hh1" WHERE pk='a'`, `SELECT * FROM "Xx1" WHERE pk='a'`)
	if err != nil {
		t.Fatal(err)
	}
	r := out.Responses
	if r[0].Error != nil || aws.ToString(r[0].TableName) != "Hh1" || r[0].Item["n"] == nil {
		t.Fatalf("48[0]: %+v", r[0])
	}
	if r[1].Error == nil || r[1].Error.Code != types.BatchStatementErrorCodeEnumResourceNotFound || aws.ToString(r[1].TableName) != "Xx1" {
		t.Fatalf("48[1]: %+v", r[1])
	}
	// 49, 50: rejections of the whole request.
	_, err = batch(c, `SELECT * FROM "Hh1" WHERE pk='a'`, `INSERT INTO "Hh1" VALUE {'pk':'b'}`)
	wantErr(t, err, "ValidationException", "Read and write requests together in the same batch is not supported.")
	_, err = batch(c, `INSERT INTO "Hh1" VALUE {'pk':'z'}`, `UPDATE "Hh1" SET x=1 WHERE pk='z'`)
	wantErr(t, err, "ValidationException", "Provided list of item keys contains duplicates")
	if getItem(t, c, "Hh1", avm{"pk": sv("z")}) != nil {
		t.Fatal("50: a rejected batch wrote")
	}
	// 51, 52: per-statement validation errors.
	out, err = batch(c, `SELECT * FROM "Cc1" WHERE pk='p'`)
	if err != nil || out.Responses[0].Error == nil || out.Responses[0].Error.Code != "ValidationError" ||
		aws.ToString(out.Responses[0].Error.Message) != "Select statements within BatchExecuteStatement must specify the primary key in the where clause." {
		t.Fatalf("51: %+v %v", out, err)
	}
	out, err = batch(c, `SLECT * FROM "Hh1"`, `SELECT * FROM "Hh1" WHERE pk='a'`)
	if err != nil || out.Responses[0].Error == nil || out.Responses[0].Error.Code != "ValidationError" || out.Responses[0].TableName != nil ||
		out.Responses[1].Error != nil || out.Responses[1].Item == nil {
		t.Fatalf("52: %+v %v", out, err)
	}
	// 53, 54: write errors and RETURNING.
	out, err = batch(c, `INSERT INTO "Hh1" VALUE {'pk':'a'}`)
	if err != nil || out.Responses[0].Error == nil || out.Responses[0].Error.Code != "DuplicateItem" || aws.ToString(out.Responses[0].TableName) != "Hh1" {
		t.Fatalf("53: %+v %v", out, err)
	}
	out, err = batch(c, `DELETE FROM "Hh1" WHERE pk='a' RETURNING ALL OLD *`)
	if err != nil || out.Responses[0].Error != nil || !reflect.DeepEqual(out.Responses[0].Item, avm{"pk": sv("a"), "n": nv("1")}) {
		t.Fatalf("54: %+v %v", out, err)
	}
	// 55: empty and oversized batches.
	_, err = batch(c)
	wantErr(t, err, "ValidationException", "1 validation error detected: Value '[]' at 'statements' failed to satisfy constraint: Member must have length greater than or equal to 1")
	many := make([]string, 26)
	for i := range many {
		many[i] = fmt.Sprintf(`SELECT * FROM "Hh1" WHERE pk='%d'`, i)
	}
	_, err = batch(c, many...)
	wantErr(t, err, "ValidationException", "")
	// Capacity is summed per table and each read's consistency applies.
	put(t, c, "Hh1", avm{"pk": sv("b")})
	put(t, c, "Hh1", avm{"pk": sv("c")})
	cout, err := c.BatchExecuteStatement(context.Background(), &dynamodb.BatchExecuteStatementInput{
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		Statements: []types.BatchStatementRequest{
			{Statement: aws.String(`SELECT * FROM "Hh1" WHERE pk='b'`)},
			{Statement: aws.String(`SELECT * FROM "Hh1" WHERE pk='c'`), ConsistentRead: aws.Bool(true)},
		}})
	if err != nil || len(cout.ConsumedCapacity) != 1 || aws.ToFloat64(cout.ConsumedCapacity[0].CapacityUnits) != 1.5 {
		t.Fatalf("capacity: %+v %v", cout, err)
	}
}

func tx(c *dynamodb.Client, token string, stmts ...string) (*dynamodb.ExecuteTransactionOutput, error) {
	in := &dynamodb.ExecuteTransactionInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}
	if token != "" {
		in.ClientRequestToken = aws.String(token)
	}
	for _, s := range stmts {
		in.TransactStatements = append(in.TransactStatements, types.ParameterizedStatement{Statement: aws.String(s)})
	}
	return c.ExecuteTransaction(context.Background(), in)
}

func TestPartiQLTransaction(t *testing.T) {
	c := pqServer(t)
	put(t, c, "Hh1", avm{"pk": sv("b")})
	// 56: both applied, no responses.
	out, err := tx(c, "", `INSERT INTO "Hh1" VALUE {'pk':'a','n':0}`, `UPDATE "Hh1" SET x=1 WHERE pk='b'`)
	if err != nil || out.Responses == nil || len(out.Responses) != 0 {
		t.Fatalf("56: %+v %v", out, err)
	}
	if getItem(t, c, "Hh1", avm{"pk": sv("b")})["x"] == nil || getItem(t, c, "Hh1", avm{"pk": sv("a")}) == nil {
		t.Fatal("56: not applied")
	}
	// 57: a duplicate INSERT cancels everything.
	_, err = tx(c, "", `INSERT INTO "Hh1" VALUE {'pk':'a'}`, `INSERT INTO "Hh1" VALUE {'pk':'c'}`)
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 || aws.ToString(tce.CancellationReasons[1].Code) != "None" ||
		aws.ToString(tce.CancellationReasons[0].Code) != "DuplicateItem" {
		t.Fatalf("57: %v", err)
	}
	if getItem(t, c, "Hh1", avm{"pk": sv("c")}) != nil {
		t.Fatal("57: c written")
	}
	// 58-60: request-level validation.
	_, err = tx(c, "", `SELECT * FROM "Hh1" WHERE pk='a'`, `INSERT INTO "Hh1" VALUE {'pk':'c'}`)
	wantErr(t, err, "ValidationException", "ExecuteTransaction API does not support both read and write operations in the same request.")
	_, err = tx(c, "", `UPDATE "Hh1" SET x=2 WHERE pk='a' RETURNING ALL NEW *`)
	wantErr(t, err, "ValidationException", "Validation failed in TransactStatements[0]: RETURNING clause is not supported in ExecuteTransaction.")
	_, err = tx(c, "", `EXISTS(SELECT * FROM "Hh1" WHERE pk='a')`, `UPDATE "Hh1" SET x=2 WHERE pk='b'`)
	wantErr(t, err, "ValidationException", "Validation failed in TransactStatements[0]: EXISTS() must contain a single item read with additional condition")
	_, err = tx(c, "", `SELECT * FROM "Hh1"."gix" WHERE pk='a'`)
	wantErr(t, err, "ValidationException", "Validation failed in TransactStatements[0]: Reads on indices are not supported within transactions.")
	// EXISTS as a condition check.
	_, err = tx(c, "", `EXISTS(SELECT * FROM "Hh1" WHERE pk='a' AND n=5)`, `UPDATE "Hh1" SET x=3 WHERE pk='b'`)
	if !errors.As(err, &tce) || aws.ToString(tce.CancellationReasons[0].Code) != "ConditionalCheckFailed" {
		t.Fatalf("EXISTS false: %v", err)
	}
	if _, err = tx(c, "", `EXISTS(SELECT * FROM "Hh1" WHERE pk='a' AND n=0)`, `UPDATE "Hh1" SET x=3 WHERE pk='b'`); err != nil {
		t.Fatalf("EXISTS true: %v", err)
	}
	// A read transaction answers one entry per statement.
	rout, err := tx(c, "", `SELECT pk FROM "Hh1" WHERE pk='a'`, `SELECT * FROM "Hh1" WHERE pk='nope'`)
	if err != nil || len(rout.Responses) != 2 || !reflect.DeepEqual(rout.Responses[0].Item, avm{"pk": sv("a")}) || rout.Responses[1].Item != nil {
		t.Fatalf("read: %+v %v", rout, err)
	}
	// 61: idempotency.
	const upd = `UPDATE "Hh1" SET n = n + 1 WHERE pk='a'`
	first, err := tx(c, "tok-61", upd)
	if err != nil {
		t.Fatal(err)
	}
	second, err := tx(c, "tok-61", upd)
	if err != nil {
		t.Fatal(err)
	}
	if got := getItem(t, c, "Hh1", avm{"pk": sv("a")}); !reflect.DeepEqual(got["n"], nv("1")) {
		t.Fatalf("61: n = %s", showV(got["n"]))
	}
	if len(first.ConsumedCapacity) != 1 || aws.ToFloat64(first.ConsumedCapacity[0].WriteCapacityUnits) != 2 ||
		len(second.ConsumedCapacity) != 1 || aws.ToFloat64(second.ConsumedCapacity[0].ReadCapacityUnits) != 2 {
		t.Fatalf("61 capacity: %v %v / %v", aws.ToFloat64(first.ConsumedCapacity[0].WriteCapacityUnits), aws.ToFloat64(first.ConsumedCapacity[0].CapacityUnits), aws.ToFloat64(second.ConsumedCapacity[0].ReadCapacityUnits))
	}
	_, err = tx(c, "tok-61", `UPDATE "Hh1" SET n = n + 2 WHERE pk='a'`)
	wantErr(t, err, "IdempotentParameterMismatchException", "")
}
