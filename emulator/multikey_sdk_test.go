package emulator_test

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/internal/testserver"
)

// GSIs with multi-attribute keys (up to four HASH and four RANGE
// attributes), through the SDK: the index keyspace, Query's key condition
// rules, order by each RANGE attribute's own type, pagination, sparse
// entries, backfill and capacity.

type mkItem = map[string]types.AttributeValue

func mkS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func mkN(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func mkKS(kv ...string) []types.KeySchemaElement {
	var out []types.KeySchemaElement
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(kv[i]), KeyType: types.KeyType(kv[i+1])})
	}
	return out
}

func mkDefs(kv ...string) []types.AttributeDefinition {
	var out []types.AttributeDefinition
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(kv[i]), AttributeType: types.ScalarAttributeType(kv[i+1])})
	}
	return out
}

// The index "match" of table "games": HASH tour (S), region (N); RANGE
// round (N), bracket (S), seq (N).
var mkIndexKeys = mkKS("tour", "HASH", "rgn", "HASH", "round", "RANGE", "bracket", "RANGE", "seq", "RANGE")

// mkRow is one item of the "games" table: id and its index key values ("" leaves
// the attribute out).
type mkRow struct{ id, tour, region, round, bracket, seq string }

func (r mkRow) item() mkItem {
	it := mkItem{"id": mkS(r.id), "note": mkS("n" + r.id)}
	if r.tour != "" {
		it["tour"] = mkS(r.tour)
	}
	for name, v := range map[string]string{"rgn": r.region, "round": r.round, "seq": r.seq} {
		if v != "" {
			it[name] = mkN(v)
		}
	}
	if r.bracket != "" {
		it["bracket"] = mkS(r.bracket)
	}
	return it
}

// mkRows are in the index order of partition (T1, 1): round numerically
// (9 before 10), then bracket bytewise, then seq numerically (5 before 40).
var mkRows = []mkRow{
	{"a", "T1", "1", "2", "upper", "7"},
	{"b", "T1", "1", "9", "lower", "1"},
	{"c", "T1", "1", "10", "lower", "3"},
	{"d", "T1", "1", "10", "upper", "5"},
	{"e", "T1", "1", "10", "upper", "40"},
	{"f", "T1", "1", "10", "upperdeck", "2"},
	{"g", "T1", "1", "10.5", "final", "1"},
}

// mkOthers are in other partitions or in none (a key attribute missing).
var mkOthers = []mkRow{
	{"x1", "T1", "2", "10", "upper", "5"}, // another region
	{"x2", "T2", "1", "10", "upper", "5"}, // another tour
	{"s1", "T1", "1", "10", "upper", ""},  // no seq: not in the index
	{"s2", "T1", "", "10", "upper", "6"},  // no region: not in the index
}

func mkServer(t *testing.T) (*testserver.Server, *dynamodb.Client) {
	t.Helper()
	s := testserver.New(t)
	c := s.Client
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String("games"),
		AttributeDefinitions: mkDefs("id", "S", "tour", "S", "rgn", "N", "round", "N", "bracket", "S", "seq", "N"),
		KeySchema:            mkKS("id", "HASH"),
		BillingMode:          types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("match"), KeySchema: mkIndexKeys,
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func mkPut(t *testing.T, c *dynamodb.Client, table string, rows ...mkRow) {
	t.Helper()
	for _, r := range rows {
		if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: r.item()}); err != nil {
			t.Fatalf("put %s: %v", r.id, err)
		}
	}
}

// mkQueryIn queries index "match" of "games" with kce over (T1, 1) unless
// kce names the partition itself; vals are the values beyond :t and :r.
func mkQueryIn(kce string, vals mkItem) *dynamodb.QueryInput {
	v := mkItem{":t": mkS("T1"), ":r": mkN("1")}
	for k, x := range vals {
		v[k] = x
	}
	for _, p := range []string{":t", ":r"} {
		if !regexp.MustCompile(p + `\b`).MatchString(kce) {
			delete(v, p)
		}
	}
	return &dynamodb.QueryInput{TableName: aws.String("games"), IndexName: aws.String("match"),
		KeyConditionExpression: aws.String(kce), ExpressionAttributeValues: v}
}

func ids(items []mkItem) string {
	var out []string
	for _, it := range items {
		out = append(out, it["id"].(*types.AttributeValueMemberS).Value)
	}
	return strings.Join(out, ",")
}

// TestMultiKeyQuery: every HASH attribute by equality selects one
// partition; the RANGE attributes narrow it as a left-to-right prefix of
// equalities with one trailing condition, in any textual order; items are
// ordered by round and seq numerically and bracket bytewise; sparse items
// are absent.
func TestMultiKeyQuery(t *testing.T) {
	_, c := mkServer(t)
	mkPut(t, c, "games", mkRows...)
	mkPut(t, c, "games", mkOthers...)
	const part = "tour = :t AND rgn = :r"
	cases := []struct {
		name, kce string
		vals      mkItem
		want      string
	}{
		{"partition", part, nil, "a,b,c,d,e,f,g"},
		{"hash in other order", "rgn = :r AND tour = :t", nil, "a,b,c,d,e,f,g"},
		{"other partition", "tour = :t AND rgn = :r2", mkItem{":r2": mkN("2")}, "x1"},
		{"first range equal", part + " AND round = :a", mkItem{":a": mkN("10")}, "c,d,e,f"},
		{"two range equal", part + " AND round = :a AND bracket = :b", mkItem{":a": mkN("10"), ":b": mkS("upper")}, "d,e"},
		{"all range equal", part + " AND round = :a AND bracket = :b AND seq = :c", mkItem{":a": mkN("10"), ":b": mkS("upper"), ":c": mkN("40")}, "e"},
		{"trailing gt", part + " AND round = :a AND bracket = :b AND seq > :c", mkItem{":a": mkN("10"), ":b": mkS("upper"), ":c": mkN("5")}, "e"},
		{"trailing le", part + " AND round = :a AND bracket = :b AND seq <= :c", mkItem{":a": mkN("10"), ":b": mkS("upper"), ":c": mkN("39")}, "d"},
		{"trailing between", part + " AND round = :a AND bracket BETWEEN :b AND :c", mkItem{":a": mkN("10"), ":b": mkS("lower"), ":c": mkS("upper")}, "c,d,e"},
		{"trailing begins_with", part + " AND round = :a AND begins_with(bracket, :b)", mkItem{":a": mkN("10"), ":b": mkS("upper")}, "d,e,f"},
		{"first range lt", part + " AND round < :a", mkItem{":a": mkN("10")}, "a,b"},
		{"first range ge", part + " AND round >= :a", mkItem{":a": mkN("10")}, "c,d,e,f,g"},
		{"first range gt", part + " AND round > :a", mkItem{":a": mkN("10")}, "g"},
		{"textual order", "seq < :c AND bracket = :b AND round = :a AND rgn = :r AND tour = :t", mkItem{":a": mkN("10"), ":b": mkS("upper"), ":c": mkN("6")}, "d"},
	}
	for _, tc := range cases {
		for _, fwd := range []bool{true, false} {
			in := mkQueryIn(tc.kce, tc.vals)
			in.ScanIndexForward = aws.Bool(fwd)
			out, err := c.Query(context.Background(), in)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			want := tc.want
			if !fwd {
				w := strings.Split(want, ",")
				for i, j := 0, len(w)-1; i < j; i, j = i+1, j-1 {
					w[i], w[j] = w[j], w[i]
				}
				want = strings.Join(w, ",")
			}
			if got := ids(out.Items); got != want {
				t.Errorf("%s (forward %v): got %s, want %s", tc.name, fwd, got, want)
			}
		}
	}
	// A Scan of the index holds exactly the items with every key attribute.
	out, err := c.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("games"), IndexName: aws.String("match")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != int32(len(mkRows)+2) {
		t.Errorf("index scan: %d items (%s), want %d", out.Count, ids(out.Items), len(mkRows)+2)
	}
}

// TestMultiKeySparseUpdates: an item enters the index when its last missing
// key attribute is set and leaves it when one is removed.
func TestMultiKeySparseUpdates(t *testing.T) {
	_, c := mkServer(t)
	mkPut(t, c, "games", mkRow{"s", "T1", "1", "3", "upper", ""})
	count := func() int32 {
		out, err := c.Query(context.Background(), mkQueryIn("tour = :t AND rgn = :r", nil))
		if err != nil {
			t.Fatal(err)
		}
		return out.Count
	}
	if n := count(); n != 0 {
		t.Fatalf("item without seq is in the index (%d)", n)
	}
	upd := func(expr string, vals mkItem) {
		if _, err := c.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String("games"),
			Key: mkItem{"id": mkS("s")}, UpdateExpression: aws.String(expr), ExpressionAttributeValues: vals}); err != nil {
			t.Fatal(err)
		}
	}
	upd("SET seq = :s", mkItem{":s": mkN("1")})
	if n := count(); n != 1 {
		t.Fatalf("after SET seq: %d entries, want 1", n)
	}
	upd("REMOVE rgn", nil)
	if n := count(); n != 0 {
		t.Fatalf("after REMOVE rgn: %d entries, want 0", n)
	}
}

// TestMultiKeyPagination: LastEvaluatedKey carries every index key
// attribute and the table key, and resuming from it in either direction
// returns every item once, in order.
func TestMultiKeyPagination(t *testing.T) {
	_, c := mkServer(t)
	mkPut(t, c, "games", mkRows...)
	mkPut(t, c, "games", mkOthers...)
	for _, fwd := range []bool{true, false} {
		in := mkQueryIn("tour = :t AND rgn = :r AND round >= :a", mkItem{":a": mkN("9")})
		in.Limit, in.ScanIndexForward = aws.Int32(2), aws.Bool(fwd)
		var got []mkItem
		for page := 0; ; page++ {
			out, err := c.Query(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, out.Items...)
			if out.LastEvaluatedKey == nil {
				break
			}
			var names []string
			for k := range out.LastEvaluatedKey {
				names = append(names, k)
			}
			if len(names) != 6 {
				t.Fatalf("LastEvaluatedKey %v, want id and the five index key attributes", names)
			}
			for _, n := range []string{"id", "tour", "rgn", "round", "bracket", "seq"} {
				if out.LastEvaluatedKey[n] == nil {
					t.Fatalf("LastEvaluatedKey lacks %s: %v", n, names)
				}
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
			if page > 10 {
				t.Fatal("pagination does not end")
			}
		}
		want := "b,c,d,e,f,g"
		if !fwd {
			want = "g,f,e,d,c,b"
		}
		if ids(got) != want {
			t.Errorf("forward %v: pages gave %s, want %s", fwd, ids(got), want)
		}
	}

	// A Scan of the index pages through every entry once.
	scan := &dynamodb.ScanInput{TableName: aws.String("games"), IndexName: aws.String("match"), Limit: aws.Int32(2)}
	seen := map[string]bool{}
	for page := 0; ; page++ {
		out, err := c.Scan(context.Background(), scan)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			id := it["id"].(*types.AttributeValueMemberS).Value
			if seen[id] {
				t.Fatalf("scan returned %s twice", id)
			}
			seen[id] = true
		}
		if out.LastEvaluatedKey == nil || page > 10 {
			break
		}
		scan.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if len(seen) != len(mkRows)+2 {
		t.Errorf("scan pages gave %d entries, want %d", len(seen), len(mkRows)+2)
	}

	// A start key outside the partition or the RANGE prefix is refused.
	esk := mkRows[3].item()
	delete(esk, "note")
	in := mkQueryIn("tour = :t AND rgn = :r2", mkItem{":r2": mkN("2")})
	in.ExclusiveStartKey = esk
	_, err := c.Query(context.Background(), in)
	apiErr(t, err, "ValidationException", "The provided starting key is outside query boundaries based on provided conditions")
	for _, vals := range []mkItem{{":a": mkN("10"), ":b": mkS("lower")}, {":a": mkN("9"), ":b": mkS("upper")}} {
		in = mkQueryIn("tour = :t AND rgn = :r AND round = :a AND bracket = :b", vals)
		in.ExclusiveStartKey = esk
		_, err = c.Query(context.Background(), in)
		apiErr(t, err, "ValidationException", "The provided starting key does not match the range key predicate")
	}
	// So is one that lacks an index key attribute.
	delete(esk, "bracket")
	in = mkQueryIn("tour = :t AND rgn = :r", nil)
	in.ExclusiveStartKey = esk
	if _, err = c.Query(context.Background(), in); err == nil || !strings.Contains(err.Error(), "The provided starting key is invalid") {
		t.Fatalf("start key without bracket: %v", err)
	}
}

// TestMultiKeyQueryValidation: the key condition rules of a
// multi-attribute key, each with its error.
func TestMultiKeyQueryValidation(t *testing.T) {
	_, c := mkServer(t)
	const part = "tour = :t AND rgn = :r"
	hash := "Query key condition not supported: every HASH key attribute must have an equality condition; HASH key attribute: "
	skip := "Query condition missed key schema element: %s. RANGE key attributes must have conditions from left to right, an equality condition on each but the last"
	rng := "Query key condition not supported: RANGE key attributes must have conditions from left to right, an equality condition on each but the last; RANGE key attribute: "
	cases := []struct {
		name, kce string
		vals      mkItem
		want      string
	}{
		{"one HASH attribute missing", "tour = :t", nil, hash + "rgn"},
		{"first HASH attribute missing", "rgn = :r AND round = :a", mkItem{":a": mkN("1")}, hash + "tour"},
		{"inequality on HASH", "tour = :t AND rgn > :r", nil, hash + "rgn"},
		{"BETWEEN on HASH", "tour BETWEEN :t AND :u AND rgn = :r", mkItem{":u": mkS("T9")}, hash + "tour"},
		{"begins_with on HASH", "begins_with(tour, :t) AND rgn = :r", nil, hash + "tour"},
		{"first RANGE skipped", part + " AND bracket = :b", mkItem{":b": mkS("x")}, fmt.Sprintf(skip, "round")},
		{"gap in RANGE", part + " AND round = :a AND seq = :c", mkItem{":a": mkN("1"), ":c": mkN("1")}, fmt.Sprintf(skip, "bracket")},
		{"inequality before the last", part + " AND round > :a AND bracket = :b", mkItem{":a": mkN("1"), ":b": mkS("x")}, rng + "round"},
		{"two inequalities", part + " AND round = :a AND bracket > :b AND seq < :c", mkItem{":a": mkN("1"), ":b": mkS("x"), ":c": mkN("1")}, rng + "bracket"},
		{"begins_with before the last", part + " AND round = :a AND begins_with(bracket, :b) AND seq = :c", mkItem{":a": mkN("1"), ":b": mkS("x"), ":c": mkN("1")}, rng + "bracket"},
		{"non-key attribute", part + " AND note = :n", mkItem{":n": mkS("x")}, "Query condition missed key schema element: round"},
		{"begins_with on a number", part + " AND begins_with(round, :a)", mkItem{":a": mkN("1")}, "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"value of the wrong type", part + " AND round = :a", mkItem{":a": mkS("1")}, "One or more parameter values were invalid: Condition parameter type does not match schema type"},
	}
	for _, tc := range cases {
		_, err := c.Query(context.Background(), mkQueryIn(tc.kce, tc.vals))
		if err == nil || !strings.Contains(err.Error(), "ValidationException") {
			t.Errorf("%s: got %v, want a ValidationException", tc.name, err)
			continue
		}
		apiErr(t, err, "ValidationException", tc.want)
	}

	// A filter may not name any key attribute of the index.
	in := mkQueryIn(part, mkItem{":x": mkS("x")})
	in.FilterExpression = aws.String("bracket = :x")
	_, err := c.Query(context.Background(), in)
	apiErr(t, err, "ValidationException", "Filter Expression can only contain non-primary key attributes: Primary key attribute: bracket")
}

// TestMultiKeyLegacyKeyConditions: KeyConditions takes up to one
// condition per key attribute of a multi-attribute index (more than two),
// under the same rules; a single-attribute key still takes one or two.
func TestMultiKeyLegacyKeyConditions(t *testing.T) {
	_, c := mkServer(t)
	mkPut(t, c, "games", mkRows...)
	cond := func(op types.ComparisonOperator, v ...types.AttributeValue) types.Condition {
		return types.Condition{ComparisonOperator: op, AttributeValueList: v}
	}
	in := &dynamodb.QueryInput{TableName: aws.String("games"), IndexName: aws.String("match"), KeyConditions: map[string]types.Condition{
		"tour": cond(types.ComparisonOperatorEq, mkS("T1")), "rgn": cond(types.ComparisonOperatorEq, mkN("1")),
		"round": cond(types.ComparisonOperatorEq, mkN("10")), "bracket": cond(types.ComparisonOperatorBeginsWith, mkS("up")),
	}}
	out, err := c.Query(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(out.Items); got != "d,e,f" {
		t.Errorf("KeyConditions: got %s, want d,e,f", got)
	}
	delete(in.KeyConditions, "round")
	_, err = c.Query(context.Background(), in)
	apiErr(t, err, "ValidationException", "Query condition missed key schema element: round. RANGE key attributes must have conditions from left to right, an equality condition on each but the last")

	// On the table's own single-attribute key, three conditions are too many.
	in = &dynamodb.QueryInput{TableName: aws.String("games"), KeyConditions: map[string]types.Condition{
		"id": cond(types.ComparisonOperatorEq, mkS("a")), "tour": cond(types.ComparisonOperatorEq, mkS("T1")),
		"round": cond(types.ComparisonOperatorEq, mkN("1")),
	}}
	_, err = c.Query(context.Background(), in)
	apiErr(t, err, "ValidationException", "Conditions can be of length 1 or 2 only")
}

// TestMultiKeyBackfillAndCapacity: a multi-attribute GSI added by
// UpdateTable is backfilled with the items that have every key attribute,
// survives a restart, and a write charges it one index write only when the
// item is in it.
func TestMultiKeyBackfillAndCapacity(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	ctx := context.Background()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("games"), AttributeDefinitions: mkDefs("id", "S"),
		KeySchema: mkKS("id", "HASH"), BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	mkPut(t, c, "games", mkRows...)
	mkPut(t, c, "games", mkOthers...)
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("games"),
		AttributeDefinitions: mkDefs("tour", "S", "rgn", "N", "round", "N", "bracket", "S", "seq", "N"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("match"), KeySchema: mkIndexKeys, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}}}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("games")})
		if err != nil {
			t.Fatal(err)
		}
		g := d.Table.GlobalSecondaryIndexes[0]
		if g.IndexStatus == types.IndexStatusActive {
			if !reflect.DeepEqual(g.KeySchema, mkIndexKeys) {
				t.Fatalf("key schema %v", g.KeySchema)
			}
			if n := aws.ToInt64(g.ItemCount); n != int64(len(mkRows)+2) {
				t.Errorf("index ItemCount %d, want %d (the items with every key attribute)", n, len(mkRows)+2)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("backfill does not finish")
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.Restart()
	out, err := c.Query(ctx, mkQueryIn("tour = :t AND rgn = :r AND round = :a", mkItem{":a": mkN("10")}))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(out.Items); got != "c,d,e,f" {
		t.Errorf("backfilled index: got %s, want c,d,e,f", got)
	}
	if len(out.Items) > 0 && len(out.Items[0]) != 6 {
		t.Errorf("KEYS_ONLY entry %v, want id and the five index keys", out.Items[0])
	}

	indexWrites := func(r mkRow) float64 {
		t.Helper()
		out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("games"), Item: r.item(),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			t.Fatal(err)
		}
		if g, ok := out.ConsumedCapacity.GlobalSecondaryIndexes["match"]; ok {
			return aws.ToFloat64(g.CapacityUnits)
		}
		return 0
	}
	if w := indexWrites(mkRow{"n1", "T3", "1", "1", "a", "1"}); w != 1 {
		t.Errorf("new item in the index: %v index write units, want 1", w)
	}
	if w := indexWrites(mkRow{"n2", "T3", "1", "1", "a", ""}); w != 0 {
		t.Errorf("new item outside the index: %v index write units, want 0", w)
	}
}

// TestMultiKeyPartiQL: PartiQL refuses a read of a GSI whose key has more
// than one HASH or RANGE attribute, as DynamoDB does (paritysuite
// tests/tier3/error-messages/partiqlMultiAttributeIndex.test.ts, captured
// on eu-west-2 and us-east-1), whatever WHERE holds; the table itself
// still reads. TestConformance33dPartiQLMultiKeyIndex covers the order.
func TestMultiKeyPartiQL(t *testing.T) {
	_, c := mkServer(t)
	mkPut(t, c, "games", mkRows...)
	for _, st := range []string{
		`SELECT * FROM "games"."match" WHERE tour = 'T1' AND rgn = 1 AND round = 10`,
		`SELECT * FROM "games"."match" WHERE tour = 'T1' AND seq = 5`,
	} {
		_, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(st)})
		wantAPIError(t, err, "ValidationException", "PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute RANGE keys.")
	}
	out, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{
		Statement: aws.String(`SELECT * FROM "games" WHERE id = 'c'`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(out.Items); got != "c" {
		t.Errorf("SELECT on the table: got %s, want c", got)
	}
}

// TestMultiKeyUpdateTableValidation: a GSI created by UpdateTable gets the
// multi-attribute key schema rules CreateTable applies.
func TestMultiKeyUpdateTableValidation(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	ctx := context.Background()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("games"), AttributeDefinitions: mkDefs("id", "S"),
		KeySchema: mkKS("id", "HASH"), BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	defs := mkDefs("a", "S", "b", "S", "c", "S", "d", "S", "e", "S", "f", "S")
	cases := []struct {
		name string
		ks   []types.KeySchemaElement
		want string
	}{
		{"five HASH", mkKS("a", "HASH", "b", "HASH", "c", "HASH", "d", "HASH", "e", "HASH"),
			"One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of HASH key attributes"},
		{"five RANGE", mkKS("a", "HASH", "b", "RANGE", "c", "RANGE", "d", "RANGE", "e", "RANGE", "f", "RANGE"),
			"One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of RANGE key attributes"},
		{"HASH after RANGE", mkKS("a", "HASH", "b", "RANGE", "c", "HASH"),
			"One or more parameter values were invalid: All HASH key attributes must precede RANGE key attributes in the KeySchema"},
		{"RANGE first", mkKS("a", "RANGE", "b", "HASH"), "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"},
		{"duplicate", mkKS("a", "HASH", "b", "HASH", "a", "RANGE"), "The KeySchema contains multiple key attributes with the same name"},
	}
	for _, tc := range cases {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("games"), AttributeDefinitions: defs,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("gix"), KeySchema: tc.ks, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			}}}})
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		apiErr(t, err, "ValidationException", tc.want)
	}
}
