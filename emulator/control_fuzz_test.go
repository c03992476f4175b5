package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
)

// FuzzControlPlaneRequests feeds arbitrary JSON requests to CreateTable and
// UpdateTable: every outcome must be success or a DynamoDB *Error, never a
// panic or an untyped error.
func FuzzControlPlaneRequests(f *testing.F) {
	for _, seed := range []string{
		`{"TableName":"abc","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`,
		`{"TableName":"abc","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1},"GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["x"]},"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}]}`,
		`{"TableName":"fuzz","GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"g2","KeySchema":[{"AttributeName":"n","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}],"AttributeDefinitions":[{"AttributeName":"n","AttributeType":"S"}]}`,
		`{"TableName":"fuzz","BillingMode":"PROVISIONED","ProvisionedThroughput":{"ReadCapacityUnits":3,"WriteCapacityUnits":3},"GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"gsi1","ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}}]}`,
		`{"TableName":"fuzz","OnDemandThroughput":{"MaxReadRequestUnits":-1},"StreamSpecification":{"StreamEnabled":true}}`,
		`{"TableName":"fuzz","KeySchema":[{}],"LocalSecondaryIndexes":[{"KeySchema":[]}],"Tags":[{}]}`,
	} {
		f.Add([]byte(seed))
	}
	te := newTestEngine(f)
	te.mustCreate(nsA, pprTable("fuzz"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		check := func(op string, err error) {
			var de *api.Error
			if err != nil && !errors.As(err, &de) {
				t.Fatalf("%s returned an untyped error: %v", op, err)
			}
			if de != nil && (de.Code == "" || de.Message == "") {
				t.Fatalf("%s returned an empty error: %+v", op, de)
			}
		}
		var ct api.CreateTableInput
		if json.Unmarshal(data, &ct) == nil {
			_, err := te.CreateTable(ctx, nsA, &ct)
			check("CreateTable", err)
			if err == nil {
				_, err = te.DeleteTable(ctx, nsA, &api.DeleteTableInput{TableName: ct.TableName})
				check("DeleteTable", err)
			}
		}
		var ut api.UpdateTableInput
		if json.Unmarshal(data, &ut) == nil {
			_, err := te.UpdateTable(ctx, nsA, &ut)
			check("UpdateTable", err)
		}
	})
}

// FuzzResourcePolicyRequests feeds arbitrary JSON requests to the three
// policy operations on a table with a stream: success or a DynamoDB *Error,
// never a panic or an untyped error.
func FuzzResourcePolicyRequests(f *testing.F) {
	arn := nsA.TableARN("fuzz")
	for _, seed := range []string{
		`{"ResourceArn":"` + arn + `","Policy":"{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":\"*\",\"Action\":\"dynamodb:GetItem\",\"Resource\":\"*\"}]}"}`,
		`{"ResourceArn":"` + arn + `","Policy":"{\"Statement\":{\"Effect\":\"Deny\",\"Principal\":{\"AWS\":\"*\"},\"NotAction\":\"x:y\",\"NotResource\":\"*\",\"Condition\":{\"A\":{\"b\":[1]}}}}","ExpectedRevisionId":"NO_POLICY","ConfirmRemoveSelfResourceAccess":true}`,
		`{"ResourceArn":"` + arn + `/stream/2026-12-02T11:30:00.123","Policy":"{}","ExpectedRevisionId":"1"}`,
		`{"ResourceArn":"` + arn + `/index/i"}`,
		`{"ResourceArn":"arn:aws:s3:::b","Policy":""}`,
	} {
		f.Add([]byte(seed))
	}
	te := newTestEngine(f)
	in := pprTable("fuzz")
	in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("KEYS_ONLY")}
	te.mustCreate(nsA, in)
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		check := func(op string, err error) {
			var de *api.Error
			if err != nil && (!errors.As(err, &de) || de.Code == "" || de.Message == "") {
				t.Fatalf("%s returned %T %v", op, err, err)
			}
		}
		var put api.PutResourcePolicyInput
		if json.Unmarshal(data, &put) == nil {
			_, err := te.PutResourcePolicy(ctx, nsA, &put)
			check("PutResourcePolicy", err)
		}
		var get api.GetResourcePolicyInput
		if json.Unmarshal(data, &get) == nil {
			_, err := te.GetResourcePolicy(ctx, nsA, &get)
			check("GetResourcePolicy", err)
		}
		var del api.DeleteResourcePolicyInput
		if json.Unmarshal(data, &del) == nil {
			_, err := te.DeleteResourcePolicy(ctx, nsA, &del)
			check("DeleteResourcePolicy", err)
		}
	})
}
