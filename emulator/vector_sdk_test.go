package emulator_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Vector indexes and SearchVectors through the SDK.

func vecList(fs ...float64) *types.AttributeValueMemberL {
	l := &types.AttributeValueMemberL{}
	for _, f := range fs {
		l.Value = append(l.Value, &types.AttributeValueMemberN{Value: strconv.FormatFloat(f, 'g', -1, 64)})
	}
	return l
}

func vecQuery(fs ...float64) []types.AttributeValue {
	return vecList(fs...).Value
}

func vecIndex(name, attr string, dims int64, dist types.VectorDistanceFunction, schema ...types.SearchSchemaElement) types.VectorIndex {
	return types.VectorIndex{IndexName: aws.String(name), VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String(attr)},
		Dimensions: aws.Int64(dims), DistanceFunction: dist, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		SearchSchema: schema}
}

// vecTable creates table name (pk S) with the given vector indexes and
// attribute definitions beyond pk.
func vecTable(t *testing.T, c *dynamodb.Client, name string, defs []types.AttributeDefinition, vis ...types.VectorIndex) *types.TableDescription {
	t.Helper()
	out, err := c.CreateTable(t.Context(), &dynamodb.CreateTableInput{TableName: aws.String(name),
		AttributeDefinitions: append(mkDefs("pk", "S"), defs...), KeySchema: mkKS("pk", "HASH"),
		BillingMode: types.BillingModePayPerRequest, VectorIndexes: vis})
	if err != nil {
		t.Fatal(err)
	}
	return out.TableDescription
}

func vecPut(t *testing.T, c *dynamodb.Client, table, pk string, attrs map[string]types.AttributeValue) {
	t.Helper()
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
	for k, v := range attrs {
		item[k] = v
	}
	if _, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

// searchKeys returns the pk of each result with its score.
func searchKeys(t *testing.T, out *dynamodb.SearchVectorsOutput) ([]string, []float64) {
	t.Helper()
	var ks []string
	var ss []float64
	for _, r := range out.SearchResults {
		ks = append(ks, r.Item["pk"].(*types.AttributeValueMemberS).Value)
		ss = append(ss, r.Score)
	}
	return ks, ss
}

// f32 rounds like the index does: elements are float32.
func f32(xs ...float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(float32(x))
	}
	return out
}

func TestVectorSearchScoresPerDistanceFunction(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	vecTable(t, c, "vscores", nil,
		vecIndex("cos", "v", 3, types.VectorDistanceFunctionCosine),
		vecIndex("l2x", "v", 3, types.VectorDistanceFunctionEuclidean),
		vecIndex("dot", "v", 3, types.VectorDistanceFunctionDotProduct))
	vs := map[string][]float64{"a": {1, 0, 0}, "b": {0.6, 0.8, 0}, "c": {-1, 0.5, 2}, "d": {0.1, 0.2, 0.3}}
	for k, v := range vs {
		vecPut(t, c, "vscores", k, map[string]types.AttributeValue{"v": vecList(v...)})
	}
	vecPut(t, c, "vscores", "novec", map[string]types.AttributeValue{"x": &types.AttributeValueMemberS{Value: "y"}})
	q := []float64{0.9, 0.1, 0.2}
	// Independent reference scores, float32 inputs and float64 sums.
	ref := func(dist string, v []float64) float64 {
		a, b := f32(q...), f32(v...)
		var dot, na, nb, d2 float64
		for i := range a {
			dot += a[i] * b[i]
			na += a[i] * a[i]
			nb += b[i] * b[i]
			d2 += (a[i] - b[i]) * (a[i] - b[i])
		}
		switch dist {
		case "cos":
			return 1 - dot/math.Sqrt(na*nb)
		case "l2x":
			return math.Sqrt(d2)
		}
		return dot
	}
	for _, idx := range []string{"cos", "l2x", "dot"} {
		out, err := c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vscores"), IndexName: aws.String(idx),
			SearchVector: vecQuery(q...), TopK: aws.Int32(10)})
		if err != nil {
			t.Fatalf("%s: %v", idx, err)
		}
		ks, ss := searchKeys(t, out)
		if len(ks) != 4 {
			t.Fatalf("%s: results %v, want the 4 items with a vector", idx, ks)
		}
		for i, k := range ks {
			if want := ref(idx, vs[k]); math.Abs(ss[i]-want) > 1e-6 {
				t.Errorf("%s: score of %s = %v, want %v", idx, k, ss[i], want)
			}
			if i > 0 && ((idx == "dot" && ss[i] > ss[i-1]) || (idx != "dot" && ss[i] < ss[i-1])) {
				t.Errorf("%s: results out of order: %v %v", idx, ks, ss)
			}
			if _, ok := out.SearchResults[i].Item["v"]; ok {
				t.Errorf("%s: the vector came back without a projection asking for it", idx)
			}
		}
	}
	// The documented example: [1,0,0] against [10,0,0] is COSINE 0 and
	// EUCLIDEAN 9 (the distance, not its square).
	vecPut(t, c, "vscores", "ten", map[string]types.AttributeValue{"v": vecList(10, 0, 0)})
	for idx, want := range map[string]float64{"cos": 0, "l2x": 9} {
		out, err := c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vscores"), IndexName: aws.String(idx),
			SearchVector: vecQuery(1, 0, 0), TopK: aws.Int32(10)})
		if err != nil {
			t.Fatal(err)
		}
		ks, ss := searchKeys(t, out)
		found := false
		for i, k := range ks {
			if k == "ten" {
				found = true
				if math.Abs(ss[i]-want) > 1e-9 {
					t.Errorf("%s: [1,0,0] against [10,0,0] scores %v, want %v", idx, ss[i], want)
				}
			}
		}
		if !found {
			t.Errorf("%s: ten not found in %v", idx, ks)
		}
	}
}

func TestVectorSearchFollowsWrites(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	vecTable(t, c, "vwrites", nil, vecIndex("vix", "v", 2, types.VectorDistanceFunctionEuclidean))
	search := func() []string {
		out, err := c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vwrites"), IndexName: aws.String("vix"),
			SearchVector: vecQuery(0, 0), TopK: aws.Int32(100)})
		if err != nil {
			t.Fatal(err)
		}
		ks, _ := searchKeys(t, out)
		return ks
	}
	for i := 0; i < 5; i++ {
		vecPut(t, c, "vwrites", fmt.Sprint("k", i), map[string]types.AttributeValue{"v": vecList(float64(i), 0)})
	}
	if got := fmt.Sprint(search()); got != "[k0 k1 k2 k3 k4]" {
		t.Fatalf("after puts: %s", got)
	}
	// UpdateItem moves k0 far away, DeleteItem removes k1, a REMOVE takes
	// k2 out of the index, a transaction and a batch write add two.
	if _, err := c.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: aws.String("vwrites"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "k0"}}, UpdateExpression: aws.String("SET v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": vecList(50, 50)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteItem(t.Context(), &dynamodb.DeleteItemInput{TableName: aws.String("vwrites"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "k1"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{TableName: aws.String("vwrites"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "k2"}}, UpdateExpression: aws.String("REMOVE v")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{
		TableName: aws.String("vwrites"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "t1"}, "v": vecList(0.5, 0)}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.BatchWriteItem(t.Context(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"vwrites": {{PutRequest: &types.PutRequest{
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "b1"}, "v": vecList(3.5, 0)}}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecuteStatement(t.Context(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "vwrites" VALUE {'pk': 'p1', 'v': [0.25, 0]}`)}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(search()); got != "[p1 t1 k3 b1 k4 k0]" {
		t.Fatalf("after the writes: %s", got)
	}
	// The entries gone are gone from the copy too: a top 2 near where
	// k1 and k2 were still has two results.
	out, err := c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vwrites"), IndexName: aws.String("vix"),
		SearchVector: vecQuery(1.5, 0), TopK: aws.Int32(2)})
	if err != nil {
		t.Fatal(err)
	}
	if ks, _ := searchKeys(t, out); fmt.Sprint(ks) != "[t1 p1]" {
		t.Errorf("top 2 near the deleted entries: %v", ks)
	}
	// A fresh server over the same store fills its copy from the entries.
	d, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("vwrites")})
	if err != nil {
		t.Fatal(err)
	}
	if n := aws.ToInt64(d.Table.VectorIndexes[0].ItemCount); n != 6 {
		t.Errorf("ItemCount %d, want 6", n)
	}
}

func TestVectorIndexAddedByUpdateTable(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	ctx := t.Context()
	vecTable(t, c, "vupd", nil)
	// 300 items: 290 with a vector, 5 with one of the wrong length (a
	// backfill skips what a write would refuse), 5 without.
	for i := 0; i < 300; i++ {
		attrs := map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: fmt.Sprint(i)}}
		switch {
		case i < 290:
			attrs["v"] = vecList(float64(i), 1)
		case i < 295:
			attrs["v"] = vecList(1, 2, 3)
		}
		vecPut(t, c, "vupd", fmt.Sprintf("k%03d", i), attrs)
	}
	chunked, release := make(chan struct{}), make(chan struct{})
	var once bool
	emulator.SetBackfillAfterChunk(s.Engine(), func(int) {
		if !once {
			once = true
			close(chunked)
			<-release
		}
	})
	create := func(name string) (*dynamodb.UpdateTableOutput, error) {
		x := vecIndex(name, "v", 2, types.VectorDistanceFunctionEuclidean)
		return c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("vupd"),
			VectorIndexUpdates: []types.VectorIndexUpdate{{Create: &types.CreateVectorIndexAction{IndexName: x.IndexName,
				VectorAttribute: x.VectorAttribute, Dimensions: x.Dimensions, DistanceFunction: x.DistanceFunction, Projection: x.Projection}}}})
	}
	out, err := create("vix")
	if err != nil {
		t.Fatal(err)
	}
	if vd := out.TableDescription.VectorIndexes; len(vd) != 1 || vd[0].IndexStatus != types.IndexStatusCreating || vd[0].Backfilling == nil || *vd[0].Backfilling ||
		out.TableDescription.TableStatus != types.TableStatusUpdating {
		t.Fatalf("UpdateTable answered %s %+v, want the table UPDATING and the index CREATING without backfilling yet", out.TableDescription.TableStatus, vd)
	}
	<-chunked
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("vupd")})
	if err != nil {
		t.Fatal(err)
	}
	if vd := d.Table.VectorIndexes; vd[0].IndexStatus != types.IndexStatusCreating || !aws.ToBool(vd[0].Backfilling) || d.Table.TableStatus != types.TableStatusActive {
		t.Errorf("while backfilling: table %s, index %+v", d.Table.TableStatus, vd[0])
	}
	q := &dynamodb.SearchVectorsInput{TableName: aws.String("vupd"), IndexName: aws.String("vix"), SearchVector: vecQuery(299.2, 1), TopK: aws.Int32(3)}
	_, err = c.SearchVectors(ctx, q)
	wantAPIError(t, err, "ValidationException", "Cannot search backfilling vector index: vix")
	_, err = create("second")
	wantAPIError(t, err, "LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
	_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("vupd")})
	wantAPIError(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted.")
	// A write during the backfill reaches the index.
	vecPut(t, c, "vupd", "late", map[string]types.AttributeValue{"v": vecList(299, 1)})
	close(release)
	emulator.WaitBackfills(s.Engine())
	d, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("vupd")})
	if err != nil {
		t.Fatal(err)
	}
	if vd := d.Table.VectorIndexes[0]; vd.IndexStatus != types.IndexStatusActive || vd.Backfilling != nil || aws.ToInt64(vd.ItemCount) != 291 {
		t.Errorf("after the backfill: %+v (ItemCount %d), want ACTIVE with 291 items", vd, aws.ToInt64(vd.ItemCount))
	}
	res, err := c.SearchVectors(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if ks, _ := searchKeys(t, res); fmt.Sprint(ks) != "[late k289 k288]" {
		t.Errorf("search after the backfill: %v", ks)
	}
	// An item whose vector predates the index (and does not fit it) can
	// still be updated elsewhere; a new bad vector is refused.
	upd := func(expr string, v types.AttributeValue) error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("vupd"), Key: map[string]types.AttributeValue{"pk": strAV("k290")},
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: map[string]types.AttributeValue{":x": v}})
		return err
	}
	if err := upd("SET n = :x", numAV("1")); err != nil {
		t.Errorf("updating another attribute of an item with an old bad vector: %v", err)
	}
	wantAPIError(t, upd("SET v = :x", vecList(1, 2, 3, 4)), "ValidationException",
		"One or more parameter values were invalid. Invalid size for parameter v, Expected: 2, Actual: 4 IndexName: vix")
	// Deleting: DELETING in the answer, then gone.
	del, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("vupd"),
		VectorIndexUpdates: []types.VectorIndexUpdate{{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("vix")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if vd := del.TableDescription.VectorIndexes; len(vd) != 1 || vd[0].IndexStatus != types.IndexStatusDeleting {
		t.Errorf("delete answered %+v", vd)
	}
	_, err = c.SearchVectors(ctx, q)
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: vix")
}

func TestVectorIndexCreateTableErrors(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	good := func() types.VectorIndex { return vecIndex("vix", "v", 4, types.VectorDistanceFunctionCosine) }
	hashed := func(attr string) types.VectorIndex {
		x := good()
		x.SearchSchema = []types.SearchSchemaElement{{AttributeName: aws.String(attr), SearchSchemaElementType: types.SearchSchemaElementTypeHash}}
		return x
	}
	for _, tc := range []struct {
		name    string
		billing types.BillingMode
		defs    []types.AttributeDefinition
		vis     func() []types.VectorIndex
		code    string
		msg     string
	}{
		{"provisioned", "", nil, func() []types.VectorIndex { return []types.VectorIndex{good()} }, "ValidationException",
			"One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables"},
		{"six", types.BillingModePayPerRequest, nil, func() []types.VectorIndex {
			var out []types.VectorIndex
			for i := 0; i < 6; i++ {
				x := good()
				x.IndexName = aws.String(fmt.Sprint("vix", i))
				out = append(out, x)
			}
			return out
		}, "ValidationException", "One or more parameter values were invalid: VectorIndex count exceeds the per-table limit of 5"},
		{"dims", types.BillingModePayPerRequest, nil, func() []types.VectorIndex { x := good(); x.Dimensions = aws.Int64(4097); return []types.VectorIndex{x} },
			"ValidationException", "One or more parameter values were invalid: Number of dimensions must be between 1 and 4096 inclusive."},
		{"distance", types.BillingModePayPerRequest, nil, func() []types.VectorIndex {
			x := good()
			x.DistanceFunction = "MANHATTAN"
			return []types.VectorIndex{x}
		},
			"ValidationException", "1 validation error detected: Value 'MANHATTAN' at 'vectorIndexes.1.member.distanceFunction' failed to satisfy constraint: Member must satisfy enum value set: [DOT_PRODUCT, COSINE, EUCLIDEAN]"},
		{"undefined schema", types.BillingModePayPerRequest, nil, func() []types.VectorIndex { return []types.VectorIndex{hashed("tenant")} },
			"ValidationException", "One or more parameter values were invalid: One element in SearchSchema is not defined in attribute definitions"},
		{"vector defined", types.BillingModePayPerRequest, mkDefs("v", "S", "tenant", "S"), func() []types.VectorIndex { return []types.VectorIndex{hashed("tenant")} },
			"ValidationException", "One or more parameter values were invalid: Conflicting attribute definition for 'v'. An attribute cannot be defined in AttributeDefinitions when used as a VectorAttribute."},
		{"dims differ", types.BillingModePayPerRequest, nil, func() []types.VectorIndex {
			x, y := good(), good()
			y.IndexName, y.Dimensions = aws.String("other"), aws.Int64(8)
			return []types.VectorIndex{x, y}
		}, "ValidationException", "One or more parameter values were invalid: Conflicting attribute definition for 'v'. All VectorIndexes on the same vector attribute must use the same dimensions."},
		{"duplicate name", types.BillingModePayPerRequest, nil, func() []types.VectorIndex { return []types.VectorIndex{good(), good()} },
			"ValidationException", "One or more parameter values were invalid: Duplicate index name: vix"},
		{"include without attributes", types.BillingModePayPerRequest, nil, func() []types.VectorIndex {
			x := good()
			x.Projection = &types.Projection{ProjectionType: types.ProjectionTypeInclude}
			return []types.VectorIndex{x}
		}, "ValidationException", "One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified"},
	} {
		in := &dynamodb.CreateTableInput{TableName: aws.String("verr"), AttributeDefinitions: append(mkDefs("pk", "S"), tc.defs...),
			KeySchema: mkKS("pk", "HASH"), BillingMode: tc.billing, VectorIndexes: tc.vis()}
		if tc.billing == "" {
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
		}
		_, err := c.CreateTable(t.Context(), in)
		t.Run(tc.name, func(t *testing.T) { wantAPIError(t, err, tc.code, tc.msg) })
	}
}

// TestVectorIndexesRestored: a backup records the vector indexes; a
// restore rebuilds them from the items (all of them, or the override's
// subset), and the restored table answers searches.
func TestVectorIndexesRestored(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	vecTable(t, c, "vsrc", nil,
		vecIndex("near", "v", 2, types.VectorDistanceFunctionEuclidean),
		vecIndex("angle", "v", 2, types.VectorDistanceFunctionCosine))
	for i := 0; i < 20; i++ {
		vecPut(t, c, "vsrc", fmt.Sprintf("k%02d", i), map[string]types.AttributeValue{"v": vecList(float64(i), 1)})
	}
	bk := bkBackup(t, c, "vsrc", "vbk")
	emulator.WaitBackups(s.Engine())
	d, err := c.DescribeBackup(t.Context(), &dynamodb.DescribeBackupInput{BackupArn: bk.BackupArn})
	if err != nil {
		t.Fatal(err)
	}
	if vi := d.BackupDescription.SourceTableFeatureDetails.VectorIndexes; len(vi) != 2 || aws.ToString(vi[0].IndexName) != "near" || aws.ToInt64(vi[0].Dimensions) != 2 {
		t.Fatalf("backup's VectorIndexes %+v", vi)
	}
	all := bkRestore(t, s, c, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("vall"), BackupArn: bk.BackupArn})
	some := bkRestore(t, s, c, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("vsome"), BackupArn: bk.BackupArn,
		VectorIndexOverride: []types.VectorIndex{vecIndex("angle", "v", 2, types.VectorDistanceFunctionCosine)}})
	if len(all.VectorIndexes) != 2 || len(some.VectorIndexes) != 1 || aws.ToString(some.VectorIndexes[0].IndexName) != "angle" ||
		some.VectorIndexes[0].IndexStatus != types.IndexStatusActive || aws.ToInt64(all.VectorIndexes[0].ItemCount) != 20 {
		t.Fatalf("restored: %+v / %+v", all.VectorIndexes, some.VectorIndexes)
	}
	out, err := c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vall"), IndexName: aws.String("near"),
		SearchVector: vecQuery(7.2, 1), TopK: aws.Int32(2)})
	if err != nil {
		t.Fatal(err)
	}
	if ks, _ := searchKeys(t, out); fmt.Sprint(ks) != "[k07 k08]" {
		t.Errorf("search of the restored table: %v", ks)
	}
	_, err = c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vsome"), IndexName: aws.String("near"),
		SearchVector: vecQuery(7.2, 1), TopK: aws.Int32(2)})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: near")
	_, err = c.RestoreTableFromBackup(t.Context(), &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("vbad"), BackupArn: bk.BackupArn,
		VectorIndexOverride: []types.VectorIndex{vecIndex("nope", "v", 2, types.VectorDistanceFunctionCosine)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Index nope is not present in the backup")
	_, err = c.RestoreTableFromBackup(t.Context(), &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("vbad"), BackupArn: bk.BackupArn,
		BillingModeOverride: types.BillingModePayPerRequest + "x"})
	if apiCode(err) != "ValidationException" {
		t.Errorf("bad billing override: %v", err)
	}
	_, err = c.RestoreTableFromBackup(t.Context(), &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("vbad"), BackupArn: bk.BackupArn,
		BillingModeOverride: types.BillingModeProvisioned, ProvisionedThroughputOverride: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables")
	// Nor may the source table itself become provisioned.
	_, err = c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("vsrc"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables")
}

// TestVectorIndexOnGlobalTableReplica: a new replica carries the vector
// indexes, fills them from the seeding copy and maintains them from the
// replicated writes; each Region answers searches from its own index.
func TestVectorIndexOnGlobalTableReplica(t *testing.T) {
	s := testserver.New(t)
	home, repl := s.ClientFor(gtHome, testserver.DefaultAccessKeyID), s.ClientFor(gtReplica, testserver.DefaultAccessKeyID)
	vecTable(t, home, "vglob", nil, vecIndex("near", "v", 2, types.VectorDistanceFunctionEuclidean))
	for i := 0; i < 10; i++ {
		vecPut(t, home, "vglob", fmt.Sprintf("k%02d", i), map[string]types.AttributeValue{"v": vecList(float64(i), 0)})
	}
	if _, err := home.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("vglob"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(gtReplica)}}}}); err != nil {
		t.Fatal(err)
	}
	if err := emulator.WaitReplication(s.Engine()); err != nil {
		t.Fatal(err)
	}
	vecPut(t, home, "vglob", "late", map[string]types.AttributeValue{"v": vecList(4.4, 0)})
	if err := emulator.WaitReplication(s.Engine()); err != nil {
		t.Fatal(err)
	}
	d, err := repl.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("vglob")})
	if err != nil {
		t.Fatal(err)
	}
	if vi := d.Table.VectorIndexes; len(vi) != 1 || !strings.Contains(aws.ToString(vi[0].IndexArn), gtReplica) || aws.ToInt64(vi[0].ItemCount) != 11 {
		t.Fatalf("replica's vector indexes: %+v", vi)
	}
	out, err := repl.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vglob"), IndexName: aws.String("near"),
		SearchVector: vecQuery(4.6, 0), TopK: aws.Int32(3)})
	if err != nil {
		t.Fatal(err)
	}
	if ks, _ := searchKeys(t, out); fmt.Sprint(ks) != "[late k05 k04]" {
		t.Errorf("replica search: %v", ks)
	}
	// An index added or removed in one Region is added or removed in
	// every one; each member fills its own copy.
	x := vecIndex("dot", "v", 2, types.VectorDistanceFunctionDotProduct)
	if _, err := home.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("vglob"),
		VectorIndexUpdates: []types.VectorIndexUpdate{{Create: &types.CreateVectorIndexAction{IndexName: x.IndexName, VectorAttribute: x.VectorAttribute,
			Dimensions: x.Dimensions, DistanceFunction: x.DistanceFunction, Projection: x.Projection}}}}); err != nil {
		t.Fatal(err)
	}
	emulator.WaitBackfills(s.Engine())
	out, err = repl.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vglob"), IndexName: aws.String("dot"),
		SearchVector: vecQuery(1, 0), TopK: aws.Int32(2)})
	if err != nil {
		t.Fatal(err)
	}
	if ks, _ := searchKeys(t, out); fmt.Sprint(ks) != "[k09 k08]" {
		t.Errorf("replica search of the added index: %v", ks)
	}
	if _, err := home.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("vglob"),
		VectorIndexUpdates: []types.VectorIndexUpdate{{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("near")}}}}); err != nil {
		t.Fatal(err)
	}
	_, err = repl.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vglob"), IndexName: aws.String("near"),
		SearchVector: vecQuery(1, 0), TopK: aws.Int32(2)})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: near")
}

// TestVectorIndexFromImport: ImportTable's TableCreationParameters create
// the vector index, and the imported items fill it.
func TestVectorIndexFromImport(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	lines := ""
	for i := 0; i < 5; i++ {
		lines += fmt.Sprintf(`{"Item":{"pk":{"S":"k%d"},"v":{"L":[{"N":"%d"},{"N":"0"}]}}}`+"\n", i, i)
	}
	putObj(t, root, "vin/a.json", []byte(lines))
	out, err := c.ImportTable(t.Context(), &dynamodb.ImportTableInput{
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("vin/")},
		InputFormat:    types.InputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeNone,
		TableCreationParameters: &types.TableCreationParameters{TableName: aws.String("vimp"), AttributeDefinitions: mkDefs("pk", "S"),
			KeySchema: mkKS("pk", "HASH"), BillingMode: types.BillingModePayPerRequest,
			VectorIndexes: []types.VectorIndex{vecIndex("near", "v", 2, types.VectorDistanceFunctionEuclidean)}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := imWait(t, s, out.ImportTableDescription.ImportArn); d.ImportStatus != types.ImportStatusCompleted {
		t.Fatalf("import %+v", d)
	}
	res, err := c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vimp"), IndexName: aws.String("near"),
		SearchVector: vecQuery(3.2, 0), TopK: aws.Int32(2)})
	if err != nil {
		t.Fatal(err)
	}
	if ks, _ := searchKeys(t, res); fmt.Sprint(ks) != "[k3 k4]" {
		t.Errorf("search of the imported table: %v", ks)
	}
}

// TestVectorIndexFollowsTTLAndBulkPut: a TTL deletion takes the item out
// of the index; a bulk put's items go in.
func TestVectorIndexFollowsTTLAndBulkPut(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	vecTable(t, c, "vttl", nil, vecIndex("near", "v", 2, types.VectorDistanceFunctionEuclidean))
	if _, err := c.UpdateTimeToLive(t.Context(), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("vttl"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	vecPut(t, c, "vttl", "old", map[string]types.AttributeValue{"v": vecList(0, 0), "exp": numAV(fmt.Sprint(time.Now().Unix() - 100))})
	vecPut(t, c, "vttl", "kept", map[string]types.AttributeValue{"v": vecList(5, 0)})
	var lines string
	for i := 1; i <= 3; i++ {
		lines += fmt.Sprintf(`{"Item":{"pk":{"S":"b%d"},"v":{"L":[{"N":"%d"},{"N":"0"}]}}}`+"\n", i, i)
	}
	putObj(t, root, "vbp/a.json", []byte(lines))
	in := bpInput("vttl", "vbp/", types.InputCompressionTypeNone)
	d := bpWait(t, s, bpStart(t, c, in).BulkOperationArn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompleted {
		t.Fatalf("bulk put %+v", d)
	}
	// Each entry: 4 bytes a dimension, "v", and its key ("pk", "bN").
	if u := d.BulkOperationUsage[0]; aws.ToInt64(u.VectorIndexes["near"].BulkPutVectorBytes) != 3*(8+1+2+2) {
		t.Errorf("bulk put's vector bytes: %+v", u.VectorIndexes)
	}
	if _, err := s.Engine().ExpireTTL(t.Context()); err != nil {
		t.Fatal(err)
	}
	out, err := c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vttl"), IndexName: aws.String("near"),
		SearchVector: vecQuery(0, 0), TopK: aws.Int32(10)})
	if err != nil {
		t.Fatal(err)
	}
	if ks, _ := searchKeys(t, out); fmt.Sprint(ks) != "[b1 b2 b3 kept]" {
		t.Errorf("after the bulk put and the TTL pass: %v", ks)
	}
}
