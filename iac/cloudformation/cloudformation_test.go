package cloudformation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/iac/spec"
)

func opts() spec.Options {
	return spec.Options{StackName: "st", StackRegion: "eu-west-1", StackAccount: "123456789012",
		Getenv: func(string) (string, bool) { return "", false }}
}

func mustLoad(t *testing.T, file, src string, o spec.Options) []spec.TableSpec {
	t.Helper()
	specs, diags := Load(file, []byte(src), o)
	if diags.HasErrors() {
		t.Fatalf("unexpected errors:\n%s", diags.Error())
	}
	return specs
}

func tagMap(s *spec.TableSpec) map[string]string {
	m := map[string]string{}
	for _, t := range s.Create.Tags {
		m[*t.Key] = *t.Value
	}
	return m
}

// table wraps a property block in a one-table template.
func table(props string) string {
	return "Resources:\n  T:\n    Type: AWS::DynamoDB::Table\n    Properties:\n" + props
}

const keyProps = `      KeySchema: [{AttributeName: id, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      BillingMode: PAY_PER_REQUEST
`

func TestEveryTableProperty(t *testing.T) {
	src := `AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Full:
    Type: AWS::DynamoDB::Table
    DeletionPolicy: Retain
    UpdateReplacePolicy: Retain
    Metadata: {aws:cdk:path: x}
    Properties:
      TableName: full
      AttributeDefinitions:
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: sk, AttributeType: N}
        - {AttributeName: g, AttributeType: B}
      KeySchema:
        - {AttributeName: pk, KeyType: HASH}
        - {AttributeName: sk, KeyType: RANGE}
      BillingMode: PROVISIONED
      ProvisionedThroughput: {ReadCapacityUnits: "7", WriteCapacityUnits: 3}
      WarmThroughput: {ReadUnitsPerSecond: 13000, WriteUnitsPerSecond: "5000"}
      GlobalSecondaryIndexes:
        - IndexName: gsi
          KeySchema: [{AttributeName: g, KeyType: HASH}]
          Projection: {ProjectionType: INCLUDE, NonKeyAttributes: [a, b]}
          ProvisionedThroughput: {ReadCapacityUnits: 2, WriteCapacityUnits: 1}
          WarmThroughput: {ReadUnitsPerSecond: 12000}
          ContributorInsightsSpecification: {Enabled: true}
      LocalSecondaryIndexes:
        - IndexName: lsi
          KeySchema: [{AttributeName: pk, KeyType: HASH}, {AttributeName: g, KeyType: RANGE}]
          Projection: {ProjectionType: KEYS_ONLY}
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
      KinesisStreamSpecification: {StreamArn: arn:aws:kinesis:eu-west-1:123456789012:stream/s}
      TimeToLiveSpecification: {AttributeName: exp, Enabled: "true"}
      PointInTimeRecoverySpecification: {PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 10}
      SSESpecification: {SSEEnabled: true, SSEType: KMS, KMSMasterKeyId: alias/k}
      ContributorInsightsSpecification: {Enabled: false}
      DeletionProtectionEnabled: "false"
      TableClass: STANDARD_INFREQUENT_ACCESS
      Tags: [{Key: k, Value: v}]
      ResourcePolicy:
        PolicyDocument:
          Version: 2012-10-17
          Statement: [{Effect: Allow, Principal: "*", Action: "dynamodb:GetItem", Resource: "*"}]
`
	specs, diags := Load("full.yaml", []byte(src), opts())
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	s := specs[0]
	got, _ := json.Marshal(s.Create)
	want := `{"TableName":"full","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"B"}],` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"BillingMode":"PROVISIONED","ProvisionedThroughput":{"ReadCapacityUnits":7,"WriteCapacityUnits":3},` +
		`"WarmThroughput":{"ReadUnitsPerSecond":13000,"WriteUnitsPerSecond":5000},"GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["a","b"]},"ProvisionedThroughput":{"ReadCapacityUnits":2,"WriteCapacityUnits":1},"WarmThroughput":{"ReadUnitsPerSecond":12000}}],` +
		`"LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"g","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],` +
		`"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"},"SSESpecification":{"Enabled":true,"SSEType":"KMS","KMSMasterKeyId":"alias/k"},"Tags":[{"Key":"k","Value":"v"}],` +
		`"TableClass":"STANDARD_INFREQUENT_ACCESS","DeletionProtectionEnabled":false,` +
		`"ResourcePolicy":"{\"Statement\":[{\"Action\":\"dynamodb:GetItem\",\"Effect\":\"Allow\",\"Principal\":\"*\",\"Resource\":\"*\"}],\"Version\":\"2012-10-17\"}"}`
	if string(got) != want {
		t.Errorf("CreateTableInput:\n got %s\nwant %s", got, want)
	}
	if !*s.TTL.Enabled || *s.TTL.AttributeName != "exp" || !*s.PITR.PointInTimeRecoveryEnabled || *s.PITR.RecoveryPeriodInDays != 10 {
		t.Errorf("TTL %+v PITR %+v", s.TTL, s.PITR)
	}
	if s.ARN() != "arn:aws:dynamodb:eu-west-1:123456789012:table/full" || s.Pos != (spec.Pos{File: "full.yaml", Line: 4, Col: 5}) {
		t.Errorf("ARN %s at %v", s.ARN(), s.Pos)
	}
	infos := 0
	for _, d := range diags {
		if d.Severity == spec.Info {
			infos++
		}
	}
	if infos != 0 {
		t.Errorf("every property of this template is applied, none reported as ignored: %v", diags)
	}
	if ci := s.Insights; len(ci) != 2 || ci[""].Enabled || !ci["gsi"].Enabled || ci["gsi"].Mode != nil {
		t.Errorf("ContributorInsightsSpecification: %+v", ci)
	}
	if s.Kinesis == nil || s.Kinesis.StreamArn != "arn:aws:kinesis:eu-west-1:123456789012:stream/s" || s.Kinesis.Precision != "" {
		t.Errorf("KinesisStreamSpecification: %+v", s.Kinesis)
	}
}

func TestShortTagsAndIntrinsics(t *testing.T) {
	src := `
Parameters:
  Env: {Type: String, Default: dev}
  Cidrs: {Type: CommaDelimitedList, Default: "a,b,c"}
  Size: {Type: Number, Default: 3, MinValue: 1, MaxValue: 5}
Mappings:
  M:
    dev: {name: from-map}
Conditions:
  IsDev: !Equals [!Ref Env, dev]
  NotDev: !Not [!Condition IsDev]
  Both: !And [!Condition IsDev, !Equals [a, a]]
  Either: !Or [!Condition NotDev, !Equals ["5", 5]]
Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub "${Env}-${AWS::Region}-${AWS::AccountId}-${AWS::StackName}-${AWS::Partition}-${AWS::URLSuffix}"
` + keyProps + `      Tags:
        - {Key: sub-list, Value: !Sub ["${x}-${!Literal}", {x: !Ref Env}]}
        - {Key: join, Value: !Join [":", [a, !Ref Env, !Select [1, !Ref Cidrs]]]}
        - {Key: split, Value: !Select [2, !Split ["/", "a/b/c"]]}
        - {Key: map, Value: !FindInMap [M, !Ref Env, name]}
        - {Key: map-default, Value: !FindInMap [M, prod, name, {DefaultValue: dflt}]}
        - {Key: if, Value: !If [IsDev, yes, no]}
        - {Key: both, Value: !If [Both, both, neither]}
        - {Key: either, Value: !If [Either, either, neither]}
        - {Key: b64, Value: !Base64 hi}
        - {Key: cidr, Value: !Select [1, !Cidr ["10.0.0.0/16", 3, 8]]}
        - {Key: azs, Value: !Select [0, !GetAZs ""]}
        - {Key: import, Value: !ImportValue shared-name}
        - {Key: getatt, Value: !GetAtt U.Arn}
        - {Key: getatt-list, Value: !GetAtt [U, StreamArn]}
        - {Key: sub-getatt, Value: !Sub "${U.Arn}"}
        - {Key: ref-table, Value: !Ref U}
        - {Key: length, Value: !Select [0, [!Length [1, 2]]]}
        - {Key: json, Value: !ToJsonString {a: [1, "x"]}}
        - !If [NotDev, {Key: dropped, Value: x}, !Ref AWS::NoValue]
        - {Key: size, Value: !Ref Size}
      TableClass: !If [NotDev, STANDARD, !Ref AWS::NoValue]
      DeletionProtectionEnabled: !If [IsDev, !Ref AWS::NoValue, true]
  U:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: u
      StreamSpecification: {StreamViewType: KEYS_ONLY}
` + keyProps
	o := opts()
	o.Exports = map[string]string{"shared-name": "imported"}
	specs := mustLoad(t, "t.yaml", src, o)
	s := &specs[0]
	if got := s.Name(); got != "dev-eu-west-1-123456789012-st-aws-amazonaws.com" {
		t.Errorf("name %q", got)
	}
	want := map[string]string{
		"sub-list": "dev-${Literal}", "join": "a:dev:b", "split": "c", "map": "from-map", "map-default": "dflt",
		"if": "yes", "both": "both", "either": "either", "b64": "aGk=", "cidr": "10.0.1.0/24", "azs": "eu-west-1a",
		"import": "imported", "getatt": "arn:aws:dynamodb:eu-west-1:123456789012:table/u",
		"getatt-list": "arn:aws:dynamodb:eu-west-1:123456789012:table/u/stream/*",
		"sub-getatt":  "arn:aws:dynamodb:eu-west-1:123456789012:table/u", "ref-table": "u", "length": "2",
		"json": `{"a":[1,"x"]}`, "size": "3",
	}
	if got := tagMap(s); !reflect.DeepEqual(got, want) {
		t.Errorf("tags:\n got %v\nwant %v", got, want)
	}
	if s.Create.TableClass != nil || s.Create.DeletionProtectionEnabled != nil {
		t.Errorf("AWS::NoValue must leave a property unset: %v %v", s.Create.TableClass, s.Create.DeletionProtectionEnabled)
	}
}

func TestJSONTemplateAndLongForms(t *testing.T) {
	src := `{
  "AWSTemplateFormatVersion": "2010-09-09",
  "Parameters": {"Rcu": {"Type": "Number", "Default": "4"}},
  "Conditions": {"C": {"Fn::Equals": [{"Ref": "Rcu"}, "4"]}},
  "Resources": {
    "T": {
      "Type": "AWS::DynamoDB::Table",
      "Condition": "C",
      "Properties": {
        "TableName": {"Fn::Join": ["", ["j-", {"Ref": "AWS::Region"}]]},
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": {"Ref": "Rcu"}, "WriteCapacityUnits": 1},
        "Tags": [{"Key": "arn", "Value": {"Fn::GetAtt": "T2.Arn"}}, {"Key": "sub", "Value": {"Fn::Sub": "x-${AWS::Region}"}}]
      }
    },
    "T2": {
      "Type": "AWS::DynamoDB::Table",
      "Condition": "Never",
      "Properties": {"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}
    }
  },
  "Conditions": {}
}`
	// Duplicate keys are a template error.
	if _, diags := Load("t.json", []byte(src), opts()); !strings.Contains(diags.Error(), "t.json:23:3: Template format error: duplicate key \"Conditions\"") {
		t.Errorf("duplicate key: %v", diags.Error())
	}
	src = strings.Replace(src, `,
  "Conditions": {}`, "", 1)
	src = strings.Replace(src, `"Condition": "Never"`, `"Condition": "C"`, 1)
	specs := mustLoad(t, "t.json", src, opts())
	if len(specs) != 2 || specs[0].Name() != "j-eu-west-1" || *specs[0].Create.ProvisionedThroughput.ReadCapacityUnits != 4 {
		t.Fatalf("specs %+v", specs)
	}
	if tg := tagMap(&specs[0]); tg["arn"] != "arn:aws:dynamodb:eu-west-1:123456789012:table/"+GeneratedName("123456789012", "eu-west-1", "st", "T2") || tg["sub"] != "x-eu-west-1" {
		t.Errorf("tags %v", tg)
	}
	// A false resource Condition drops the resource.
	specs = mustLoad(t, "t.json", src, func() spec.Options { o := opts(); o.Params = []string{"Rcu=5"}; return o }())
	if len(specs) != 0 {
		t.Errorf("condition false: %d tables", len(specs))
	}
}

func TestGeneratedNames(t *testing.T) {
	src := "Resources:\n  Orders:\n    Type: AWS::DynamoDB::Table\n    Properties:\n" + keyProps
	a := mustLoad(t, "stack.yaml", src, opts())[0].Name()
	b := mustLoad(t, "stack.yaml", src, opts())[0].Name()
	if a != b || !strings.HasPrefix(a, "st-Orders-") || len(a) != len("st-Orders-")+12 {
		t.Errorf("generated name %q, %q", a, b)
	}
	o := opts()
	o.StackName = ""
	if n := mustLoad(t, "dir/my-stack.template.json", src, o)[0].Name(); !strings.HasPrefix(n, "my-stack-Orders-") {
		t.Errorf("default stack name: %q", n)
	}
	o.StackRegion = "us-east-2"
	if n := mustLoad(t, "dir/my-stack.yaml", src, o)[0].Name(); n == a || !strings.HasPrefix(n, "my-stack-Orders-") {
		t.Errorf("another Region gives another suffix: %q", n)
	}
}

func TestParameters(t *testing.T) {
	src := `Parameters:
  Env:
    Type: String
    AllowedValues: [dev, prod]
  Name:
    Type: String
    Default: tbl
    AllowedPattern: "[a-z]+"
    MaxLength: 5
Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub "${Name}-${Env}"
` + keyProps
	dir := t.TempDir()
	pf := filepath.Join(dir, "params.json")
	if err := os.WriteFile(pf, []byte(`[{"ParameterKey": "Env", "ParameterValue": "prod"}, {"ParameterKey": "Name", "ParameterValue": "abc"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := opts()
	o.ParamFiles = []string{pf}
	o.Params = []string{"Name=xyz"}
	if n := mustLoad(t, "p.yaml", src, o)[0].Name(); n != "xyz-prod" {
		t.Errorf("--param outranks --param-file: %q", n)
	}
	cases := []struct {
		params []string
		want   string
	}{
		{nil, "p.yaml:2:3: Parameters: [Env] must have values"},
		{[]string{"Env=test"}, "Parameter 'Env' must be one of AllowedValues"},
		{[]string{"Env=dev", "Name=ABC"}, "Parameter 'Name' must match pattern [a-z]+"},
		{[]string{"Env=dev", "Name=abcdefg"}, "Parameter 'Name' must contain at most 5 characters"},
		{[]string{"Env"}, `--param "Env": expected KEY=VALUE`},
	}
	for _, c := range cases {
		o := opts()
		o.Params = c.params
		specs, diags := Load("p.yaml", []byte(src), o)
		if specs != nil || !strings.Contains(diags.Error(), c.want) {
			t.Errorf("params %v: got %q, want %q", c.params, diags.Error(), c.want)
		}
	}
}

func TestGlobalTable(t *testing.T) {
	src := `Resources:
  G:
    Type: AWS::DynamoDB::GlobalTable
    Properties:
      TableName: g
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}, {AttributeName: x, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      BillingMode: PROVISIONED
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
      TimeToLiveSpecification: {Enabled: true, AttributeName: ttl}
      SSESpecification: {SSEEnabled: true, SSEType: KMS}
      WriteProvisionedThroughputSettings:
        WriteCapacityAutoScalingSettings: {MinCapacity: 5, MaxCapacity: 50, SeedCapacity: 8, TargetTrackingScalingPolicyConfiguration: {TargetValue: 70}}
      GlobalSecondaryIndexes:
        - IndexName: byX
          KeySchema: [{AttributeName: x, KeyType: HASH}]
          Projection: {ProjectionType: ALL}
          WriteProvisionedThroughputSettings:
            WriteCapacityAutoScalingSettings: {MinCapacity: 3, MaxCapacity: 9}
      Replicas:
        - Region: eu-west-1
          ReadProvisionedThroughputSettings: {ReadCapacityUnits: 11}
          GlobalSecondaryIndexes:
            - IndexName: byX
              ReadProvisionedThroughputSettings: {ReadCapacityUnits: 4}
          PointInTimeRecoverySpecification: {PointInTimeRecoveryEnabled: true}
          DeletionProtectionEnabled: true
          TableClass: STANDARD
          SSESpecification: {KMSMasterKeyId: alias/eu}
          Tags: [{Key: r, Value: eu}]
        - Region: us-east-1
          ReadProvisionedThroughputSettings:
            ReadCapacityAutoScalingSettings: {MinCapacity: 2, MaxCapacity: 4}
`
	specs := mustLoad(t, "g.yaml", src, opts())
	if len(specs) != 2 {
		t.Fatalf("%d tables", len(specs))
	}
	eu, us := specs[0], specs[1]
	if eu.Region != "eu-west-1" || us.Region != "us-east-1" || !reflect.DeepEqual(us.Replicas, []string{"eu-west-1", "us-east-1"}) {
		t.Errorf("regions %s %s %v", eu.Region, us.Region, us.Replicas)
	}
	if pt := eu.Create.ProvisionedThroughput; *pt.ReadCapacityUnits != 11 || *pt.WriteCapacityUnits != 8 {
		t.Errorf("eu throughput %+v", pt)
	}
	if pt := us.Create.ProvisionedThroughput; *pt.ReadCapacityUnits != 2 || *pt.WriteCapacityUnits != 8 {
		t.Errorf("us throughput %+v", pt)
	}
	if pt := eu.Create.GlobalSecondaryIndexes[0].ProvisionedThroughput; *pt.ReadCapacityUnits != 4 || *pt.WriteCapacityUnits != 3 {
		t.Errorf("eu gsi throughput %+v", pt)
	}
	if pt := us.Create.GlobalSecondaryIndexes[0].ProvisionedThroughput; *pt.ReadCapacityUnits != 2 || *pt.WriteCapacityUnits != 3 {
		t.Errorf("us gsi throughput falls back to the replica's: %+v", pt)
	}
	if !*eu.Create.DeletionProtectionEnabled || eu.PITR == nil || us.PITR != nil || tagMap(&eu)["r"] != "eu" || len(us.Create.Tags) != 0 {
		t.Errorf("per-replica settings: eu %+v us %+v", eu, us)
	}
	if *eu.Create.SSESpecification.KMSMasterKeyId != "alias/eu" || us.Create.SSESpecification.KMSMasterKeyId != nil {
		t.Errorf("per-replica KMS key")
	}
	if !*us.TTL.Enabled {
		t.Errorf("TTL applies to every replica")
	}

	bad := strings.Replace(src, "Region: eu-west-1", "Region: ap-south-1", 1)
	if _, d := Load("g.yaml", []byte(bad), opts()); !strings.Contains(d.Error(), "The Replicas section must contain an entry for the current region") {
		t.Errorf("own Region: %v", d.Error())
	}
	bad = strings.Replace(src, "      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}\n", "", 1)
	if _, d := Load("g.yaml", []byte(bad), opts()); !strings.Contains(d.Error(), "StreamSpecification must be specified") {
		t.Errorf("stream required: %v", d.Error())
	}
}

func TestSimpleTable(t *testing.T) {
	src := `Transform: AWS::Serverless-2016-10-31
Resources:
  A:
    Type: AWS::Serverless::SimpleTable
  B:
    Type: AWS::Serverless::SimpleTable
    Properties:
      TableName: b
      PrimaryKey: {Name: n, Type: Number}
      ProvisionedThroughput: {ReadCapacityUnits: 2, WriteCapacityUnits: 3}
      SSESpecification: {SSEEnabled: true}
      PointInTimeRecoverySpecification: {PointInTimeRecoveryEnabled: true}
      Tags: {z: "1", a: "2"}
`
	specs := mustLoad(t, "sam.yaml", src, opts())
	a, b := specs[0], specs[1]
	got, _ := json.Marshal(a.Create)
	if want := `{"TableName":"` + GeneratedName("123456789012", "eu-west-1", "st", "A") + `","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`; string(got) != want {
		t.Errorf("defaults:\n got %s\nwant %s", got, want)
	}
	got, _ = json.Marshal(b.Create)
	if want := `{"TableName":"b","AttributeDefinitions":[{"AttributeName":"n","AttributeType":"N"}],"KeySchema":[{"AttributeName":"n","KeyType":"HASH"}],"BillingMode":"PROVISIONED","ProvisionedThroughput":{"ReadCapacityUnits":2,"WriteCapacityUnits":3},"SSESpecification":{"Enabled":true},"Tags":[{"Key":"a","Value":"2"},{"Key":"z","Value":"1"}]}`; string(got) != want {
		t.Errorf("b:\n got %s\nwant %s", got, want)
	}
	if b.PITR == nil || !*b.PITR.PointInTimeRecoveryEnabled {
		t.Errorf("PITR %+v", b.PITR)
	}
}

// TestSAMGlobals: the Globals section every `sam init` template has is
// accepted; Globals.SimpleTable's SSESpecification reaches every
// SimpleTable (the table's own value winning), the other sections are
// accepted and ignored.
func TestSAMGlobals(t *testing.T) {
	src := `Transform: AWS::Serverless-2016-10-31
Globals:
  Function:
    Timeout: 3
    Runtime: python3.13
  Api:
    Cors: "'*'"
  SimpleTable:
    SSESpecification:
      SSEEnabled: !If [Encrypt, true, false]
Conditions:
  Encrypt: !Equals [a, a]
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties: {Handler: app.handler, CodeUri: src/}
  A:
    Type: AWS::Serverless::SimpleTable
  B:
    Type: AWS::Serverless::SimpleTable
    Properties:
      SSESpecification: {SSEEnabled: false}
  C:
    Type: AWS::DynamoDB::Table
    Properties:
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      BillingMode: PAY_PER_REQUEST
`
	specs := mustLoad(t, "sam.yaml", src, opts())
	if len(specs) != 3 {
		t.Fatalf("%d tables", len(specs))
	}
	sse := func(i int) string {
		b, _ := json.Marshal(specs[i].Create.SSESpecification)
		return string(b)
	}
	if sse(0) != `{"Enabled":true}` || sse(1) != `{"Enabled":false}` || sse(2) != "null" {
		t.Errorf("SSE from Globals: A %s, B %s, C %s", sse(0), sse(1), sse(2))
	}

	for _, c := range []struct{ name, src, want string }{
		{"without the SAM transform", "Globals: {Function: {Timeout: 3}}\nResources: {T: {Type: AWS::SNS::Topic}}\n",
			"t.yaml:1:10: Template format error: Invalid template property or properties [Globals] (Globals is a SAM section: add Transform: AWS::Serverless-2016-10-31)"},
		{"unknown section", "Transform: AWS::Serverless-2016-10-31\nGlobals: {Table: {}}\nResources: {T: {Type: AWS::SNS::Topic}}\n",
			"t.yaml:2:18: 'Globals' section is invalid. 'Table' is not supported"},
		{"unsupported SimpleTable property", "Transform: AWS::Serverless-2016-10-31\nGlobals:\n  SimpleTable:\n    TableName: x\nResources: {T: {Type: AWS::SNS::Topic}}\n",
			"t.yaml:4:16: 'Globals' section is invalid. 'TableName' is not a supported property of 'SimpleTable'. Must be one of the following values - [SSESpecification]"},
	} {
		if _, diags := Load("t.yaml", []byte(c.src), opts()); !strings.Contains(diags.Error(), c.want) {
			t.Errorf("%s: diagnostics lack %q:\n%s", c.name, c.want, diags.Error())
		}
	}
}

func TestDiagnostics(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"yaml syntax", "Resources:\n  T: [\n", "t.yaml:2:1: Template format error: did not find expected node content"},
		{"yaml indentation", table(keyProps + "     BillingMode: PAY_PER_REQUEST\n"),
			"t.yaml:8:6: Template format error: did not find expected key (this line's indentation matches no enclosing level)"},
		{"not a mapping", "- a\n", "t.yaml:1:1: Template format error: a template must be a mapping"},
		{"no resources", "AWSTemplateFormatVersion: 2010-09-09\n", "At least one Resources member must be defined."},
		{"bad version", "AWSTemplateFormatVersion: 2011-01-01\nResources: {}\n", "t.yaml:1:27: Template format error: Unsupported template version 2011-01-01"},
		{"unknown section", "Resource: {}\nResources: {T: {Type: X}}\n", "t.yaml:1:11: Template format error: Invalid template property or properties [Resource]"},
		{"no type", "Resources:\n  T:\n    Properties: {}\n", "t.yaml:3:5: Template format error: [/Resources/T] Every Resources object must contain a Type member."},
		{"unknown tag", table("      TableName: !Reff x\n" + keyProps), "t.yaml:5:18: Template format error: unknown tag !Reff"},
		{"unresolved ref", table("      TableName: !Ref Nope\n" + keyProps), "t.yaml:5:18: Template format error: Unresolved resource dependencies [Nope]"},
		{"unresolved getatt", table("      TableName: !GetAtt Nope.Arn\n" + keyProps), "t.yaml:5:18: Template format error: Unresolved resource dependencies [Nope]"},
		{"bad getatt attr", "Resources:\n  U:\n    Type: AWS::DynamoDB::Table\n    Properties:\n      TableName: !GetAtt T.Bogus\n" + keyProps + "  T:\n    Type: AWS::DynamoDB::Table\n    Properties:\n" + keyProps, "t.yaml:5:18: Template error: resource T does not support attribute type Bogus in Fn::GetAtt"},
		{"stream arn without stream", "Resources:\n  U:\n    Type: AWS::DynamoDB::Table\n    Properties:\n      TableName: !GetAtt T.StreamArn\n" + keyProps + "  T:\n    Type: AWS::DynamoDB::Table\n    Properties:\n" + keyProps, "has no stream"},
		{"self reference", table("      TableName: !GetAtt T.Arn\n" + keyProps), "Circular dependency between resources: [T]"},
		{"unknown property", table(keyProps + "      BilingMode: X\n"), "t.yaml:8:19: T: Encountered unsupported property BilingMode"},
		{"wrong type", table(keyProps + "      ProvisionedThroughput: {ReadCapacityUnits: lots, WriteCapacityUnits: 1}\n"), "t.yaml:8:50: T: Value of property ReadCapacityUnits must be of type Integer"},
		{"bool type", table(keyProps + "      DeletionProtectionEnabled: maybe\n"), "Value of property DeletionProtectionEnabled must be of type Boolean"},
		{"missing key schema", table("      TableName: x\n"), "t.yaml:5:7: T: Property KeySchema cannot be empty."},
		{"bad depends on", "Resources:\n  T:\n    Type: AWS::DynamoDB::Table\n    DependsOn: [Ghost]\n    Properties:\n" + keyProps, "t.yaml:4:17: Template format error: Unresolved resource dependencies [Ghost]"},
		{"bad resource attribute", "Resources:\n  T:\n    Type: AWS::DynamoDB::Table\n    Propertes: {}\n", "Invalid resource attribute Propertes"},
		{"undefined condition", "Resources:\n  T:\n    Type: AWS::DynamoDB::Table\n    Condition: Nope\n    Properties:\n" + keyProps, "Unresolved dependencies [Nope]"},
		{"import without exports", table("      TableName: !ImportValue shared\n" + keyProps), "No export named shared found"},
		{"select out of range", table("      TableName: !Select [5, [a]]\n" + keyProps), "Fn::Select cannot select nonexistent value at index 5"},
		{"find in map missing", table("      TableName: !FindInMap [M, a, b]\n" + keyProps), "Unable to get mapping for M::a::b"},
		{"join non-list", table("      TableName: !Join [\",\", x]\n" + keyProps), "Fn::Join expects a list"},
		{"foreach", "Transform: AWS::LanguageExtensions\nResources:\n  Fn::ForEach::X: {Type: y}\n", "Fn::ForEach (AWS::LanguageExtensions) is not supported"},
		{"condition cycle", "Conditions:\n  A: !Condition B\n  B: !Condition A\nResources:\n  T: {Type: AWS::SNS::Topic}\n", "refers to itself"},
		{"broken output", table(keyProps) + "Outputs:\n  O:\n    Value: !GetAtt Ghost.Arn\n", "t.yaml:10:12: Template format error: Unresolved resource dependencies [Ghost]"},
		{"output without value", table(keyProps) + "Outputs:\n  O:\n    Description: x\n", "the Output O does not"},
		{"sub unterminated", table("      TableName: !Sub \"${x\"\n" + keyProps), "unterminated ${"},
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

// TestMisindentedValidYAML: on well-formed templates (block scalars, nested
// sequences, comments) the indentation check finds nothing to blame.
func TestMisindentedValidYAML(t *testing.T) {
	files, _ := filepath.Glob("../../examples/cloudformation/*.yaml")
	if len(files) == 0 {
		t.Fatal("no example templates")
	}
	srcs := []string{"Resources:\n  T:\n    Metadata:\n      Doc: |\n        text\n          deeper\n       less\n    Type: X\n  # c\n     # odd comment\n  U:\n    - - a\n      - b\n    - c: 1\n      d: 2\n"}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, string(b))
	}
	for i, src := range srcs {
		if line, _ := misindented([]byte(src), 1); line != 0 {
			t.Errorf("source %d: line %d blamed in a valid template", i, line)
		}
	}
}

func TestIsTemplate(t *testing.T) {
	for src, want := range map[string]bool{
		"Resources: {}": true,
		`{"AWSTemplateFormatVersion": "2010-09-09"}`: true,
		`{"name": "package.json"}`:                   false,
		"- list":                                     false,
		"::: not yaml [":                             false,
	} {
		if got := IsTemplate([]byte(src)); got != want {
			t.Errorf("IsTemplate(%q) = %v", src, got)
		}
	}
}

func TestCDKOut(t *testing.T) {
	dir := t.TempDir()
	tmpl := `{"Resources": {"TableCD117FA1": {"Type": "AWS::DynamoDB::GlobalTable", "Properties": {
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
  "BillingMode": "PAY_PER_REQUEST",
  "Replicas": [{"Region": "eu-central-1"}]},
  "UpdateReplacePolicy": "Retain", "DeletionPolicy": "Retain", "Metadata": {"aws:cdk:path": "AppStack/Table/Resource"}}},
 "Parameters": {"BootstrapVersion": {"Type": "AWS::SSM::Parameter::Value<String>", "Default": "/cdk-bootstrap/hnb659fds/version"}},
 "Rules": {"CheckBootstrapVersion": {"Assertions": [{"Assert": {"Fn::Not": [{"Fn::Contains": [["1"], {"Ref": "BootstrapVersion"}]}]}}]}}}`
	manifest := `{"version": "36.0.0", "artifacts": {
  "AppStack": {"type": "aws:cloudformation:stack", "environment": "aws://210987654321/eu-central-1", "properties": {"templateFile": "AppStack.template.json"}},
  "Tree": {"type": "cdk:tree", "properties": {"file": "tree.json"}}}}`
	for name, content := range map[string]string{"AppStack.template.json": tmpl, "manifest.json": manifest} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	specs, diags := LoadCDK(dir, spec.Options{Getenv: func(string) (string, bool) { return "", false }})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if len(specs) != 1 || specs[0].Account != "210987654321" || specs[0].Region != "eu-central-1" || !strings.HasPrefix(specs[0].Name(), "AppStack-TableCD117FA1-") {
		t.Errorf("cdk stack: %+v", specs)
	}
	for _, d := range diags {
		if strings.Contains(d.Summary, "BootstrapVersion") {
			t.Errorf("CDK's BootstrapVersion parameter is warned about: %s", d)
		}
	}
}

func FuzzLoad(f *testing.F) {
	seeds := []string{
		table(keyProps),
		"Resources:\n  T: !Ref X\n",
		`{"Resources": {"T": {"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": {"Fn::Sub": ["${a}", {"a": {"Fn::GetAtt": ["T", "Arn"]}}]}}}}}`,
		"Conditions:\n  A: !Or [!Condition A, !Equals [1, 1]]\nResources:\n  T: {Type: AWS::DynamoDB::GlobalTable, Properties: {Replicas: [{Region: x}]}}\n",
		"a: &a [*a]\n",
		"Resources:\n  T:\n    Type: AWS::Serverless::SimpleTable\n    Properties: {Tags: [1]}\n",
	}
	if b, err := os.ReadFile("../../examples/cloudformation/orders-stack.yaml"); err == nil {
		seeds = append(seeds, string(b))
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		specs, diags := Load("f.yaml", []byte(src), opts())
		if diags.HasErrors() && specs != nil {
			t.Fatal("tables returned with errors")
		}
		for _, d := range diags.Errs() {
			if d.Pos.File == "" && !strings.HasPrefix(d.Summary, "--param") {
				t.Fatalf("error without a position: %s", d)
			}
		}
	})
}

func TestReadExports(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		content string
		want    map[string]string
		err     string
	}{
		"list.json":  {content: `{"Exports": [{"ExportingStackId": "x", "Name": "a", "Value": "1"}]}`, want: map[string]string{"a": "1"}},
		"plain.json": {content: `{"b": "2"}`, want: map[string]string{"b": "2"}},
		"bad.json":   {content: `{"b": 2}`, err: "not an exports file"},
		"noval.json": {content: `{"Exports": [{"Name": "a"}]}`, err: "needs a Name and a Value"},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadExports(p)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", name, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v %v", name, got, err)
		}
	}
}
