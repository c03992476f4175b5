package cloudformation

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/iac/spec"
)

// vectorYAML declares two vector indexes, the first with every property
// and its Dimensions from a parameter.
const vectorYAML = `Parameters:
  Dim: {Type: Number, Default: 768}
Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: docs
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      AttributeDefinitions:
        - {AttributeName: id, AttributeType: S}
        - {AttributeName: tenant, AttributeType: S}
        - {AttributeName: lang, AttributeType: S}
      BillingMode: PAY_PER_REQUEST
      VectorIndexes:
        - IndexName: !Sub "${AWS::StackName}-emb"
          VectorAttribute: {AttributeName: emb}
          Dimensions: !Ref Dim
          DistanceFunction: COSINE
          Projection: {ProjectionType: INCLUDE, NonKeyAttributes: [title]}
          SearchSchema:
            - {AttributeName: tenant, SearchSchemaElementType: HASH}
            - {AttributeName: lang, SearchSchemaElementType: INLINE_FILTER}
        - IndexName: small
          VectorAttribute: {AttributeName: v}
          Dimensions: "3"
          DistanceFunction: EUCLIDEAN
          Projection: {ProjectionType: KEYS_ONLY}
`

// vectorJSON is vectorYAML in JSON with the long forms.
const vectorJSON = `{
  "Parameters": {"Dim": {"Type": "Number", "Default": "768"}},
  "Resources": {
    "T": {
      "Type": "AWS::DynamoDB::Table",
      "Properties": {
        "TableName": "docs",
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "AttributeDefinitions": [
          {"AttributeName": "id", "AttributeType": "S"},
          {"AttributeName": "tenant", "AttributeType": "S"},
          {"AttributeName": "lang", "AttributeType": "S"}
        ],
        "BillingMode": "PAY_PER_REQUEST",
        "VectorIndexes": [
          {
            "IndexName": {"Fn::Join": ["-", [{"Ref": "AWS::StackName"}, "emb"]]},
            "VectorAttribute": {"AttributeName": "emb"},
            "Dimensions": {"Ref": "Dim"},
            "DistanceFunction": "COSINE",
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"]},
            "SearchSchema": [
              {"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
              {"AttributeName": "lang", "SearchSchemaElementType": "INLINE_FILTER"}
            ]
          },
          {
            "IndexName": "small",
            "VectorAttribute": {"AttributeName": "v"},
            "Dimensions": 3,
            "DistanceFunction": "EUCLIDEAN",
            "Projection": {"ProjectionType": "KEYS_ONLY"}
          }
        ]
      }
    }
  }
}`

const wantVectors = `[{"IndexName":"st-emb","VectorAttribute":{"AttributeName":"emb"},"Dimensions":768,"DistanceFunction":"COSINE",` +
	`"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["title"]},` +
	`"SearchSchema":[{"AttributeName":"tenant","SearchSchemaElementType":"HASH"},{"AttributeName":"lang","SearchSchemaElementType":"INLINE_FILTER"}]},` +
	`{"IndexName":"small","VectorAttribute":{"AttributeName":"v"},"Dimensions":3,"DistanceFunction":"EUCLIDEAN","Projection":{"ProjectionType":"KEYS_ONLY"}}]`

func TestVectorIndexes(t *testing.T) {
	for _, c := range []struct{ file, src string }{{"v.yaml", vectorYAML}, {"v.json", vectorJSON}} {
		t.Run(c.file, func(t *testing.T) {
			specs, diags := Load(c.file, []byte(c.src), opts())
			if diags.HasErrors() || len(specs) != 1 {
				t.Fatalf("%d tables:\n%s", len(specs), diags.Error())
			}
			for _, d := range diags {
				if d.Severity == spec.Info {
					t.Errorf("VectorIndexes is applied, not reported: %v", d)
				}
			}
			got, _ := json.Marshal(specs[0].Create.VectorIndexes)
			if string(got) != wantVectors {
				t.Errorf("VectorIndexes:\n got %s\nwant %s", got, wantVectors)
			}
			// The whole request carries them under CreateTable's member name.
			all, _ := json.Marshal(specs[0].Create)
			if !strings.Contains(string(all), `"VectorIndexes":`+wantVectors) {
				t.Errorf("CreateTableInput: %s", all)
			}
		})
	}
	// A parameter value reaches Dimensions.
	o := opts()
	o.Params = []string{"Dim=1024"}
	specs := mustLoad(t, "v.yaml", vectorYAML, o)
	if v := specs[0].Create.VectorIndexes; len(v) == 0 || v[0].Dimensions == nil || *v[0].Dimensions != 1024 {
		t.Errorf("Dimensions from --param Dim=1024: %+v", v)
	}
	// An engine error about a vector index member is blamed on its property.
	if p := specs[0].PosOf("VectorIndexes[0].Dimensions"); p != (spec.Pos{File: "v.yaml", Line: 17, Col: 11}) {
		t.Errorf("position of VectorIndexes[0].Dimensions: %v", p)
	}
}

// TestVectorIndexesGlobalTable: every replica's CreateTable has the
// GlobalTable's vector indexes.
func TestVectorIndexesGlobalTable(t *testing.T) {
	src := `Resources:
  G:
    Type: AWS::DynamoDB::GlobalTable
    Properties:
      TableName: g
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
      VectorIndexes:
        - IndexName: emb
          VectorAttribute: {AttributeName: emb}
          Dimensions: 4
          DistanceFunction: DOT_PRODUCT
          Projection: {ProjectionType: ALL}
      Replicas:
        - Region: eu-west-1
        - Region: us-east-1
`
	specs := mustLoad(t, "g.yaml", src, opts())
	if len(specs) != 2 {
		t.Fatalf("%d tables", len(specs))
	}
	want := `[{"IndexName":"emb","VectorAttribute":{"AttributeName":"emb"},"Dimensions":4,"DistanceFunction":"DOT_PRODUCT","Projection":{"ProjectionType":"ALL"}}]`
	for _, s := range specs {
		if got, _ := json.Marshal(s.Create.VectorIndexes); string(got) != want {
			t.Errorf("%s: VectorIndexes\n got %s\nwant %s", s.Region, got, want)
		}
	}
}

func TestVectorIndexesDiagnostics(t *testing.T) {
	vi := func(body string) string {
		return table(keyProps + "      VectorIndexes:\n        - IndexName: emb\n" + body)
	}
	const attr = "          VectorAttribute: {AttributeName: emb}\n"
	const rest = "          DistanceFunction: COSINE\n          Projection: {ProjectionType: ALL}\n"
	cases := []struct{ name, src, want string }{
		{"dimensions not an integer", vi(attr + "          Dimensions: many\n" + rest),
			"t.yaml:11:23: T: Value of property Dimensions must be of type Integer"},
		{"dimensions a list", vi(attr + "          Dimensions: [3]\n" + rest),
			"t.yaml:11:23: T: Value of property Dimensions must be of type Integer"},
		{"dimensions missing", vi(attr + rest), "t.yaml:9:11: T: Property Dimensions cannot be empty."},
		{"vector attribute a string", vi("          VectorAttribute: emb\n          Dimensions: 3\n" + rest),
			"t.yaml:10:28: T: Value of property VectorAttribute must be an object"},
		{"vector attribute name missing", vi("          VectorAttribute: {}\n          Dimensions: 3\n" + rest),
			"t.yaml:10:28: T: Property VectorAttribute.AttributeName cannot be empty."},
		{"unknown index property", vi(attr + "          Dimensions: 3\n          Dimension: 3\n" + rest),
			"t.yaml:12:22: T: Encountered unsupported property Dimension"},
		{"unknown vector attribute property", vi("          VectorAttribute: {AttributeName: emb, AttributeType: L}\n          Dimensions: 3\n" + rest),
			"t.yaml:10:64: T: Encountered unsupported property AttributeType"},
		{"search schema not a list", vi(attr + "          Dimensions: 3\n" + rest + "          SearchSchema: {AttributeName: a}\n"),
			"t.yaml:14:25: T: Value of property SearchSchema must be of type List"},
		{"unknown search schema property", vi(attr + "          Dimensions: 3\n" + rest +
			"          SearchSchema: [{AttributeName: a, SearchSchemaElementType: HASH, KeyType: HASH}]\n"),
			"t.yaml:14:85: T: Encountered unsupported property KeyType"},
		{"search schema type missing", vi(attr + "          Dimensions: 3\n" + rest + "          SearchSchema: [{AttributeName: a}]\n"),
			"t.yaml:14:26: T: Property SearchSchema.SearchSchemaElementType cannot be empty."},
		{"search schema name not a string", vi(attr + "          Dimensions: 3\n" + rest +
			"          SearchSchema: [{AttributeName: [a], SearchSchemaElementType: HASH}]\n"),
			"t.yaml:14:42: T: Value of property SearchSchema.AttributeName must be of type String"},
		{"vector indexes not a list", table(keyProps + "      VectorIndexes: {IndexName: emb}\n"),
			"t.yaml:8:22: T: Value of property VectorIndexes must be of type List"},
		{"index not an object", table(keyProps + "      VectorIndexes: [emb]\n"),
			"t.yaml:8:23: T: Value of property VectorIndexes must be an object"},
		{"unknown in a global table", "Resources:\n  G:\n    Type: AWS::DynamoDB::GlobalTable\n    Properties:\n" + keyProps +
			"      Replicas: [{Region: eu-west-1}]\n      VectorIndexes: [{IndexName: e, Metric: COSINE}]\n",
			"t.yaml:9:46: G: Encountered unsupported property Metric"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			specs, diags := Load("t.yaml", []byte(c.src), opts())
			if specs != nil {
				t.Errorf("a template with errors must yield no tables")
			}
			if !strings.Contains(diags.Error(), c.want) {
				t.Errorf("diagnostics lack %q:\n%s", c.want, diags.Error())
			}
		})
	}
}
