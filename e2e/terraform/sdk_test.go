package terraform_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// parseOutputs decodes the outputs of a state file into name → value.
func parseOutputs(t *testing.T, state []byte) map[string]any {
	t.Helper()
	var st struct {
		Outputs map[string]struct {
			Value any `json:"value"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(state, &st); err != nil {
		t.Fatalf("terraform.tfstate: %v", err)
	}
	m := map[string]any{}
	for k, v := range st.Outputs {
		m[k] = v.Value
	}
	return m
}

// stateAttr reads one attribute of a resource from the local state file.
func stateAttr(t *testing.T, s *scenario, typ, name, attr string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []struct {
			Mode, Type, Name string
			Instances        []struct {
				Attributes map[string]any `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("terraform.tfstate: %v", err)
	}
	for _, r := range st.Resources {
		if r.Mode == "managed" && r.Type == typ && r.Name == name && len(r.Instances) == 1 {
			return fmt.Sprint(r.Instances[0].Attributes[attr])
		}
	}
	t.Fatalf("terraform.tfstate has no %s.%s", typ, name)
	return ""
}

// tableState is what the SDK sees of one table, normalised so two servers'
// tables compare equal when they hold the same settings and items: the
// fields that record when or by which request a thing happened (stream
// label, creation time) are left out.
type tableState struct {
	ARN, Keys, Attributes, Billing, Throughput, OnDemand, Class string
	DeletionProtection                                          bool
	GSIs, LSIs                                                  []string
	Stream, TTL, PITR                                           string
	Tags                                                        map[string]string
	Items                                                       []string
	// StreamLabel is LatestStreamLabel; not compared (it is a time).
	StreamLabel string `json:"-"`
}

func (ts tableState) String() string {
	b, _ := json.MarshalIndent(ts, "", "  ")
	return string(b)
}

func keysOf(ks []types.KeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
	}
	return strings.Join(parts, ", ")
}

func projectionOf(p *types.Projection) string {
	if p == nil {
		return "<none>"
	}
	s := string(p.ProjectionType)
	if len(p.NonKeyAttributes) > 0 {
		s += " " + strings.Join(p.NonKeyAttributes, ",")
	}
	return s
}

func throughputOf(p *types.ProvisionedThroughputDescription) string {
	if p == nil {
		return "<none>"
	}
	return fmt.Sprintf("%d/%d", aws.ToInt64(p.ReadCapacityUnits), aws.ToInt64(p.WriteCapacityUnits))
}

func onDemandOf(o *types.OnDemandThroughput) string {
	if o == nil {
		return "<none>"
	}
	return fmt.Sprintf("%d/%d", aws.ToInt64(o.MaxReadRequestUnits), aws.ToInt64(o.MaxWriteRequestUnits))
}

// describe reads one table's state through the SDK.
func describe(t *testing.T, c *dynamodb.Client, name string) tableState {
	t.Helper()
	ctx := t.Context()
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeTable %s: %v", name, err)
	}
	td := d.Table
	var ts tableState
	ts.ARN = aws.ToString(td.TableArn)
	ts.Keys = keysOf(td.KeySchema)
	var attrs []string
	for _, a := range td.AttributeDefinitions {
		attrs = append(attrs, aws.ToString(a.AttributeName)+":"+string(a.AttributeType))
	}
	sort.Strings(attrs)
	ts.Attributes = strings.Join(attrs, " ")
	ts.Billing = string(types.BillingModeProvisioned)
	if td.BillingModeSummary != nil {
		ts.Billing = string(td.BillingModeSummary.BillingMode)
	}
	ts.Throughput = throughputOf(td.ProvisionedThroughput)
	ts.OnDemand = onDemandOf(td.OnDemandThroughput)
	ts.Class = string(types.TableClassStandard)
	if td.TableClassSummary != nil {
		ts.Class = string(td.TableClassSummary.TableClass)
	}
	ts.DeletionProtection = aws.ToBool(td.DeletionProtectionEnabled)
	for _, g := range td.GlobalSecondaryIndexes {
		ts.GSIs = append(ts.GSIs, fmt.Sprintf("%s [%s] %s %s od=%s %s", aws.ToString(g.IndexName), keysOf(g.KeySchema),
			projectionOf(g.Projection), throughputOf(g.ProvisionedThroughput), onDemandOf(g.OnDemandThroughput), g.IndexStatus))
	}
	sort.Strings(ts.GSIs)
	for _, l := range td.LocalSecondaryIndexes {
		ts.LSIs = append(ts.LSIs, fmt.Sprintf("%s [%s] %s", aws.ToString(l.IndexName), keysOf(l.KeySchema), projectionOf(l.Projection)))
	}
	sort.Strings(ts.LSIs)
	ts.StreamLabel = aws.ToString(td.LatestStreamLabel)
	ts.Stream = "off"
	if ss := td.StreamSpecification; ss != nil && aws.ToBool(ss.StreamEnabled) {
		ts.Stream = string(ss.StreamViewType)
		if aws.ToString(td.LatestStreamArn) == "" || aws.ToString(td.LatestStreamLabel) == "" {
			ts.Stream += " (no LatestStreamArn/Label)"
		}
	}
	ttl, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeTimeToLive %s: %v", name, err)
	}
	ts.TTL = string(ttl.TimeToLiveDescription.TimeToLiveStatus)
	if a := aws.ToString(ttl.TimeToLiveDescription.AttributeName); a != "" {
		ts.TTL += " " + a
	}
	cb, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeContinuousBackups %s: %v", name, err)
	}
	ts.PITR = string(cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus)
	tags, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: td.TableArn})
	if err != nil {
		t.Fatalf("ListTagsOfResource %s: %v", name, err)
	}
	ts.Tags = map[string]string{}
	for _, tg := range tags.Tags {
		ts.Tags[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	ts.Items = scanItems(t, c, name)
	return ts
}

// scanItems returns every item of a table as canonical JSON, sorted.
func scanItems(t *testing.T, c *dynamodb.Client, name string) []string {
	t.Helper()
	var items []string
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatalf("Scan %s: %v", name, err)
		}
		for _, it := range page.Items {
			items = append(items, avJSON(&types.AttributeValueMemberM{Value: it}))
		}
	}
	sort.Strings(items)
	return items
}

// avJSON writes an attribute value as DynamoDB JSON with sorted map keys.
func avJSON(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return fmt.Sprintf(`{"S":%q}`, v.Value)
	case *types.AttributeValueMemberN:
		return fmt.Sprintf(`{"N":%q}`, v.Value)
	case *types.AttributeValueMemberB:
		b, _ := json.Marshal(v.Value)
		return `{"B":` + string(b) + `}`
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprintf(`{"BOOL":%t}`, v.Value)
	case *types.AttributeValueMemberNULL:
		return `{"NULL":true}`
	case *types.AttributeValueMemberSS:
		b, _ := json.Marshal(v.Value)
		return `{"SS":` + string(b) + `}`
	case *types.AttributeValueMemberNS:
		b, _ := json.Marshal(v.Value)
		return `{"NS":` + string(b) + `}`
	case *types.AttributeValueMemberBS:
		b, _ := json.Marshal(v.Value)
		return `{"BS":` + string(b) + `}`
	case *types.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = avJSON(e)
		}
		return `{"L":[` + strings.Join(parts, ",") + `]}`
	case *types.AttributeValueMemberM:
		keys := make([]string, 0, len(v.Value))
		for k := range v.Value {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%q:%s", k, avJSON(v.Value[k]))
		}
		return `{"M":{` + strings.Join(parts, ",") + `}}`
	}
	return fmt.Sprintf("%T", v)
}

// tablesIn lists the table names of a client's (account, Region).
func tablesIn(t *testing.T, c *dynamodb.Client) []string {
	t.Helper()
	var names []string
	p := dynamodb.NewListTablesPaginator(c, &dynamodb.ListTablesInput{})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatalf("ListTables: %v", err)
		}
		names = append(names, page.TableNames...)
	}
	return names
}

// tableGone reports whether DescribeTable answers ResourceNotFoundException.
func tableGone(t *testing.T, c *dynamodb.Client, name string) bool {
	t.Helper()
	_, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var nf *types.ResourceNotFoundException
	if err != nil && !errors.As(err, &nf) {
		t.Fatalf("DescribeTable %s: %v", name, err)
	}
	return err != nil
}
