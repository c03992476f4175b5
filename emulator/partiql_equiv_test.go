package emulator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// Equivalence of PartiQL with the classic calls it maps to: the same items
// and consumed capacity for SELECT, the same item and stream record for
// writes.

func sAV(s string) av.Value { return av.Value{Type: av.TypeS, S: s} }
func nAV(n int) av.Value    { return av.Value{Type: av.TypeN, S: fmt.Sprint(n)} }

// pqEquivTable creates name (pk S, sk N, GSI gix on g) with a stream.
func pqEquivTable(te *testEngine, name string) {
	te.t.Helper()
	in := &api.CreateTableInput{
		TableName:            sp(name),
		AttributeDefinitions: attrs("pk", "S", "sk", "N", "g", "S"),
		KeySchema:            keys("pk", "HASH", "sk", "RANGE"),
		BillingMode:          sp("PAY_PER_REQUEST"),
		GlobalSecondaryIndexes: []api.GlobalSecondaryIndex{{IndexName: sp("gix"), KeySchema: keys("g", "HASH"),
			Projection: &api.Projection{ProjectionType: sp("ALL")}}},
		StreamSpecification: &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("NEW_AND_OLD_IMAGES")},
	}
	te.mustCreate(nsA, in)
}

func TestPartiQLSelectEquivalence(t *testing.T) {
	te := newTestEngine(t, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1 })
	pqEquivTable(te, "eqv")
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 120 {
		it := av.Item{"pk": sAV(fmt.Sprint("p", r.IntN(6))), "sk": nAV(i), "a": nAV(r.IntN(10)),
			"pad": sAV(string(make([]byte, r.IntN(3000))))}
		if r.IntN(2) == 0 {
			it["g"] = sAV(fmt.Sprint("g", r.IntN(3)))
		}
		if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("eqv"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	total := sp("TOTAL")
	vals := func(kv ...any) map[string]av.Value {
		m := map[string]av.Value{}
		for i := 0; i < len(kv); i += 2 {
			switch v := kv[i+1].(type) {
			case string:
				m[kv[i].(string)] = sAV(v)
			case int:
				m[kv[i].(string)] = nAV(v)
			}
		}
		return m
	}
	names := map[string]string{"#a": "a"}
	type pair struct {
		stmt  string
		query *api.QueryInput
		scan  *api.ScanInput
	}
	var pairs []pair
	for n := range 12 {
		p, a, sk := fmt.Sprint("p", n%6), n%10, n*10
		pairs = append(pairs,
			pair{stmt: fmt.Sprintf(`SELECT * FROM "eqv" WHERE pk = '%s'`, p),
				query: &api.QueryInput{KeyConditionExpression: sp("pk = :p"), ExpressionAttributeValues: vals(":p", p)}},
			pair{stmt: fmt.Sprintf(`SELECT * FROM "eqv" WHERE pk = '%s' AND sk > %d`, p, sk),
				query: &api.QueryInput{KeyConditionExpression: sp("pk = :p AND sk > :s"), ExpressionAttributeValues: vals(":p", p, ":s", sk)}},
			pair{stmt: fmt.Sprintf(`SELECT * FROM "eqv" WHERE pk = '%s' AND sk BETWEEN %d AND %d ORDER BY sk DESC`, p, sk, sk+40),
				query: &api.QueryInput{KeyConditionExpression: sp("pk = :p AND sk BETWEEN :s AND :e"), ScanIndexForward: bl(false),
					ExpressionAttributeValues: vals(":p", p, ":s", sk, ":e", sk+40)}},
			pair{stmt: fmt.Sprintf(`SELECT * FROM "eqv" WHERE pk = '%s' AND a = %d`, p, a),
				query: &api.QueryInput{KeyConditionExpression: sp("pk = :p"), FilterExpression: sp("#a = :a"),
					ExpressionAttributeNames: names, ExpressionAttributeValues: vals(":p", p, ":a", a)}},
			pair{stmt: fmt.Sprintf(`SELECT * FROM "eqv" WHERE a < %d`, a),
				scan: &api.ScanInput{FilterExpression: sp("#a < :a"), ExpressionAttributeNames: names, ExpressionAttributeValues: vals(":a", a)}},
			pair{stmt: fmt.Sprintf(`SELECT * FROM "eqv"."gix" WHERE g = 'g%d'`, n%3),
				query: &api.QueryInput{IndexName: sp("gix"), KeyConditionExpression: sp("g = :g"), ExpressionAttributeValues: vals(":g", fmt.Sprint("g", n%3))}},
		)
	}
	for _, pr := range pairs {
		for _, consistent := range []bool{false, true} {
			if consistent && pr.query != nil && pr.query.IndexName != nil {
				continue
			}
			got, err := te.ExecuteStatement(ctx, nsA, &api.ExecuteStatementInput{Statement: sp(pr.stmt), ReturnConsumedCapacity: total, ConsistentRead: bl(consistent)})
			if err != nil {
				t.Fatalf("%s: %v", pr.stmt, err)
			}
			var want *api.ReadManyOutput
			if pr.query != nil {
				q := *pr.query
				q.TableName, q.ReturnConsumedCapacity, q.ConsistentRead = sp("eqv"), total, bl(consistent)
				want, err = te.Query(ctx, nsA, &q)
			} else {
				s := *pr.scan
				s.TableName, s.ReturnConsumedCapacity, s.ConsistentRead = sp("eqv"), total, bl(consistent)
				want, err = te.Scan(ctx, nsA, &s)
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Items) != len(want.Items) || len(got.Items) > 0 && !reflect.DeepEqual(got.Items, want.Items) {
				t.Fatalf("%s: %d items, classic %d", pr.stmt, len(got.Items), len(want.Items))
			}
			if !reflect.DeepEqual(got.ConsumedCapacity, want.ConsumedCapacity) {
				t.Fatalf("%s: capacity %v, classic %v", pr.stmt, *got.ConsumedCapacity.CapacityUnits, *want.ConsumedCapacity.CapacityUnits)
			}
		}
	}
}

// streamRecords reads every record of table's stream.
func streamRecords(t *testing.T, te *testEngine, table string) []api.StreamRecord {
	t.Helper()
	ctx := context.Background()
	ls, err := te.ListStreams(ctx, nsA, &api.ListStreamsInput{TableName: sp(table)})
	if err != nil || len(ls.Streams) != 1 {
		t.Fatalf("ListStreams: %v", err)
	}
	arn := ls.Streams[0].StreamArn
	d, err := te.DescribeStream(ctx, nsA, &api.DescribeStreamInput{StreamArn: sp(arn)})
	if err != nil {
		t.Fatal(err)
	}
	var recs []api.StreamRecord
	for _, sh := range d.StreamDescription.Shards {
		it, err := te.GetShardIterator(ctx, nsA, &api.GetShardIteratorInput{StreamArn: sp(arn), ShardId: sp(sh.ShardId), ShardIteratorType: sp("TRIM_HORIZON")})
		if err != nil {
			t.Fatal(err)
		}
		out, err := te.GetRecords(ctx, nsA, &api.GetRecordsInput{ShardIterator: sp(it.ShardIterator)})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, out.Records...)
	}
	return recs
}

func TestPartiQLWriteEquivalence(t *testing.T) {
	te := newTestEngine(t, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1 })
	pqEquivTable(te, "pqw")
	pqEquivTable(te, "clw")
	ctx := context.Background()
	total := sp("TOTAL")
	key := av.Item{"pk": sAV("k"), "sk": nAV(1)}
	type step struct {
		stmt    string
		params  []av.Value
		classic func(table string) (*api.WriteItemOutput, error)
	}
	steps := []step{
		{`INSERT INTO "%s" VALUE {'pk':'k','sk':1,'g':'x','n':5,'l':[1,2],'ss':<<'a'>>}`, nil, func(tb string) (*api.WriteItemOutput, error) {
			return te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp(tb), Item: av.Item{"pk": sAV("k"), "sk": nAV(1), "g": sAV("x"), "n": nAV(5),
				"l": {Type: av.TypeL, L: []av.Value{nAV(1), nAV(2)}}, "ss": {Type: av.TypeSS, Set: []string{"a"}}}, ReturnConsumedCapacity: total})
		}},
		{`UPDATE "%s" SET n = n + ?, l = list_append(l, [3]), ss = set_add(ss, <<'b'>>) REMOVE g WHERE pk='k' AND sk=1`, []av.Value{nAV(2)}, func(tb string) (*api.WriteItemOutput, error) {
			return te.UpdateItem(ctx, nsA, &api.UpdateItemInput{TableName: sp(tb), Key: key, UpdateExpression: sp("SET n = n + :d, l = list_append(l, :l) REMOVE g ADD ss :s"),
				ConditionExpression: sp("attribute_exists(pk)"), ReturnConsumedCapacity: total,
				ExpressionAttributeValues: map[string]av.Value{":d": nAV(2), ":l": {Type: av.TypeL, L: []av.Value{nAV(3)}}, ":s": {Type: av.TypeSS, Set: []string{"b"}}}})
		}},
		{`DELETE FROM "%s" WHERE pk='k' AND sk=1 AND n = 7`, nil, func(tb string) (*api.WriteItemOutput, error) {
			return te.DeleteItem(ctx, nsA, &api.DeleteItemInput{TableName: sp(tb), Key: key, ConditionExpression: sp("n = :n"),
				ExpressionAttributeValues: map[string]av.Value{":n": nAV(7)}, ReturnConsumedCapacity: total})
		}},
	}
	for _, s := range steps {
		got, err := te.ExecuteStatement(ctx, nsA, &api.ExecuteStatementInput{Statement: sp(fmt.Sprintf(s.stmt, "pqw")), Parameters: s.params, ReturnConsumedCapacity: total})
		if err != nil {
			t.Fatalf("%s: %v", s.stmt, err)
		}
		want, err := s.classic("clw")
		if err != nil {
			t.Fatal(err)
		}
		if *got.ConsumedCapacity.CapacityUnits != *want.ConsumedCapacity.CapacityUnits {
			t.Fatalf("%s: capacity %v, classic %v", s.stmt, *got.ConsumedCapacity.CapacityUnits, *want.ConsumedCapacity.CapacityUnits)
		}
		a, _ := te.GetItem(ctx, nsA, &api.GetItemInput{TableName: sp("pqw"), Key: key})
		b, _ := te.GetItem(ctx, nsA, &api.GetItemInput{TableName: sp("clw"), Key: key})
		if !reflect.DeepEqual(a.Item, b.Item) {
			t.Fatalf("%s: item %v, classic %v", s.stmt, a.Item, b.Item)
		}
	}
	pr, cr := streamRecords(t, te, "pqw"), streamRecords(t, te, "clw")
	if len(pr) != len(steps) || len(pr) != len(cr) {
		t.Fatalf("%d records, classic %d", len(pr), len(cr))
	}
	for i := range pr {
		p, c := pr[i].Dynamodb, cr[i].Dynamodb
		if pr[i].EventName != cr[i].EventName || !reflect.DeepEqual(p.Keys, c.Keys) || !reflect.DeepEqual(p.NewImage, c.NewImage) ||
			!reflect.DeepEqual(p.OldImage, c.OldImage) || p.SizeBytes != c.SizeBytes {
			t.Fatalf("record %d: %+v, classic %+v", i, pr[i], cr[i])
		}
	}
}

// FuzzPartiQLStatement runs random statements with random parameters on a
// live engine: every failure is a DynamoDB error other than a server error.
func FuzzPartiQLStatement(f *testing.F) {
	for _, s := range []string{
		`SELECT * FROM "fzt" WHERE pk = ? AND sk > ?`,
		`SELECT a.b, l[1] FROM "fzt" WHERE pk IN [?, 'x'] OR a = ? ORDER BY sk DESC`,
		`INSERT INTO "fzt" VALUE {'pk': ?, 'sk': ?, 'a': ?}`,
		`UPDATE "fzt" SET a = ?, n = n + ? WHERE pk = ? AND sk = 1 RETURNING MODIFIED OLD *`,
		`UPDATE "fzt" SET ss = set_add(ss, ?) REMOVE a WHERE pk = 'k' AND sk = ?`,
		`DELETE FROM "fzt" WHERE pk = ? AND sk = ? AND attribute_exists(a) RETURNING ALL OLD *`,
		`SELECT * FROM "fzt"."gix" WHERE g = ? AND size(a) < ?`,
	} {
		f.Add(s, uint8(1), "k", int64(1))
	}
	te := newTestEngine(f, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1 })
	pqEquivTable(te, "fzt")
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, stmt string, seed uint8, s string, n int64) {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		var params []av.Value
		for range r.IntN(4) {
			switch r.IntN(6) {
			case 0:
				params = append(params, sAV(s))
			case 1:
				params = append(params, nAV(int(n)))
			case 2:
				params = append(params, av.Value{Type: av.TypeBOOL, Bool: n%2 == 0})
			case 3:
				params = append(params, av.Value{Type: av.TypeSS, Set: []string{s}})
			case 4:
				params = append(params, av.Value{Type: av.TypeL, L: []av.Value{sAV(s), nAV(int(n))}})
			default:
				params = append(params, av.Value{Type: av.TypeM, M: map[string]av.Value{"pk": sAV(s), "sk": nAV(int(n))}})
			}
		}
		_, err := te.ExecuteStatement(ctx, nsA, &api.ExecuteStatementInput{Statement: &stmt, Parameters: params, Limit: i64(int64(r.IntN(5) + 1))})
		var ee *api.Error
		if err != nil && (!errors.As(err, &ee) || ee.Code == api.CodeInternalServerError || ee.Message == "") {
			t.Fatalf("%q %v: %v", stmt, params, err)
		}
	})
}

// BenchmarkPartiQLSelectByKey compares ExecuteStatement SELECT by key with
// the GetItem it stands for.
func BenchmarkPartiQLSelectByKey(b *testing.B) {
	te := newTestEngine(b, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1 })
	te.mustCreate(nsA, simpleTable("bkt"))
	ctx := context.Background()
	if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bkt"), Item: av.Item{"pk": sAV("a"), "n": nAV(1)}}); err != nil {
		b.Fatal(err)
	}
	b.Run("GetItem", func(b *testing.B) {
		in := &api.GetItemInput{TableName: sp("bkt"), Key: av.Item{"pk": sAV("a")}}
		for b.Loop() {
			if out, err := te.GetItem(ctx, nsA, in); err != nil || out.Item == nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ExecuteStatement", func(b *testing.B) {
		in := &api.ExecuteStatementInput{Statement: sp(`SELECT * FROM "bkt" WHERE pk = ?`), Parameters: []av.Value{sAV("a")}}
		for b.Loop() {
			if out, err := te.ExecuteStatement(ctx, nsA, in); err != nil || len(out.Items) != 1 {
				b.Fatal(err)
			}
		}
	})
}
