package e2e_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/internal/testserver"
)

func noEnv(string) (string, bool) { return "", false }

// iacServer loads paths, provisions them into a fresh server and returns it
// with access keys mapped to the given accounts (key "AK<account>").
func iacServer(t *testing.T, paths []string, opts iac.Options, accounts ...string) *testserver.Server {
	t.Helper()
	var so []testserver.Option
	for _, a := range accounts {
		so = append(so, testserver.WithAccessKeyAccount("AK"+a, a))
	}
	for k, a := range opts.AccessKeyAccounts {
		so = append(so, testserver.WithAccessKeyAccount(k, a))
	}
	s := testserver.New(t, so...)
	opts.Getenv = noEnv
	specs, diags := iac.Load(paths, opts)
	if diags.HasErrors() {
		t.Fatalf("load: %s", diags.Error())
	}
	if d := iac.Provision(context.Background(), s.Engine(), specs); d.HasErrors() {
		t.Fatalf("provision: %s", d.Error())
	}
	return s
}

func describeTable(t *testing.T, c *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeTable %s: %v", name, err)
	}
	return out.Table
}

func keySchema(ks []types.KeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
	}
	return strings.Join(parts, ", ")
}

func attrDefs(ds []types.AttributeDefinition) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, aws.ToString(d.AttributeName)+":"+string(d.AttributeType))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func tagsOf(t *testing.T, c *dynamodb.Client, arn string) map[string]string {
	t.Helper()
	out, err := c.ListTagsOfResource(context.Background(), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	if err != nil {
		t.Fatalf("ListTagsOfResource %s: %v", arn, err)
	}
	m := map[string]string{}
	for _, tg := range out.Tags {
		m[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	return m
}

func ttlOf(t *testing.T, c *dynamodb.Client, name string) string {
	t.Helper()
	out, err := c.DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeTimeToLive: %v", err)
	}
	return string(out.TimeToLiveDescription.TimeToLiveStatus) + " " + aws.ToString(out.TimeToLiveDescription.AttributeName)
}

func pitrOf(t *testing.T, c *dynamodb.Client, name string) string {
	t.Helper()
	out, err := c.DescribeContinuousBackups(context.Background(), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeContinuousBackups: %v", err)
	}
	return string(out.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus)
}

// drKey is the --access-key-account mapping examples/terraform/multi-region's
// README serves it with.
var drKey = map[string]string{"AKIADR0000000000": "222222222222"}

func TestIaCExampleTerraformMultiRegion(t *testing.T) {
	// The dr provider's key is mapped as its README says to serve it:
	// --access-key-account AKIADR0000000000=222222222222.
	s := iacServer(t, []string{"../examples/terraform/multi-region"}, iac.Options{AccessKeyAccounts: drKey}, "111111111111", "222222222222")
	for _, c := range []struct {
		region, account, stage string
		pitr                   string
	}{{"eu-west-1", "111111111111", "prod", "ENABLED"}, {"us-east-1", "222222222222", "dr", "DISABLED"}} {
		cl := s.ClientFor(c.region, "AK"+c.account)
		td := describeTable(t, cl, "orders")
		if got, want := aws.ToString(td.TableArn), "arn:aws:dynamodb:"+c.region+":"+c.account+":table/orders"; got != want {
			t.Errorf("ARN %s, want %s", got, want)
		}
		if keySchema(td.KeySchema) != "customer_id HASH, order_id RANGE" || attrDefs(td.AttributeDefinitions) != "customer_id:S order_id:S placed_at:N status:S" {
			t.Errorf("%s keys: %s / %s", c.region, keySchema(td.KeySchema), attrDefs(td.AttributeDefinitions))
		}
		if billing(td) != types.BillingModePayPerRequest ||
			aws.ToInt64(td.OnDemandThroughput.MaxReadRequestUnits) != 400 || aws.ToInt64(td.OnDemandThroughput.MaxWriteRequestUnits) != 200 {
			t.Errorf("%s billing: %+v %+v", c.region, td.BillingModeSummary, td.OnDemandThroughput)
		}
		if len(td.GlobalSecondaryIndexes) != 1 {
			t.Fatalf("%s GSIs: %+v", c.region, td.GlobalSecondaryIndexes)
		}
		g := td.GlobalSecondaryIndexes[0]
		if aws.ToString(g.IndexName) != "by_status" || keySchema(g.KeySchema) != "status HASH, placed_at RANGE" ||
			g.Projection.ProjectionType != types.ProjectionTypeInclude || !slices.Equal(g.Projection.NonKeyAttributes, []string{"total"}) ||
			aws.ToInt64(g.OnDemandThroughput.MaxReadRequestUnits) != 200 || aws.ToInt64(g.OnDemandThroughput.MaxWriteRequestUnits) != 100 {
			t.Errorf("%s GSI: %+v", c.region, g)
		}
		if td.StreamSpecification == nil || !aws.ToBool(td.StreamSpecification.StreamEnabled) || td.StreamSpecification.StreamViewType != types.StreamViewTypeNewAndOldImages ||
			!strings.HasPrefix(aws.ToString(td.LatestStreamArn), aws.ToString(td.TableArn)+"/stream/") {
			t.Errorf("%s stream: %+v %s", c.region, td.StreamSpecification, aws.ToString(td.LatestStreamArn))
		}
		if got := ttlOf(t, cl, "orders"); got != "ENABLED expires_at" {
			t.Errorf("%s TTL: %s", c.region, got)
		}
		if got := pitrOf(t, cl, "orders"); got != c.pitr {
			t.Errorf("%s PITR: %s", c.region, got)
		}
		tags := tagsOf(t, cl, aws.ToString(td.TableArn))
		if tags["stage"] != c.stage {
			t.Errorf("%s tags: %v", c.region, tags)
		}
	}
	dr := tagsOf(t, s.ClientFor("us-east-1", "AK222222222222"), "arn:aws:dynamodb:us-east-1:222222222222:table/orders")
	if dr["source_table"] != "arn:aws:dynamodb:eu-west-1:111111111111:table/orders" {
		t.Errorf("a tag with a cross-Region reference: %v", dr)
	}
	prod := s.ClientFor("eu-west-1", "AK111111111111")
	if tags := tagsOf(t, prod, "arn:aws:dynamodb:eu-west-1:111111111111:table/orders"); tags["owner"] != "111111111111" {
		t.Errorf("aws_caller_identity: %v", tags)
	}
	item, err := prod.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("orders"), Key: map[string]types.AttributeValue{
		"customer_id": &types.AttributeValueMemberS{Value: "c-1"}, "order_id": &types.AttributeValueMemberS{Value: "o-1"}}})
	if err != nil || item.Item["total"].(*types.AttributeValueMemberN).Value != "42.5" {
		t.Errorf("seed item: %+v %v", item, err)
	}
	// The default namespace holds nothing: every table went where declared.
	out, err := s.Client.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil || len(out.TableNames) != 0 {
		t.Errorf("default namespace: %v %v", out, err)
	}
}

func TestIaCExampleTerraformModule(t *testing.T) {
	s := iacServer(t, []string{"../examples/terraform/module"}, iac.Options{}, "123456789012")
	cl := s.ClientFor("eu-central-1", "AK123456789012")
	users := describeTable(t, cl, "dev-users")
	if aws.ToString(users.TableArn) != "arn:aws:dynamodb:eu-central-1:123456789012:table/dev-users" ||
		keySchema(users.KeySchema) != "user_id HASH, created_at RANGE" || attrDefs(users.AttributeDefinitions) != "created_at:N email:S user_id:S" ||
		billing(users) != types.BillingModePayPerRequest {
		t.Errorf("users: %s %s %s", aws.ToString(users.TableArn), keySchema(users.KeySchema), attrDefs(users.AttributeDefinitions))
	}
	if len(users.GlobalSecondaryIndexes) != 1 || aws.ToString(users.GlobalSecondaryIndexes[0].IndexName) != "by_email" ||
		users.GlobalSecondaryIndexes[0].Projection.ProjectionType != types.ProjectionTypeKeysOnly ||
		aws.ToInt64(users.GlobalSecondaryIndexes[0].OnDemandThroughput.MaxReadRequestUnits) != 100 {
		t.Errorf("users GSI: %+v", users.GlobalSecondaryIndexes)
	}
	if len(users.LocalSecondaryIndexes) != 1 || aws.ToString(users.LocalSecondaryIndexes[0].IndexName) != "recent" {
		t.Errorf("users LSI: %+v", users.LocalSecondaryIndexes)
	}
	if got := ttlOf(t, cl, "dev-users"); got != "ENABLED expires_at" {
		t.Errorf("users TTL %s", got)
	}
	if got := pitrOf(t, cl, "dev-users"); got != "ENABLED" {
		t.Errorf("users PITR %s", got)
	}
	want := map[string]string{"Name": "dev-users", "environment": "dev", "managed_by": "terraform", "owner": "platform"}
	if got := tagsOf(t, cl, aws.ToString(users.TableArn)); !mapsEqual(got, want) {
		t.Errorf("users tags %v", got)
	}
	sessions := describeTable(t, cl, "dev-sessions")
	if billing(sessions) != types.BillingModeProvisioned ||
		aws.ToInt64(sessions.ProvisionedThroughput.ReadCapacityUnits) != 10 || aws.ToInt64(sessions.ProvisionedThroughput.WriteCapacityUnits) != 5 ||
		sessions.StreamSpecification == nil || sessions.StreamSpecification.StreamViewType != types.StreamViewTypeKeysOnly {
		t.Errorf("sessions: %+v %+v", sessions.ProvisionedThroughput, sessions.StreamSpecification)
	}
	if got := ttlOf(t, cl, "dev-sessions"); got != "DISABLED " {
		t.Errorf("sessions TTL %q", got)
	}
}

// billing is the table's billing mode; DescribeTable may leave the summary
// out of a table that was always provisioned.
func billing(td *types.TableDescription) types.BillingMode {
	if td.BillingModeSummary == nil {
		return types.BillingModeProvisioned
	}
	return td.BillingModeSummary.BillingMode
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestIaCExampleCloudFormation(t *testing.T) {
	opts := iac.Options{StackName: "shop", StackRegion: "eu-west-1", StackAccount: "123456789012"}
	s := iacServer(t, []string{"../examples/cloudformation/orders-stack.yaml"}, opts, "123456789012")
	cl := s.ClientFor("eu-west-1", "AK123456789012")
	orders := describeTable(t, cl, "shop-orders-dev")
	if aws.ToString(orders.TableArn) != "arn:aws:dynamodb:eu-west-1:123456789012:table/shop-orders-dev" ||
		keySchema(orders.KeySchema) != "pk HASH, sk RANGE" || billing(orders) != types.BillingModeProvisioned ||
		aws.ToInt64(orders.ProvisionedThroughput.ReadCapacityUnits) != 5 || len(orders.GlobalSecondaryIndexes) != 1 ||
		aws.ToInt64(orders.GlobalSecondaryIndexes[0].ProvisionedThroughput.ReadCapacityUnits) != 2 {
		t.Errorf("orders: %+v", orders)
	}
	if got := ttlOf(t, cl, "shop-orders-dev"); got != "ENABLED expires_at" {
		t.Errorf("orders TTL %s", got)
	}
	if tags := tagsOf(t, cl, aws.ToString(orders.TableArn)); tags["stage"] != "dev" || tags["audit"] != "relaxed" {
		t.Errorf("orders tags %v", tags)
	}
	list, err := cl.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	var audit string
	for _, n := range list.TableNames {
		if strings.HasPrefix(n, "shop-Audit-") {
			audit = n
		}
	}
	if audit == "" || len(list.TableNames) != 3 {
		t.Fatalf("tables in eu-west-1: %v", list.TableNames)
	}
	if tags := tagsOf(t, cl, "arn:aws:dynamodb:eu-west-1:123456789012:table/"+audit); tags["orders-arn"] != aws.ToString(orders.TableArn) {
		t.Errorf("GetAtt Arn: %v", tags)
	}
	for _, c := range []struct{ region, role, class string }{{"eu-west-1", "primary", "STANDARD"}, {"us-west-2", "replica", "STANDARD_INFREQUENT_ACCESS"}} {
		rc := s.ClientFor(c.region, "AK123456789012")
		td := describeTable(t, rc, "shop-customers")
		if aws.ToString(td.TableArn) != "arn:aws:dynamodb:"+c.region+":123456789012:table/shop-customers" ||
			billing(td) != types.BillingModePayPerRequest ||
			aws.ToInt64(td.OnDemandThroughput.MaxWriteRequestUnits) != 300 ||
			td.StreamSpecification == nil || td.StreamSpecification.StreamViewType != types.StreamViewTypeNewAndOldImages {
			t.Errorf("customers in %s: %+v", c.region, td)
		}
		if class := types.TableClassStandard; td.TableClassSummary != nil {
			class = td.TableClassSummary.TableClass
			if string(class) != c.class {
				t.Errorf("customers class in %s: %s", c.region, class)
			}
		} else if c.class != "STANDARD" {
			t.Errorf("customers class in %s missing", c.region)
		}
		if tags := tagsOf(t, rc, aws.ToString(td.TableArn)); tags["role"] != c.role {
			t.Errorf("customers tags in %s: %v", c.region, tags)
		}
	}

	// The prod parameters switch the table to on-demand with caps.
	opts.ParamFiles = []string{"../examples/cloudformation/prod-params.json"}
	s = iacServer(t, []string{"../examples/cloudformation/orders-stack.yaml"}, opts, "123456789012")
	cl = s.ClientFor("eu-west-1", "AK123456789012")
	orders = describeTable(t, cl, "shop-orders-prod")
	if billing(orders) != types.BillingModePayPerRequest || aws.ToInt64(orders.OnDemandThroughput.MaxReadRequestUnits) != 1000 {
		t.Errorf("prod orders: %+v %+v", orders.BillingModeSummary, orders.OnDemandThroughput)
	}
	if got := pitrOf(t, cl, "shop-orders-prod"); got != "ENABLED" {
		t.Errorf("prod PITR %s", got)
	}
	describeTable(t, s.ClientFor("ap-southeast-2", "AK123456789012"), "shop-customers")
}

func TestIaCExampleSAM(t *testing.T) {
	s := iacServer(t, []string{"../examples/cloudformation/sam-template.yaml"}, iac.Options{StackRegion: "us-east-2", StackAccount: "123456789012"}, "123456789012")
	cl := s.ClientFor("us-east-2", "AK123456789012")
	td := describeTable(t, cl, "sam-sessions")
	if aws.ToString(td.TableArn) != "arn:aws:dynamodb:us-east-2:123456789012:table/sam-sessions" || keySchema(td.KeySchema) != "session_id HASH" ||
		aws.ToInt64(td.ProvisionedThroughput.ReadCapacityUnits) != 5 {
		t.Errorf("sessions: %+v", td)
	}
	if tags := tagsOf(t, cl, aws.ToString(td.TableArn)); tags["app"] != "shop" {
		t.Errorf("sessions tags %v", tags)
	}
	list, _ := cl.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	var counters string
	for _, n := range list.TableNames {
		if strings.HasPrefix(n, "sam-template-Counters-") {
			counters = n
		}
	}
	if counters == "" {
		t.Fatalf("tables: %v", list.TableNames)
	}
	td = describeTable(t, cl, counters)
	if keySchema(td.KeySchema) != "id HASH" || attrDefs(td.AttributeDefinitions) != "id:S" || billing(td) != types.BillingModePayPerRequest {
		t.Errorf("counters: %+v", td)
	}
	// Globals.SimpleTable's SSESpecification reached both tables.
	for _, name := range []string{"sam-sessions", counters} {
		if sse := describeTable(t, cl, name).SSEDescription; sse == nil || sse.Status != types.SSEStatusEnabled {
			t.Errorf("%s: SSE %+v; Globals.SimpleTable enables it", name, sse)
		}
	}
}

// TestIaCReloadKeepsData: loading the same definitions again, as a restart
// with --load does, changes nothing and keeps every item.
func TestIaCReloadKeepsData(t *testing.T) {
	s := iacServer(t, []string{"../examples/terraform/multi-region"}, iac.Options{AccessKeyAccounts: drKey}, "111111111111")
	cl := s.ClientFor("eu-west-1", "AK111111111111")
	ctx := context.Background()
	if _, err := cl.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: map[string]types.AttributeValue{
		"customer_id": &types.AttributeValueMemberS{Value: "c-2"}, "order_id": &types.AttributeValueMemberS{Value: "o-9"}}}); err != nil {
		t.Fatal(err)
	}
	s.Restart()
	specs, diags := iac.Load([]string{"../examples/terraform/multi-region"}, iac.Options{AccessKeyAccounts: drKey, Getenv: noEnv})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if d := iac.Provision(ctx, s.Engine(), specs); d.HasErrors() {
		t.Fatal(d.Error())
	}
	for _, k := range [][2]string{{"c-1", "o-1"}, {"c-2", "o-9"}} {
		out, err := cl.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("orders"), Key: map[string]types.AttributeValue{
			"customer_id": &types.AttributeValueMemberS{Value: k[0]}, "order_id": &types.AttributeValueMemberS{Value: k[1]}}})
		if err != nil || out.Item == nil {
			t.Errorf("after reload, item %v: %v %v", k, out, err)
		}
	}
}
