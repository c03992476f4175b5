package emulator_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/av"
)

// Filtered exports (FilterSpecification) through the SDK: the exact items
// of a full and an incremental export, the echo in DescribeExport, and
// each refusal.

// ftPut writes item pk/sk with tag and n, and extra, an attribute no
// projection names.
func ftPut(t *testing.T, c *dynamodb.Client, pk string, sk int, tag string) {
	t.Helper()
	if _, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("ftbl"), Item: mkItem{
		"pk": mkS(pk), "sk": mkN(fmt.Sprint(sk)), "tag": mkS(tag), "n": mkN(fmt.Sprint(sk * 10)), "extra": mkS("x")}}); err != nil {
		t.Fatal(err)
	}
}

// ftExport runs an export of ft to completion and returns its
// description.
func ftExport(t *testing.T, s interface{ Engine() *emulator.Engine }, c *dynamodb.Client, in *dynamodb.ExportTableToPointInTimeInput) *types.ExportDescription {
	t.Helper()
	in.S3Bucket = aws.String("bkt")
	out, err := c.ExportTableToPointInTime(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.ExportDescription.FilterSpecification == nil {
		t.Errorf("the answer has no FilterSpecification")
	}
	emulator.WaitExports(s.Engine())
	d, err := c.DescribeExport(t.Context(), &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn})
	if err != nil || d.ExportDescription.ExportStatus != types.ExportStatusCompleted {
		t.Fatalf("%+v, %v", d, err)
	}
	return d.ExportDescription
}

// itemText is an item as sorted "name=value" pairs.
func itemText(it av.Item) string {
	var parts []string
	for k, v := range it {
		b, _ := json.Marshal(v)
		parts = append(parts, k+"="+string(b))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// TestFilteredFullExport: a key condition (one partition, a sort-key
// range), a filter on a non-key attribute and a projection export exactly
// the matching items with the projected attributes; ItemCount and the
// manifest count them; DescribeExport echoes the specification. A filter
// alone may name key attributes.
func TestFilteredFullExport(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	arn := exTable(t, c, "ftbl", 0)
	for i := range 8 {
		tag := "odd"
		if i%2 == 0 {
			tag = "even"
		}
		ftPut(t, c, "p0", i, tag)
		ftPut(t, c, "p1", i, tag)
	}
	spec := &types.FilterSpecification{
		KeyConditionExpression:    aws.String("#p = :p AND sk BETWEEN :lo AND :hi"),
		FilterExpression:          aws.String("tag = :t"),
		ProjectionExpression:      aws.String("pk, sk, #n"),
		ExpressionAttributeNames:  map[string]string{"#p": "pk", "#n": "n"},
		ExpressionAttributeValues: mkItem{":p": mkS("p1"), ":lo": mkN("2"), ":hi": mkN("6"), ":t": mkS("even")},
	}
	d := ftExport(t, s, c, &dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, FilterSpecification: spec})
	got := exportedItems(t, root, d)
	want := map[string]string{
		"p1/2": `n={"N":"20"} pk={"S":"p1"} sk={"N":"2"}`,
		"p1/4": `n={"N":"40"} pk={"S":"p1"} sk={"N":"4"}`,
		"p1/6": `n={"N":"60"} pk={"S":"p1"} sk={"N":"6"}`,
	}
	gotText := map[string]string{}
	for k, it := range got {
		gotText[k] = itemText(it)
	}
	if fmt.Sprint(gotText) != fmt.Sprint(want) || aws.ToInt64(d.ItemCount) != 3 {
		t.Errorf("exported %v (ItemCount %d)\nwant %v", gotText, aws.ToInt64(d.ItemCount), want)
	}
	var ms map[string]any
	if err := json.Unmarshal(readObj(t, root, aws.ToString(d.ExportManifest)), &ms); err != nil {
		t.Fatal(err)
	}
	if ms["itemCount"] != 3.0 {
		t.Errorf("manifest itemCount %v", ms["itemCount"])
	}
	f := d.FilterSpecification
	if f == nil || aws.ToString(f.KeyConditionExpression) != *spec.KeyConditionExpression || aws.ToString(f.FilterExpression) != "tag = :t" ||
		aws.ToString(f.ProjectionExpression) != "pk, sk, #n" || f.ExpressionAttributeNames["#n"] != "n" ||
		f.ExpressionAttributeValues[":lo"].(*types.AttributeValueMemberN).Value != "2" {
		t.Errorf("DescribeExport's FilterSpecification %+v", f)
	}

	// A filter alone may test the key attributes; without a projection
	// every attribute is exported.
	d = ftExport(t, s, c, &dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, FilterSpecification: &types.FilterSpecification{
		FilterExpression:          aws.String("sk >= :s AND tag = :t"),
		ExpressionAttributeValues: mkItem{":s": mkN("6"), ":t": mkS("odd")},
	}})
	got = exportedItems(t, root, d)
	var keys []string
	for k, it := range got {
		keys = append(keys, k)
		if it["extra"].S != "x" {
			t.Errorf("%s lost attributes: %v", k, it)
		}
	}
	sort.Strings(keys)
	if strings.Join(keys, " ") != "p0/7 p1/7" || aws.ToInt64(d.ItemCount) != 2 {
		t.Errorf("filter alone exported %v (ItemCount %d)", keys, aws.ToInt64(d.ItemCount))
	}
}

// TestFilteredIncrementalExport: an incremental export tests each changed
// item's newest image, a deleted item's old image, and projects both
// images; a change outside the key condition is out.
func TestFilteredIncrementalExport(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	ctx := t.Context()
	arn := exTable(t, c, "ftbl", 0)
	for i := range 4 {
		ftPut(t, c, "p0", i, "keep")
	}
	ftPut(t, c, "p0", 4, "drop")
	time.Sleep(20 * time.Millisecond)
	from := time.Now()
	time.Sleep(20 * time.Millisecond)
	key := func(pk string, sk int) mkItem { return mkItem{"pk": mkS(pk), "sk": mkN(fmt.Sprint(sk))} }
	steps := []func() error{
		func() error { // newest image matches
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("ftbl"), Key: key("p0", 1),
				UpdateExpression: aws.String("SET n = :v"), ExpressionAttributeValues: mkItem{":v": mkN("11")}})
			return err
		},
		func() error { // newest image no longer matches
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("ftbl"), Key: key("p0", 2),
				UpdateExpression: aws.String("SET tag = :v"), ExpressionAttributeValues: mkItem{":v": mkS("drop")}})
			return err
		},
		func() error { // deleted, its old image matches
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("ftbl"), Key: key("p0", 3)})
			return err
		},
		func() error { // another partition
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ftbl"), Item: mkItem{
				"pk": mkS("p1"), "sk": mkN("1"), "tag": mkS("keep")}})
			return err
		},
		func() error { // inserted, matches
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ftbl"), Item: mkItem{
				"pk": mkS("p0"), "sk": mkN("9"), "tag": mkS("keep"), "extra": mkS("x")}})
			return err
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	// Deleted, its old image (the one before the window, tag=drop) does
	// not match.
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("ftbl"), Key: key("p0", 4)}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	to := time.Now()
	time.Sleep(20 * time.Millisecond)
	spec := &types.FilterSpecification{
		KeyConditionExpression:    aws.String("pk = :p"),
		FilterExpression:          aws.String("tag = :t"),
		ProjectionExpression:      aws.String("sk, tag, n"),
		ExpressionAttributeValues: mkItem{":p": mkS("p0"), ":t": mkS("keep")},
	}
	for _, view := range []types.ExportViewType{types.ExportViewTypeNewAndOldImages, types.ExportViewTypeNewImage} {
		d := ftExport(t, s, c, &dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, ExportType: types.ExportTypeIncrementalExport,
			IncrementalExportSpecification: &types.IncrementalExportSpecification{ExportFromTime: aws.Time(from), ExportToTime: aws.Time(to), ExportViewType: view},
			FilterSpecification:            spec})
		got := map[string]string{}
		for _, l := range exportLines(t, root, d) {
			var rec map[string]json.RawMessage
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatal(err)
			}
			keys, err := av.DecodeItemJSON(rec["Keys"])
			if err != nil {
				t.Fatal(err)
			}
			var images []string
			for _, m := range []string{"NewImage", "OldImage"} {
				if rec[m] == nil {
					continue
				}
				it, err := av.DecodeItemJSON(rec[m])
				if err != nil {
					t.Fatal(err)
				}
				images = append(images, m+"{"+itemText(it)+"}")
			}
			got[keys["pk"].S+"/"+keys["sk"].S] = strings.Join(images, " ")
		}
		want := map[string]string{
			"p0/1": `NewImage{n={"N":"11"} sk={"N":"1"} tag={"S":"keep"}} OldImage{n={"N":"10"} sk={"N":"1"} tag={"S":"keep"}}`,
			"p0/3": `OldImage{n={"N":"30"} sk={"N":"3"} tag={"S":"keep"}}`,
			"p0/9": `NewImage{sk={"N":"9"} tag={"S":"keep"}}`,
		}
		if view == types.ExportViewTypeNewImage {
			want = map[string]string{
				"p0/1": `NewImage{n={"N":"11"} sk={"N":"1"} tag={"S":"keep"}}`,
				"p0/3": ``,
				"p0/9": `NewImage{sk={"N":"9"} tag={"S":"keep"}}`,
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || aws.ToInt64(d.ItemCount) != 3 {
			t.Errorf("%s: exported %v (ItemCount %d)\nwant %v", view, got, aws.ToInt64(d.ItemCount), want)
		}
	}
}

// TestFilteredExportErrors: each refusal of a FilterSpecification, with
// a ValidationException and Query's text.
func TestFilteredExportErrors(t *testing.T) {
	s, _ := exServer(t)
	c := s.Client
	arn := exTable(t, c, "ftbl", 1)
	missing := strings.Replace(arn, "table/ftbl", "table/nope", 1)
	vals := func(kv ...string) mkItem {
		m := mkItem{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = mkS(kv[i+1])
		}
		return m
	}
	for _, tc := range []struct {
		name  string
		table string
		spec  types.FilterSpecification
		msg   string
	}{
		{"non-key attribute in key condition", arn, types.FilterSpecification{KeyConditionExpression: aws.String("pk = :p AND tag = :t"),
			ExpressionAttributeValues: vals(":p", "a", ":t", "b")}, "Query condition missed key schema element: sk"},
		{"no partition key", arn, types.FilterSpecification{KeyConditionExpression: aws.String("sk = :s"),
			ExpressionAttributeValues: mkItem{":s": mkN("1")}}, "Query condition missed key schema element: pk"},
		{"partition key not an equality", arn, types.FilterSpecification{KeyConditionExpression: aws.String("pk > :p"),
			ExpressionAttributeValues: vals(":p", "a")}, "Query key condition not supported"},
		{"two partition keys", arn, types.FilterSpecification{KeyConditionExpression: aws.String("pk = :a OR pk = :b"),
			ExpressionAttributeValues: vals(":a", "a", ":b", "b")}, "Invalid operator used in KeyConditionExpression: OR"},
		{"key attribute in the filter beside a key condition", arn, types.FilterSpecification{KeyConditionExpression: aws.String("pk = :p"),
			FilterExpression: aws.String("sk > :s"), ExpressionAttributeValues: mkItem{":p": mkS("a"), ":s": mkN("1")}},
			"Filter Expression can only contain non-primary key attributes: Primary key attribute: sk"},
		{"key value of the wrong type", arn, types.FilterSpecification{KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: mkItem{":p": mkN("1")}}, "One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"path into a key attribute", arn, types.FilterSpecification{ProjectionExpression: aws.String("pk.x")},
			"Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: pk"},
		{"unused value", arn, types.FilterSpecification{FilterExpression: aws.String("tag = :t"), ExpressionAttributeValues: vals(":t", "a", ":x", "b")},
			"Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}"},
		{"undefined value", arn, types.FilterSpecification{FilterExpression: aws.String("tag = :t")},
			"Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: :t"},
		{"names without expressions", arn, types.FilterSpecification{ExpressionAttributeNames: map[string]string{"#a": "a"}},
			"ExpressionAttributeNames can only be specified when using expressions"},
		{"values with a projection only", arn, types.FilterSpecification{ProjectionExpression: aws.String("tag"), ExpressionAttributeValues: vals(":t", "a")},
			"ExpressionAttributeValues can only be specified when using expressions: FilterExpression and KeyConditionExpression are null"},
		{"empty expression", arn, types.FilterSpecification{FilterExpression: aws.String("")},
			"Invalid FilterExpression: The expression can not be empty;"},
		{"expression over 4 KB", arn, types.FilterSpecification{FilterExpression: aws.String("attribute_exists(" + strings.Repeat("a", 4096) + ")")},
			"Invalid FilterExpression: Expression size has exceeded the maximum allowed size; expression size: 4114"},
		{"checked before the table", missing, types.FilterSpecification{FilterExpression: aws.String("tag = :t")},
			"Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: :t"},
	} {
		_, err := c.ExportTableToPointInTime(t.Context(), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tc.table),
			S3Bucket: aws.String("bkt"), FilterSpecification: &tc.spec})
		t.Run(tc.name, func(t *testing.T) { wantAPIError(t, err, "ValidationException", tc.msg) })
	}

	// A retry with the same ClientToken must repeat the same filter.
	in := &dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt"), ClientToken: aws.String("tok"),
		FilterSpecification: &types.FilterSpecification{FilterExpression: aws.String("tag = :t"), ExpressionAttributeValues: vals(":t", "a")}}
	first, err := c.ExportTableToPointInTime(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.ExportTableToPointInTime(t.Context(), in)
	if err != nil || *again.ExportDescription.ExportArn != *first.ExportDescription.ExportArn {
		t.Errorf("retry: %v %v", err, again)
	}
	in.FilterSpecification.ExpressionAttributeValues = vals(":t", "b")
	_, err = c.ExportTableToPointInTime(t.Context(), in)
	wantAPIError(t, err, "ExportConflictException", "Duplicate request detected with conflicting parameters")
	emulator.WaitExports(s.Engine())
}
