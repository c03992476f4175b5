package e2e_test

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/wire"
)

// Query and Scan through the real SDK client against the in-process
// server: key conditions, order, pagination, indexes, Select, filters,
// capacity, the 1 MB page, parallel scans and the validation errors.

func qAttr(name string, t types.ScalarAttributeType) types.AttributeDefinition {
	return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: t}
}

func qKey(hash, rng string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
	if rng != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange})
	}
	return ks
}

// qTable creates a table "name" with pk S and sk of type skType, a GSI "gsi"
// (g S / sk, KEYS_ONLY), a GSI "gsiAll" (g S, ALL) and an LSI "lsi"
// (pk / l S, KEYS_ONLY).
func qTable(t testing.TB, c *dynamodb.Client, name string, skType types.ScalarAttributeType) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{qAttr("pk", "S"), qAttr("sk", skType), qAttr("g", "S"), qAttr("l", "S")},
		KeySchema:            qKey("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("gsi"), KeySchema: qKey("g", "sk"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
			{IndexName: aws.String("gsiAll"), KeySchema: qKey("g", ""), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
		},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{
			{IndexName: aws.String("lsi"), KeySchema: qKey("pk", "l"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
}

type qItem = map[string]types.AttributeValue

func qPut(t testing.TB, c *dynamodb.Client, table string, it qItem) {
	t.Helper()
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
		t.Fatal(err)
	}
}

func sOf(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberN:
		return x.Value
	case *types.AttributeValueMemberB:
		return string(x.Value)
	}
	return fmt.Sprintf("%T", v)
}

// col returns attribute name of every qItem, as text.
func col(items []qItem, name string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = sOf(it[name])
	}
	return out
}

// queryAll pages through a Query to the end and returns every qItem and
// the number of pages.
func queryAll(t *testing.T, c *dynamodb.Client, in *dynamodb.QueryInput) ([]qItem, int) {
	t.Helper()
	var all []qItem
	in.ExclusiveStartKey = nil
	for pages := 1; ; pages++ {
		out, err := c.Query(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, out.Items...)
		if out.LastEvaluatedKey == nil {
			return all, pages
		}
		if pages > 10000 {
			t.Fatal("pagination does not end")
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func scanAll(t *testing.T, c *dynamodb.Client, in *dynamodb.ScanInput) ([]qItem, int) {
	t.Helper()
	var all []qItem
	in.ExclusiveStartKey = nil
	for pages := 1; ; pages++ {
		out, err := c.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, out.Items...)
		if out.LastEvaluatedKey == nil {
			return all, pages
		}
		if pages > 100000 {
			t.Fatal("pagination does not end")
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func kce(expr string, values ...any) *dynamodb.QueryInput {
	in := &dynamodb.QueryInput{TableName: aws.String("qtab"), KeyConditionExpression: aws.String(expr)}
	if len(values) > 0 {
		in.ExpressionAttributeValues = qItem{}
		for i := 0; i < len(values); i += 2 {
			in.ExpressionAttributeValues[values[i].(string)] = values[i+1].(types.AttributeValue)
		}
	}
	return in
}

// numbers used as sort keys, in DynamoDB's (numeric) order.
var qNumbers = []string{"-1000", "-10.5", "-2", "-1", "-0.001", "0", "0.001", "1", "2", "9", "10", "10.5", "11", "99", "100", "1000", "1E+5", "123456789012345678901234567890"}

func qServerNumbers(t *testing.T) *testserver.Server {
	s := testserver.New(t)
	qTable(t, s.Client, "qtab", "N")
	order := rand.New(rand.NewSource(1)).Perm(len(qNumbers))
	for _, i := range order {
		qPut(t, s.Client, "qtab", qItem{"pk": itS("a"), "sk": itN(qNumbers[i]), "g": itS("G" + strconv.Itoa(i%2)), "l": itS(fmt.Sprintf("l%02d", len(qNumbers)-i)), "x": itN(strconv.Itoa(i))})
	}
	// Other partitions that must never show up in a Query of "a".
	for _, pk := range []string{"", "b", "a\x00", "aa", "A"} {
		if pk == "" {
			continue
		}
		qPut(t, s.Client, "qtab", qItem{"pk": itS(pk), "sk": itN("1"), "g": itS("G0")})
	}
	return s
}

func canon(ns []string) []string {
	// The server answers numbers in canonical form.
	out := make([]string, len(ns))
	for i, n := range ns {
		switch n {
		case "1E+5":
			out[i] = "100000"
		default:
			out[i] = n
		}
	}
	return out
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}

func TestQueryKeyConditionsAndOrder(t *testing.T) {
	s := qServerNumbers(t)
	c := s.Client
	all := canon(qNumbers)
	idx := func(n string) int {
		for i, x := range all {
			if x == n {
				return i
			}
		}
		t.Fatalf("no %s", n)
		return 0
	}
	cases := []struct {
		name string
		in   *dynamodb.QueryInput
		want []string
	}{
		{"all", kce("pk = :p", ":p", itS("a")), all},
		{"eq", kce("pk = :p AND sk = :v", ":p", itS("a"), ":v", itN("10.50")), []string{"10.5"}},
		{"lt", kce("pk = :p AND sk < :v", ":p", itS("a"), ":v", itN("0")), all[:idx("0")]},
		{"le", kce("pk = :p AND sk <= :v", ":p", itS("a"), ":v", itN("0")), all[:idx("0")+1]},
		{"gt", kce("pk = :p AND sk > :v", ":p", itS("a"), ":v", itN("10")), all[idx("10")+1:]},
		{"ge", kce("pk = :p AND sk >= :v", ":p", itS("a"), ":v", itN("10")), all[idx("10"):]},
		{"between", kce("pk = :p AND sk BETWEEN :a AND :b", ":p", itS("a"), ":a", itN("-2"), ":b", itN("2")), all[idx("-2") : idx("2")+1]},
		{"between-miss", kce("pk = :p AND sk BETWEEN :a AND :b", ":p", itS("a"), ":a", itN("3"), ":b", itN("8")), []string{}},
		{"flipped", kce(":v < sk AND pk = :p", ":p", itS("a"), ":v", itN("99")), all[idx("99")+1:]},
		{"other-partition", kce("pk = :p", ":p", itS("aa")), []string{"1"}},
		{"no-partition", kce("pk = :p", ":p", itS("zz")), []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := c.Query(context.Background(), tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := col(out.Items, "sk"); !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Fatalf("forward: got %v, want %v", got, tc.want)
			}
			if out.Count != int32(len(tc.want)) || out.ScannedCount != int32(len(tc.want)) {
				t.Fatalf("Count %d ScannedCount %d, want %d", out.Count, out.ScannedCount, len(tc.want))
			}
			tc.in.ScanIndexForward = aws.Bool(false)
			out, err = c.Query(context.Background(), tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := col(out.Items, "sk"); !reflect.DeepEqual(got, reversed(tc.want)) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Fatalf("backward: got %v, want %v", got, reversed(tc.want))
			}
		})
	}

	// Legacy KeyConditions give the same answers.
	legacy := &dynamodb.QueryInput{TableName: aws.String("qtab"), KeyConditions: map[string]types.Condition{
		"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{itS("a")}},
		"sk": {ComparisonOperator: types.ComparisonOperatorBetween, AttributeValueList: []types.AttributeValue{itN("-2"), itN("2")}},
	}}
	out, err := c.Query(context.Background(), legacy)
	if err != nil {
		t.Fatal(err)
	}
	if got := col(out.Items, "sk"); !reflect.DeepEqual(got, all[idx("-2"):idx("2")+1]) {
		t.Fatalf("KeyConditions: %v", got)
	}
}

func TestQueryPaginationBothDirections(t *testing.T) {
	s := qServerNumbers(t)
	c := s.Client
	all := canon(qNumbers)
	for _, limit := range []int32{1, 2, 5, 17, 18, 100} {
		for _, fwd := range []bool{true, false} {
			in := kce("pk = :p", ":p", itS("a"))
			in.Limit = aws.Int32(limit)
			in.ScanIndexForward = aws.Bool(fwd)
			got, pages := queryAll(t, c, in)
			want := all
			if !fwd {
				want = reversed(all)
			}
			if g := col(got, "sk"); !reflect.DeepEqual(g, want) {
				t.Fatalf("limit %d fwd %v: %v", limit, fwd, g)
			}
			// A full page (by Limit) carries a LastEvaluatedKey even when
			// nothing follows, as DynamoDB does: one extra, empty page.
			wantPages := (len(all) + int(limit) - 1) / int(limit)
			if len(all)%int(limit) == 0 {
				wantPages++
			}
			if pages != wantPages {
				t.Fatalf("limit %d fwd %v: %d pages, want %d", limit, fwd, pages, wantPages)
			}
		}
	}
	// The LastEvaluatedKey of a table query is the table key.
	in := kce("pk = :p", ":p", itS("a"))
	in.Limit = aws.Int32(3)
	out, err := c.Query(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.LastEvaluatedKey) != 2 || sOf(out.LastEvaluatedKey["sk"]) != all[2] || sOf(out.LastEvaluatedKey["pk"]) != "a" {
		t.Fatalf("LEK %v", itDump(out.LastEvaluatedKey))
	}
}

func TestQuerySortOrderStringsAndBinaries(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	qTable(t, c, "qstr", "S")
	qTable(t, c, "qbin", "B")
	strs := []string{"", "\x00", "\x00\x01", "A", "AB", "Ab", "a", "a\x00", "a\x00b", "aa", "ab", "b", "é", "日本"}
	for _, x := range strs[1:] {
		qPut(t, c, "qstr", qItem{"pk": itS("p"), "sk": itS(x)})
		qPut(t, c, "qbin", qItem{"pk": itS("p"), "sk": itB([]byte(x))})
	}
	want := strs[1:]
	for _, tbl := range []string{"qstr", "qbin"} {
		in := kce("pk = :p", ":p", itS("p"))
		in.TableName = aws.String(tbl)
		got, _ := queryAll(t, c, in)
		if g := col(got, "sk"); !reflect.DeepEqual(g, want) {
			t.Fatalf("%s: %q", tbl, g)
		}
	}
	prefixes := map[string][]string{"a": {"a", "a\x00", "a\x00b", "aa", "ab"}, "a\x00": {"a\x00", "a\x00b"}, "\x00": {"\x00", "\x00\x01"}, "z": nil, "日": {"日本"}}
	for p, w := range prefixes {
		for _, tbl := range []string{"qstr", "qbin"} {
			var v types.AttributeValue = itS(p)
			if tbl == "qbin" {
				v = itB([]byte(p))
			}
			for _, fwd := range []bool{true, false} {
				in := kce("pk = :p AND begins_with(sk, :x)", ":p", itS("p"), ":x", v)
				in.TableName = aws.String(tbl)
				in.ScanIndexForward = aws.Bool(fwd)
				in.Limit = aws.Int32(2)
				got, _ := queryAll(t, c, in)
				ww := w
				if !fwd {
					ww = reversed(w)
				}
				if g := col(got, "sk"); !reflect.DeepEqual(g, ww) && !(len(g) == 0 && len(ww) == 0) {
					t.Fatalf("%s begins_with %q fwd %v: %q, want %q", tbl, p, fwd, g, ww)
				}
			}
		}
	}
}

func TestQueryFilterProjectionSelect(t *testing.T) {
	s := qServerNumbers(t)
	c := s.Client
	ctx := context.Background()
	// x holds the qItem's insertion index; keep the even ones.
	in := kce("pk = :p", ":p", itS("a"), ":two", itN("2"), ":z", itN("0"))
	in.FilterExpression = aws.String("x BETWEEN :z AND :two")
	out, err := c.Query(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 3 || out.ScannedCount != int32(len(qNumbers)) || len(out.Items) != 3 {
		t.Fatalf("filter: Count %d ScannedCount %d items %d", out.Count, out.ScannedCount, len(out.Items))
	}
	// Limit counts items evaluated, before the filter.
	in.Limit = aws.Int32(5)
	out, err = c.Query(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.ScannedCount != 5 || out.LastEvaluatedKey == nil {
		t.Fatalf("filter+limit: ScannedCount %d LEK %v", out.ScannedCount, out.LastEvaluatedKey)
	}
	got, _ := queryAll(t, c, in)
	if len(got) != 3 {
		t.Fatalf("filter paginated: %d items", len(got))
	}

	// Legacy QueryFilter and AttributesToGet.
	out, err = c.Query(ctx, &dynamodb.QueryInput{
		TableName:       aws.String("qtab"),
		KeyConditions:   map[string]types.Condition{"pk": {ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{itS("a")}}},
		QueryFilter:     map[string]types.Condition{"x": {ComparisonOperator: "LT", AttributeValueList: []types.AttributeValue{itN("3")}}},
		AttributesToGet: []string{"x", "sk"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 3 || len(out.Items[0]) != 2 || out.Items[0]["x"] == nil {
		t.Fatalf("QueryFilter: %d %v", out.Count, out.Items)
	}

	// ProjectionExpression.
	in = kce("pk = :p", ":p", itS("a"))
	in.ProjectionExpression = aws.String("#x, g")
	in.ExpressionAttributeNames = map[string]string{"#x": "x"}
	out, err = c.Query(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range out.Items {
		if len(it) != 2 || it["x"] == nil || it["g"] == nil {
			t.Fatalf("projection: %v", itDump(it))
		}
	}

	// Select=COUNT answers no Items; SPECIFIC_ATTRIBUTES needs a projection.
	in = kce("pk = :p", ":p", itS("a"))
	in.Select = types.SelectCount
	out, err = c.Query(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Items != nil || out.Count != int32(len(qNumbers)) {
		t.Fatalf("COUNT: items %v count %d", out.Items, out.Count)
	}
	in = kce("pk = :p", ":p", itS("a"))
	in.Select = types.SelectSpecificAttributes
	in.ProjectionExpression = aws.String("sk")
	if out, err = c.Query(ctx, in); err != nil || len(out.Items[0]) != 1 {
		t.Fatalf("SPECIFIC_ATTRIBUTES: %v %v", err, out)
	}
}

func TestQueryIndexes(t *testing.T) {
	s := qServerNumbers(t)
	c := s.Client
	ctx := context.Background()
	all := canon(qNumbers)

	// GSI (KEYS_ONLY) on g / sk: half the items, in sk order, index and
	// table keys only; pagination carries index and table keys.
	in := kce("g = :g", ":g", itS("G0"))
	in.IndexName = aws.String("gsi")
	full, _ := queryAll(t, c, in)
	var want []string
	order := rand.New(rand.NewSource(1)).Perm(len(qNumbers))
	for _, i := range order {
		if i%2 == 0 {
			want = append(want, canon(qNumbers[i : i+1])[0])
		}
	}
	// G0 also holds the other partitions' items (sk 1).
	want = append(want, "1", "1", "1", "1")
	sort.Slice(want, func(i, j int) bool { return numLess(want[i], want[j]) })
	if g := col(full, "sk"); !reflect.DeepEqual(g, want) {
		t.Fatalf("gsi: %v want %v", g, want)
	}
	for _, it := range full {
		if _, ok := it["x"]; ok || len(it) != 3 {
			t.Fatalf("KEYS_ONLY entry has %v", itDump(it))
		}
	}
	for _, fwd := range []bool{true, false} {
		in.Limit = aws.Int32(1)
		in.ScanIndexForward = aws.Bool(fwd)
		got, _ := queryAll(t, c, in)
		w := want
		if !fwd {
			w = reversed(want)
		}
		if g := col(got, "sk"); !reflect.DeepEqual(g, w) {
			t.Fatalf("gsi paginated fwd %v: %v", fwd, g)
		}
	}
	in.Limit = aws.Int32(1)
	in.ScanIndexForward = nil
	out, err := c.Query(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.LastEvaluatedKey) != 3 || out.LastEvaluatedKey["g"] == nil || out.LastEvaluatedKey["pk"] == nil || out.LastEvaluatedKey["sk"] == nil {
		t.Fatalf("gsi LEK: %v", itDump(out.LastEvaluatedKey))
	}

	// LSI (KEYS_ONLY) on pk / l: l runs opposite to sk.
	in = kce("pk = :p", ":p", itS("a"))
	in.IndexName = aws.String("lsi")
	got, _ := queryAll(t, c, in)
	if len(got) != len(all) {
		t.Fatalf("lsi: %d items", len(got))
	}
	for i := 1; i < len(got); i++ {
		if sOf(got[i-1]["l"]) >= sOf(got[i]["l"]) {
			t.Fatalf("lsi order: %v", col(got, "l"))
		}
	}
	if got[0]["x"] != nil {
		t.Fatal("lsi ALL_PROJECTED_ATTRIBUTES returned a non-projected attribute")
	}
	// Non-projected attributes of an LSI come from the table.
	in.Select = types.SelectAllAttributes
	in.Limit = aws.Int32(4)
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	out, err = c.Query(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Items[0]["x"] == nil || out.Items[0]["g"] == nil {
		t.Fatalf("lsi ALL_ATTRIBUTES: %v", itDump(out.Items[0]))
	}
	if len(out.LastEvaluatedKey) != 3 || out.LastEvaluatedKey["l"] == nil {
		t.Fatalf("lsi LEK: %v", itDump(out.LastEvaluatedKey))
	}
	if cc := out.ConsumedCapacity; cc.Table == nil || *cc.Table.CapacityUnits != 2 || *cc.LocalSecondaryIndexes["lsi"].CapacityUnits != 0.5 {
		t.Fatalf("lsi fetch capacity: %+v", cc)
	}
	in.Select = ""
	in.ProjectionExpression = aws.String("x")
	if out, err = c.Query(ctx, in); err != nil || out.Items[0]["x"] == nil {
		t.Fatalf("lsi projection fetch: %v %v", err, out)
	}
	in.ProjectionExpression = nil
	in.FilterExpression = aws.String("x = :x")
	in.Limit = nil
	in.ExpressionAttributeValues[":x"] = itN("3")
	if out, err = c.Query(ctx, in); err != nil || out.Count != 1 || out.ScannedCount != int32(len(all)) {
		t.Fatalf("lsi filter fetch: %v %+v", err, out)
	}

	// GSI ALL: every attribute.
	in = kce("g = :g", ":g", itS("G1"))
	in.IndexName = aws.String("gsiAll")
	out, err = c.Query(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Count == 0 || out.Items[0]["x"] == nil {
		t.Fatalf("gsiAll: %+v", out)
	}
}

func numLess(a, b string) bool {
	x, _ := strconv.ParseFloat(a, 64)
	y, _ := strconv.ParseFloat(b, 64)
	return x < y
}

func TestQueryValidation(t *testing.T) {
	s := qServerNumbers(t)
	c := s.Client
	ctx := context.Background()
	const v = "ValidationException"
	q := func(mod func(*dynamodb.QueryInput)) *dynamodb.QueryInput {
		in := kce("pk = :p", ":p", itS("a"))
		mod(in)
		return in
	}
	cases := []struct {
		name string
		in   *dynamodb.QueryInput
		code string
		msg  string
	}{
		{"no key condition", &dynamodb.QueryInput{TableName: aws.String("qtab")}, v, "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."},
		{"missing table", q(func(in *dynamodb.QueryInput) { in.TableName = aws.String("nope") }), "ResourceNotFoundException", "Requested resource not found"},
		{"limit 0", q(func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(0) }), v, "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"bad select", q(func(in *dynamodb.QueryInput) { in.Select = "SOME" }), v, "1 validation error detected: Value 'SOME' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"},
		{"non-key condition", kce("x = :p", ":p", itN("1")), v, "Query condition missed key schema element: pk"},
		{"sort only", kce("sk = :p", ":p", itN("1")), v, "Query condition missed key schema element: pk"},
		{"partition not equality", kce("pk > :p", ":p", itS("a")), v, "Query key condition not supported"},
		{"wrong sort attribute", kce("pk = :p AND x = :x", ":p", itS("a"), ":x", itN("1")), v, "Query condition missed key schema element: sk"},
		{"wrong type", kce("pk = :p", ":p", itN("1")), v, "One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"wrong sort type", kce("pk = :p AND sk = :s", ":p", itS("a"), ":s", itS("1")), v, "One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"or", kce("pk = :p OR sk = :s", ":p", itS("a"), ":s", itN("1")), v, "Invalid operator used in KeyConditionExpression: OR"},
		{"filter on key", q(func(in *dynamodb.QueryInput) { in.FilterExpression = aws.String("sk > :p") }), v, "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk"},
		{"query filter on key", &dynamodb.QueryInput{TableName: aws.String("qtab"),
			KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: "EQ", AttributeValueList: []types.AttributeValue{itS("a")}}},
			QueryFilter:   map[string]types.Condition{"pk": {ComparisonOperator: "NOT_NULL"}}}, v, "QueryFilter can only contain non-primary key attributes: Primary key attribute: pk"},
		{"key conditions not indexable", &dynamodb.QueryInput{TableName: aws.String("qtab"),
			KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: "NE", AttributeValueList: []types.AttributeValue{itS("a")}}}}, v, "Attempted conditional constraint is not an indexable operation"},
		{"mixed", q(func(in *dynamodb.QueryInput) { in.AttributesToGet = []string{"x"} }), v, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {KeyConditionExpression}"},
		{"no index", q(func(in *dynamodb.QueryInput) { in.IndexName = aws.String("nope") }), v, "The table does not have the specified index: nope"},
		{"consistent gsi", q(func(in *dynamodb.QueryInput) {
			in.IndexName = aws.String("gsi")
			in.ConsistentRead = aws.Bool(true)
		}), v, "Consistent reads are not supported on global secondary indexes"},
		{"index key condition", q(func(in *dynamodb.QueryInput) { in.IndexName = aws.String("gsi") }), v, "Query condition missed key schema element: g"},
		{"gsi all attributes", func() *dynamodb.QueryInput {
			in := kce("g = :g", ":g", itS("G0"))
			in.IndexName = aws.String("gsi")
			in.Select = types.SelectAllAttributes
			return in
		}(), v, "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index gsi because its projection type is not ALL"},
		{"gsi projection", func() *dynamodb.QueryInput {
			in := kce("g = :g", ":g", itS("G0"))
			in.IndexName = aws.String("gsi")
			in.ProjectionExpression = aws.String("x, sk, y")
			return in
		}(), v, "One or more parameter values were invalid: Global secondary index gsi does not project [x, y]"},
		{"gsi filter", func() *dynamodb.QueryInput {
			in := kce("g = :g", ":g", itS("G0"), ":x", itN("1"))
			in.IndexName = aws.String("gsi")
			in.FilterExpression = aws.String("x = :x")
			return in
		}(), v, "One or more parameter values were invalid: Secondary index gsi does not project one or more filter attributes: [x]"},
		{"all projected without index", q(func(in *dynamodb.QueryInput) { in.Select = types.SelectAllProjectedAttributes }), v, "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"},
		{"count with projection", q(func(in *dynamodb.QueryInput) {
			in.Select = types.SelectCount
			in.ProjectionExpression = aws.String("x")
		}), v, "Cannot specify the ProjectionExpression when choosing to get only the Count"},
		{"all with projection", q(func(in *dynamodb.QueryInput) {
			in.Select = types.SelectAllAttributes
			in.ProjectionExpression = aws.String("x")
		}), v, "Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES"},
		{"specific without projection", q(func(in *dynamodb.QueryInput) { in.Select = types.SelectSpecificAttributes }), v, "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"},
		{"start key missing attribute", q(func(in *dynamodb.QueryInput) { in.ExclusiveStartKey = qItem{"pk": itS("a")} }), v, "The provided starting key is invalid"},
		{"start key wrong type", q(func(in *dynamodb.QueryInput) { in.ExclusiveStartKey = qItem{"pk": itS("a"), "sk": itS("1")} }), v, "The provided starting key is invalid"},
		{"start key extra", q(func(in *dynamodb.QueryInput) {
			in.ExclusiveStartKey = qItem{"pk": itS("a"), "sk": itN("1"), "x": itN("1")}
		}), v, "The provided starting key is invalid"},
		{"start key other partition", q(func(in *dynamodb.QueryInput) { in.ExclusiveStartKey = qItem{"pk": itS("b"), "sk": itN("1")} }), v, "The provided starting key is outside query boundaries based on provided conditions"},
		{"start key index without table key", func() *dynamodb.QueryInput {
			in := kce("g = :g", ":g", itS("G0"))
			in.IndexName = aws.String("gsi")
			in.ExclusiveStartKey = qItem{"g": itS("G0"), "sk": itN("1")}
			return in
		}(), v, "The provided starting key is invalid"},
		{"start key bad value", q(func(in *dynamodb.QueryInput) { in.ExclusiveStartKey = qItem{"pk": itS("a"), "sk": itN("x1")} }), v, ""},
		{"unused value", q(func(in *dynamodb.QueryInput) { in.ExpressionAttributeValues[":u"] = itS("u") }), v, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Query(ctx, tc.in)
			if tc.msg == "" {
				if err == nil || !strings.Contains(err.Error(), tc.code) {
					t.Fatalf("got %v", err)
				}
				return
			}
			itErr(t, err, tc.code, tc.msg)
		})
	}
}

func TestQueryConsumedCapacity(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	ctx := context.Background()
	qTable(t, c, "qtab", "N")
	// 10 items of ~1.5 KB: 15 KB in all → 4 KB units rounded once = 4.
	for i := range 10 {
		qPut(t, c, "qtab", qItem{"pk": itS("a"), "sk": itN(strconv.Itoa(i)), "g": itS("g"), "xpad": itS(strings.Repeat("x", 1500))})
	}
	in := kce("pk = :p", ":p", itS("a"))
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	check := func(in *dynamodb.QueryInput, want float64) *types.ConsumedCapacity {
		t.Helper()
		out, err := c.Query(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if got := capUnits(out.ConsumedCapacity); got != want {
			t.Fatalf("capacity %v, want %v", got, want)
		}
		return out.ConsumedCapacity
	}
	check(in, 2) // eventually consistent: half of 4
	in.ConsistentRead = aws.Bool(true)
	check(in, 4)
	in.Select = types.SelectCount // COUNT does not reduce the cost
	check(in, 4)
	in.Select = ""
	in.FilterExpression = aws.String("xpad = :n")
	in.ExpressionAttributeValues[":n"] = itS("none")
	check(in, 4) // a filter neither
	in = kce("pk = :p", ":p", itS("nothing"))
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	check(in, 0.5) // nothing found still costs the minimum
	// Scan counts every item evaluated, returned or not.
	sout, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("qtab"), FilterExpression: aws.String("xpad = :n"),
		ExpressionAttributeValues: qItem{":n": itS("none")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || sout.Count != 0 || capUnits(sout.ConsumedCapacity) != 2 {
		t.Fatalf("scan capacity: %v %+v", err, sout)
	}
	// GSI with INDEXES: the index pays, the table shows 0.
	in = kce("g = :g", ":g", itS("g"))
	in.IndexName = aws.String("gsiAll")
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	cc := check(in, 2)
	if cc.Table == nil || *cc.Table.CapacityUnits != 0 || *cc.GlobalSecondaryIndexes["gsiAll"].CapacityUnits != 2 || *cc.TableName != "qtab" {
		t.Fatalf("INDEXES shape: %+v", cc)
	}
}

func TestQueryPageLimit1MB(t *testing.T) {
	// 2.5 MB written to one partition key value in an instant is over its
	// 1,000 WCU: the throttle manager is off for this test.
	s := testserver.New(t, testserver.WithEngineOptions(func(o *emulator.Options) { o.Throttle.Off = true }))
	c := s.Client
	qTable(t, c, "qtab", "N")
	big := strings.Repeat("b", 100*1024)
	for i := range 25 {
		qPut(t, c, "qtab", qItem{"pk": itS("a"), "sk": itN(strconv.Itoa(i)), "xpad": itS(big)})
	}
	in := kce("pk = :p", ":p", itS("a"), ":n", itS("none"))
	in.FilterExpression = aws.String("xpad = :n")
	out, err := c.Query(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	// Measured before the filter: the page ends at 1 MB read, though it
	// returns nothing.
	if out.Count != 0 || out.ScannedCount != 11 || out.LastEvaluatedKey == nil {
		t.Fatalf("Count %d ScannedCount %d LEK %v", out.Count, out.ScannedCount, out.LastEvaluatedKey)
	}
	in.FilterExpression = nil
	delete(in.ExpressionAttributeValues, ":n")
	got, pages := queryAll(t, c, in)
	if len(got) != 25 || pages != 3 {
		t.Fatalf("%d items in %d pages", len(got), pages)
	}
	sc, pages := scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String("qtab")})
	if len(sc) != 25 || pages != 3 {
		t.Fatalf("scan: %d items in %d pages", len(sc), pages)
	}
}

func TestScanAndParallelScan(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	ctx := context.Background()
	qTable(t, c, "qtab", "N")
	const n = 300
	for i := range n {
		qPut(t, c, "qtab", qItem{"pk": itS("p" + strconv.Itoa(i%97)), "sk": itN(strconv.Itoa(i)), "g": itS("g" + strconv.Itoa(i%3)), "x": itN(strconv.Itoa(i))})
	}
	got, _ := scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String("qtab"), Limit: aws.Int32(7)})
	if len(got) != n {
		t.Fatalf("scan: %d items", len(got))
	}
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("qtab"), FilterExpression: aws.String("x < :x"),
		ExpressionAttributeValues: qItem{":x": itN("10")}, Select: types.SelectCount})
	if err != nil || out.Count != 10 || out.ScannedCount != n || out.Items != nil {
		t.Fatalf("scan filter count: %v %+v", err, out)
	}
	out, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("qtab"), ScanFilter: map[string]types.Condition{"x": {ComparisonOperator: "LT", AttributeValueList: []types.AttributeValue{itN("10")}}},
		AttributesToGet: []string{"x"}})
	if err != nil || out.Count != 10 || len(out.Items[0]) != 1 {
		t.Fatalf("scan ScanFilter: %v %+v", err, out)
	}
	for _, total := range []int32{1, 2, 3, 7, 100, 1000000} {
		seen := map[string]int{}
		for seg := int32(0); seg < total && seg < 200; seg++ {
			items, _ := scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String("qtab"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(13)})
			for _, it := range items {
				seen[sOf(it["sk"])]++
			}
		}
		if total > 200 {
			continue
		}
		if len(seen) != n {
			t.Fatalf("TotalSegments %d: %d distinct items", total, len(seen))
		}
		for k, cnt := range seen {
			if cnt != 1 {
				t.Fatalf("TotalSegments %d: qItem %s seen %d times", total, k, cnt)
			}
		}
	}
	// Index scans.
	items, _ := scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String("qtab"), IndexName: aws.String("gsi"), Limit: aws.Int32(10)})
	if len(items) != n || items[0]["x"] != nil {
		t.Fatalf("gsi scan: %d", len(items))
	}
	seen := map[string]int{}
	for seg := int32(0); seg < 4; seg++ {
		part, _ := scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String("qtab"), IndexName: aws.String("gsiAll"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(4), Limit: aws.Int32(25)})
		for _, it := range part {
			seen[sOf(it["sk"])]++
		}
	}
	if len(seen) != n {
		t.Fatalf("parallel gsi scan: %d distinct items", len(seen))
	}
	for k, cnt := range seen {
		if cnt != 1 {
			t.Fatalf("parallel gsi scan: item %s seen %d times", k, cnt)
		}
	}
	items, _ = scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String("qtab"), IndexName: aws.String("lsi")})
	if len(items) != 0 {
		t.Fatalf("lsi scan: %d (no qItem has l)", len(items))
	}
}

func TestParallelScanDuringWrites(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	ctx := context.Background()
	qTable(t, c, "qtab", "N")
	const n = 400
	for i := range n {
		qPut(t, c, "qtab", qItem{"pk": itS("stable" + strconv.Itoa(i)), "sk": itN("0")})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := fmt.Sprintf("churn%d-%d", w, i%50)
				if i%3 == 2 {
					_, _ = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("qtab"), Key: qItem{"pk": itS(k), "sk": itN("0")}})
				} else {
					_, _ = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("qtab"), Item: qItem{"pk": itS(k), "sk": itN("0"), "v": itN(strconv.Itoa(i))}})
				}
				// Rewrites of stable items must not make them vanish or repeat.
				_, _ = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("qtab"), Item: qItem{"pk": itS("stable" + strconv.Itoa(i%n)), "sk": itN("0"), "v": itN(strconv.Itoa(i))}})
			}
		}()
	}
	const total = 5
	seen := map[string]int{}
	var mu sync.Mutex
	var sw sync.WaitGroup
	for seg := range int32(total) {
		sw.Add(1)
		go func() {
			defer sw.Done()
			in := &dynamodb.ScanInput{TableName: aws.String("qtab"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(9)}
			for {
				out, err := c.Scan(ctx, in)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, it := range out.Items {
					seen[sOf(it["pk"])]++
				}
				mu.Unlock()
				if out.LastEvaluatedKey == nil {
					return
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
		}()
	}
	sw.Wait()
	close(stop)
	wg.Wait()
	for i := range n {
		k := "stable" + strconv.Itoa(i)
		if seen[k] != 1 {
			t.Fatalf("%s seen %d times", k, seen[k])
		}
	}
	for k, cnt := range seen {
		if cnt != 1 {
			t.Fatalf("%s seen %d times", k, cnt)
		}
	}
}

func TestScanValidation(t *testing.T) {
	s := qServerNumbers(t)
	c := s.Client
	const v = "ValidationException"
	cases := []struct {
		name string
		in   *dynamodb.ScanInput
		msg  string
	}{
		{"segment without total", &dynamodb.ScanInput{TableName: aws.String("qtab"), Segment: aws.Int32(0)}, "The TotalSegments parameter is required but was not present in the request when Segment parameter is present"},
		{"total without segment", &dynamodb.ScanInput{TableName: aws.String("qtab"), TotalSegments: aws.Int32(2)}, "The Segment parameter is required but was not present in the request when parameter TotalSegments is present"},
		{"segment too big", &dynamodb.ScanInput{TableName: aws.String("qtab"), Segment: aws.Int32(2), TotalSegments: aws.Int32(2)}, "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 2 is not less than TotalSegments: 2"},
		{"total 0", &dynamodb.ScanInput{TableName: aws.String("qtab"), Segment: aws.Int32(0), TotalSegments: aws.Int32(0)}, "1 validation error detected: Value '0' at 'totalSegments' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"total too big", &dynamodb.ScanInput{TableName: aws.String("qtab"), Segment: aws.Int32(0), TotalSegments: aws.Int32(1000001)}, "1 validation error detected: Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000"},
		{"negative segment", &dynamodb.ScanInput{TableName: aws.String("qtab"), Segment: aws.Int32(-1), TotalSegments: aws.Int32(2)}, "1 validation error detected: Value '-1' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0"},
		{"limit", &dynamodb.ScanInput{TableName: aws.String("qtab"), Limit: aws.Int32(-5)}, "1 validation error detected: Value '-5' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"no index", &dynamodb.ScanInput{TableName: aws.String("qtab"), IndexName: aws.String("nope")}, "The table does not have the specified index: nope"},
		{"start key", &dynamodb.ScanInput{TableName: aws.String("qtab"), ExclusiveStartKey: qItem{"pk": itS("a"), "sk": itS("x")}}, "The provided starting key is invalid: The provided key element does not match the schema"},
		{"consistent gsi", &dynamodb.ScanInput{TableName: aws.String("qtab"), IndexName: aws.String("gsi"), ConsistentRead: aws.Bool(true)}, "Consistent reads are not supported on global secondary indexes"},
		{"all projected", &dynamodb.ScanInput{TableName: aws.String("qtab"), Select: types.SelectAllProjectedAttributes}, "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"},
		{"count with atg", &dynamodb.ScanInput{TableName: aws.String("qtab"), Select: types.SelectCount, AttributesToGet: []string{"x"}}, "Cannot specify the AttributesToGet when choosing to get only the Count"},
		{"mixed", &dynamodb.ScanInput{TableName: aws.String("qtab"), AttributesToGet: []string{"x"}, FilterExpression: aws.String("x = :x"), ExpressionAttributeValues: qItem{":x": itN("1")}}, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {FilterExpression}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Scan(context.Background(), tc.in)
			itErr(t, err, v, tc.msg)
		})
	}
}

func TestIndexMaintenanceThroughQuery(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	ctx := context.Background()
	qTable(t, c, "qtab", "N")
	gq := func(g string) []string {
		in := kce("g = :g", ":g", itS(g))
		in.TableName = aws.String("qtab")
		in.IndexName = aws.String("gsiAll")
		got, _ := queryAll(t, c, in)
		out := col(got, "v")
		sort.Strings(out)
		return out
	}
	expect := func(g string, want ...string) {
		t.Helper()
		if got := gq(g); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("index %s: %v, want %v", g, got, want)
		}
	}
	qPut(t, c, "qtab", qItem{"pk": itS("1"), "sk": itN("1"), "g": itS("A"), "v": itS("one")})
	qPut(t, c, "qtab", qItem{"pk": itS("2"), "sk": itN("1"), "g": itS("A"), "v": itS("two")})
	expect("A", "one", "two")
	// Update a projected attribute.
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("qtab"), Key: qItem{"pk": itS("1"), "sk": itN("1")},
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: qItem{":v": itS("uno")}}); err != nil {
		t.Fatal(err)
	}
	expect("A", "two", "uno")
	// Change the index key.
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("qtab"), Key: qItem{"pk": itS("2"), "sk": itN("1")},
		UpdateExpression: aws.String("SET g = :g"), ExpressionAttributeValues: qItem{":g": itS("B")}}); err != nil {
		t.Fatal(err)
	}
	expect("A", "uno")
	expect("B", "two")
	// Remove the index key: the qItem leaves the (sparse) index.
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("qtab"), Key: qItem{"pk": itS("2"), "sk": itN("1")},
		UpdateExpression: aws.String("REMOVE g")}); err != nil {
		t.Fatal(err)
	}
	expect("B")
	// Put replaces; delete removes.
	qPut(t, c, "qtab", qItem{"pk": itS("1"), "sk": itN("1"), "g": itS("B"), "v": itS("eins")})
	expect("A")
	expect("B", "eins")
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("qtab"), Key: qItem{"pk": itS("1"), "sk": itN("1")}}); err != nil {
		t.Fatal(err)
	}
	expect("B")
	// BatchWriteItem maintains indexes too.
	if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"qtab": {
		{PutRequest: &types.PutRequest{Item: qItem{"pk": itS("3"), "sk": itN("1"), "g": itS("C"), "v": itS("drei")}}},
		{PutRequest: &types.PutRequest{Item: qItem{"pk": itS("4"), "sk": itN("1"), "g": itS("C"), "v": itS("vier")}}},
	}}}); err != nil {
		t.Fatal(err)
	}
	expect("C", "drei", "vier")
	if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"qtab": {
		{DeleteRequest: &types.DeleteRequest{Key: qItem{"pk": itS("3"), "sk": itN("1")}}},
	}}}); err != nil {
		t.Fatal(err)
	}
	expect("C", "vier")
}

func TestQueryGSIBackfill(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	ctx := context.Background()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("bfill"), AttributeDefinitions: []types.AttributeDefinition{qAttr("pk", "S")},
		KeySchema: qKey("pk", ""), BillingMode: types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		it := qItem{"pk": itS(strconv.Itoa(i)), "n": itN(strconv.Itoa(i))}
		if i%5 == 0 {
			it["cat"] = itS("five")
		}
		qPut(t, c, "bfill", it)
	}
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:            aws.String("bfill"),
		AttributeDefinitions: []types.AttributeDefinition{qAttr("cat", "S"), qAttr("n", "N")},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byCat"), KeySchema: qKey("cat", "n"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}},
	}); err != nil {
		t.Fatal(err)
	}
	waitFirstIndexActive(t, c, "bfill")
	in := kce("cat = :c", ":c", itS("five"))
	in.TableName = aws.String("bfill")
	in.IndexName = aws.String("byCat")
	got, _ := queryAll(t, c, in)
	if g := col(got, "n"); !reflect.DeepEqual(g, []string{"0", "5", "10", "15", "20", "25", "30", "35", "40", "45"}) {
		t.Fatalf("backfilled index: %v", g)
	}
}

// Benchmarks through the HTTP handler with the SDK client.

// qLoad writes n items straight through the engine's Go API (no HTTP):
// partitions of perPartition items, ~100-byte items.
func qLoad(b *testing.B, s *testserver.Server, table string, n, perPartition int) {
	b.Helper()
	ctx := context.Background()
	ns := api.Namespace{Account: wire.DefaultAccount, Region: testserver.DefaultRegion}
	pad := av.Value{Type: av.TypeS, S: strings.Repeat("p", 64)}
	reqs := make([]api.WriteRequest, 0, 25)
	flush := func() {
		if len(reqs) == 0 {
			return
		}
		if _, err := s.Engine().BatchWriteItem(ctx, ns, &api.BatchWriteItemInput{RequestItems: map[string][]api.WriteRequest{table: reqs}}); err != nil {
			b.Fatal(err)
		}
		reqs = reqs[:0]
	}
	for i := range n {
		it := av.Item{
			"pk":  {Type: av.TypeS, S: "p" + strconv.Itoa(i/perPartition)},
			"sk":  {Type: av.TypeN, S: strconv.Itoa(i % perPartition)},
			"pad": pad,
		}
		reqs = append(reqs, api.WriteRequest{PutRequest: &api.PutRequest{Item: it}})
		if len(reqs) == 25 {
			flush()
		}
	}
	flush()
}

func qBenchTable(b *testing.B) *testserver.Server {
	// Benchmarks measure the read path, not the throttle manager.
	s := testserver.New(b, testserver.WithEngineOptions(func(o *emulator.Options) { o.Throttle.Off = true }))
	if _, err := s.Client.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String("bench"), AttributeDefinitions: []types.AttributeDefinition{qAttr("pk", "S"), qAttr("sk", "N")},
		KeySchema: qKey("pk", "sk"), BillingMode: types.BillingModePayPerRequest,
	}); err != nil {
		b.Fatal(err)
	}
	return s
}

func benchQueryPage(b *testing.B, limit int32) {
	s := qBenchTable(b)
	qLoad(b, s, "bench", 10000, 1000)
	in := kce("pk = :p", ":p", itS("p3"))
	in.TableName = aws.String("bench")
	in.Limit = aws.Int32(limit)
	b.ReportAllocs()
	for b.Loop() {
		out, err := s.Client.Query(context.Background(), in)
		if err != nil || out.Count != limit {
			b.Fatal(err)
		}
	}
}

func BenchmarkQuery10(b *testing.B)  { benchQueryPage(b, 10) }
func BenchmarkQuery100(b *testing.B) { benchQueryPage(b, 100) }

func BenchmarkScan100(b *testing.B) {
	s := qBenchTable(b)
	qLoad(b, s, "bench", 10000, 10)
	in := &dynamodb.ScanInput{TableName: aws.String("bench"), Limit: aws.Int32(100)}
	b.ReportAllocs()
	for b.Loop() {
		out, err := s.Client.Scan(context.Background(), in)
		// The page after the last full one is empty.
		if err != nil || (out.Count != 100 && out.LastEvaluatedKey != nil) {
			b.Fatal(err)
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// BenchmarkQueryTableSize queries one 10-item partition of tables of
// growing size: the cost must stay flat.
func BenchmarkQueryTableSize(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if n > 100_000 && testing.Short() {
				b.Skip("1M items in -short mode")
			}
			s := qBenchTable(b)
			qLoad(b, s, "bench", n, 10)
			in := kce("pk = :p", ":p", itS("p"+strconv.Itoa(n/20)))
			in.TableName = aws.String("bench")
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				out, err := s.Client.Query(context.Background(), in)
				if err != nil || out.Count != 10 {
					b.Fatal(err)
				}
			}
		})
	}
}

// qClock is a settable clock for transition tests.
type qClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *qClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *qClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestQueryBackfillingGSIRefused(t *testing.T) {
	clk := &qClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk), testserver.WithTransitionDelay(10*time.Second))
	c := s.Client
	ctx := context.Background()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("bfill"), AttributeDefinitions: []types.AttributeDefinition{qAttr("pk", "S")},
		KeySchema: qKey("pk", ""), BillingMode: types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	clk.advance(11 * time.Second)
	qPut(t, c, "bfill", qItem{"pk": itS("1"), "cat": itS("c")})
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:            aws.String("bfill"),
		AttributeDefinitions: []types.AttributeDefinition{qAttr("cat", "S")},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byCat"), KeySchema: qKey("cat", ""), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}},
	}); err != nil {
		t.Fatal(err)
	}
	in := kce("cat = :c", ":c", itS("c"))
	in.TableName = aws.String("bfill")
	in.IndexName = aws.String("byCat")
	_, err := c.Query(ctx, in)
	itErr(t, err, "ValidationException", "Cannot read from backfilling global secondary index: byCat")
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("bfill"), IndexName: aws.String("byCat")})
	itErr(t, err, "ValidationException", "Cannot read from backfilling global secondary index: byCat")
	clk.advance(11 * time.Second)
	// The delay is over; the index turns ACTIVE once the job is done too.
	out, err := c.Query(ctx, in)
	for deadline := time.Now().Add(30 * time.Second); err != nil && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		out, err = c.Query(ctx, in)
	}
	if err != nil || out.Count != 1 {
		t.Fatalf("after backfill: %v %+v", err, out)
	}
}
