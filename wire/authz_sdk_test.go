package wire_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

const tableA = "arn:aws:dynamodb:us-east-1:111111111111:table/Shared"

func key(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
}

func wantDenied(t *testing.T, err error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("allowed, want AccessDeniedException %q", msg)
	}
	code, got := apiCode(t, err)
	if code != "AccessDeniedException" || got != msg {
		t.Fatalf("got %s %q\nwant AccessDeniedException %q", code, got, msg)
	}
}

func putPolicy(t *testing.T, c *dynamodb.Client, arn, doc string) {
	t.Helper()
	if _, err := c.PutResourcePolicy(context.Background(), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(doc)}); err != nil {
		t.Fatalf("PutResourcePolicy: %v", err)
	}
}

func TestAuthzSameAccount(t *testing.T) {
	s, _ := authServer(t)
	ctx := context.Background()
	alice := s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))
	carol := s.ClientWith("us-east-1", static("AKIACAROL", "carol-secret"))
	createKV(t, alice, "Shared")
	createKV(t, alice, "Keep")

	// Alice's identity policy allows her; carol has none.
	if _, err := alice.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Shared"), Key: key("a")}); err != nil {
		t.Fatalf("alice: %v", err)
	}
	_, err := carol.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Shared"), Key: key("a")})
	wantDenied(t, err, "User: arn:aws:iam::111111111111:user/carol is not authorized to perform: dynamodb:GetItem on resource: "+
		tableA+" because no identity-based policy allows the dynamodb:GetItem action")
	// A table that does not exist: refused before it is looked up, unless
	// the caller may act on its ARN.
	_, err = carol.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Nope"), Key: key("a")})
	wantDenied(t, err, "User: arn:aws:iam::111111111111:user/carol is not authorized to perform: dynamodb:GetItem on resource: "+
		"arn:aws:dynamodb:us-east-1:111111111111:table/Nope because no identity-based policy allows the dynamodb:GetItem action")
	_, err = alice.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Nope"), Key: key("a")})
	if code, _ := apiCode(t, err); code != "ResourceNotFoundException" {
		t.Errorf("alice on a missing table: %s", code)
	}
	_, err = carol.ListTables(ctx, &dynamodb.ListTablesInput{})
	wantDenied(t, err, "User: arn:aws:iam::111111111111:user/carol is not authorized to perform: dynamodb:ListTables on resource: "+
		"arn:aws:dynamodb:us-east-1:111111111111:table/* because no identity-based policy allows the dynamodb:ListTables action")

	// In the same account a resource policy alone is enough.
	putPolicy(t, alice, tableA, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Principal":{"AWS":"arn:aws:iam::111111111111:user/carol"},"Action":"dynamodb:GetItem","Resource":"`+tableA+`"}]}`)
	if _, err := carol.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Shared"), Key: key("a")}); err != nil {
		t.Fatalf("carol with a resource policy: %v", err)
	}

	// Alice's explicit Deny wins over her Allow.
	_, err = alice.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Keep")})
	wantDenied(t, err, "User: arn:aws:iam::111111111111:user/alice is not authorized to perform: dynamodb:DeleteTable on resource: "+
		"arn:aws:dynamodb:us-east-1:111111111111:table/Keep with an explicit deny in an identity-based policy")
}

func TestAuthzCrossAccount(t *testing.T) {
	s, _ := authServer(t)
	ctx := context.Background()
	alice := s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))
	bob := s.ClientWith("us-east-1", static("AKIABOB", "bob-secret"))
	erin := s.ClientWith("us-east-1", static("AKIAERIN", "erin-secret"))
	createKV(t, alice, "Shared")

	// Bob's identity policy allows, but the table has no resource policy.
	_, err := bob.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tableA), Key: key("a")})
	wantDenied(t, err, "User: arn:aws:iam::222222222222:user/bob is not authorized to perform: dynamodb:GetItem on resource: "+
		tableA+" because no resource-based policy allows the dynamodb:GetItem action")

	putPolicy(t, alice, tableA, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam::222222222222:user/bob","arn:aws:iam::222222222222:user/erin"]},
		 "Action":["dynamodb:GetItem","dynamodb:Query"],"Resource":"`+tableA+`"},
		{"Effect":"Deny","Principal":{"AWS":"222222222222"},"Action":"dynamodb:Query","Resource":"`+tableA+`"}]}`)
	// Both allow: bob reads alice's table by ARN.
	if _, err := bob.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tableA), Key: key("a")}); err != nil {
		t.Fatalf("bob with both policies: %v", err)
	}
	// The resource policy allows erin, but no identity policy of hers does.
	_, err = erin.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tableA), Key: key("a")})
	wantDenied(t, err, "User: arn:aws:iam::222222222222:user/erin is not authorized to perform: dynamodb:GetItem on resource: "+
		tableA+" because no identity-based policy allows the dynamodb:GetItem action")
	// The resource policy's Deny wins over both Allows.
	_, err = bob.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(tableA), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "a"}}})
	wantDenied(t, err, "User: arn:aws:iam::222222222222:user/bob is not authorized to perform: dynamodb:Query on resource: "+
		tableA+" with an explicit deny in a resource-based policy")
}

func TestAuthzLeadingKeys(t *testing.T) {
	s, _ := authServer(t)
	ctx := context.Background()
	alice := s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))
	dave := s.ClientWith("us-east-1", static("AKIADAVE", "dave-secret"))
	createKV(t, alice, "Shared")
	for _, pk := range []string{"dave", "eve"} {
		if _, err := alice.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Shared"), Item: key(pk)}); err != nil {
			t.Fatal(err)
		}
	}
	denied := func(action string) string {
		return "User: arn:aws:iam::111111111111:user/dave is not authorized to perform: " + action + " on resource: " +
			tableA + " because no identity-based policy allows the " + action + " action"
	}
	query := func(pk string) error {
		_, err := dave.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Shared"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: pk}}})
		return err
	}
	getItem := func(pk string) error {
		_, err := dave.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Shared"), Key: key(pk)})
		return err
	}
	batchGet := func(pks ...string) error {
		var keys []map[string]types.AttributeValue
		for _, pk := range pks {
			keys = append(keys, key(pk))
		}
		_, err := dave.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"Shared": {Keys: keys}}})
		return err
	}
	txGet := func(pks ...string) error {
		var items []types.TransactGetItem
		for _, pk := range pks {
			items = append(items, types.TransactGetItem{Get: &types.Get{TableName: aws.String("Shared"), Key: key(pk)}})
		}
		_, err := dave.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: items})
		return err
	}
	if err := query("dave"); err != nil {
		t.Errorf("Query own key: %v", err)
	}
	wantDenied(t, query("eve"), denied("dynamodb:Query"))
	if err := getItem("dave"); err != nil {
		t.Errorf("GetItem own key: %v", err)
	}
	wantDenied(t, getItem("eve"), denied("dynamodb:GetItem"))
	if err := batchGet("dave"); err != nil {
		t.Errorf("BatchGetItem own key: %v", err)
	}
	wantDenied(t, batchGet("dave", "eve"), denied("dynamodb:BatchGetItem"))
	if err := txGet("dave"); err != nil {
		t.Errorf("TransactGetItems own key: %v", err)
	}
	wantDenied(t, txGet("dave", "eve"), denied("dynamodb:GetItem"))
	// Writes are not in dave's policy at all.
	_, err := dave.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Shared"), Item: key("dave")})
	wantDenied(t, err, denied("dynamodb:PutItem"))
}

func TestAuthzAttributesAndReturnValues(t *testing.T) {
	s, _ := authServer(t)
	ctx := context.Background()
	alice := s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))
	frank := s.ClientWith("us-east-1", static("AKIAFRANK", "frank-secret"))
	createKV(t, alice, "Shared")
	denied := func(action string) string {
		return "User: arn:aws:iam::111111111111:user/frank is not authorized to perform: " + action + " on resource: " +
			tableA + " because no identity-based policy allows the " + action + " action"
	}
	get := func(projection string) error {
		in := &dynamodb.GetItemInput{TableName: aws.String("Shared"), Key: key("a")}
		if projection != "" {
			in.ProjectionExpression = aws.String(projection)
		}
		_, err := frank.GetItem(ctx, in)
		return err
	}
	if err := get("pk, #n"); err == nil {
		t.Fatal("placeholder without names accepted")
	}
	if _, err := frank.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Shared"), Key: key("a"),
		ProjectionExpression: aws.String("pk, #n"), ExpressionAttributeNames: map[string]string{"#n": "name"}}); err != nil {
		t.Errorf("allowed attributes: %v", err)
	}
	wantDenied(t, get("pk, secret"), denied("dynamodb:GetItem"))
	wantDenied(t, get(""), denied("dynamodb:GetItem")) // no projection: every attribute
	if _, err := frank.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Shared"), Item: key("a")}); err != nil {
		t.Errorf("PutItem without ReturnValues: %v", err)
	}
	_, err := frank.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Shared"), Item: key("a"), ReturnValues: types.ReturnValueAllOld})
	wantDenied(t, err, denied("dynamodb:PutItem"))
}

// CreateTable with a ResourcePolicy needs dynamodb:PutResourcePolicy too.
func TestAuthzCreateTableWithPolicy(t *testing.T) {
	s, _ := authServer(t)
	bob := s.ClientWith("us-east-1", static("AKIABOB", "bob-secret"))
	_, err := bob.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("Bobs"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})
	wantDenied(t, err, "User: arn:aws:iam::222222222222:user/bob is not authorized to perform: dynamodb:CreateTable on resource: "+
		"arn:aws:dynamodb:us-east-1:222222222222:table/Bobs because no identity-based policy allows the dynamodb:CreateTable action")
	withPolicy := func(c *dynamodb.Client) error {
		_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("WithPolicy"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
			ResourcePolicy: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"222222222222"},` +
				`"Action":"dynamodb:GetItem","Resource":"arn:aws:dynamodb:us-east-1:111111111111:table/WithPolicy"}]}`)})
		return err
	}
	// Frank may create tables, but not attach policies.
	wantDenied(t, withPolicy(s.ClientWith("us-east-1", static("AKIAFRANK", "frank-secret"))),
		"User: arn:aws:iam::111111111111:user/frank is not authorized to perform: dynamodb:PutResourcePolicy on resource: "+
			"arn:aws:dynamodb:us-east-1:111111111111:table/WithPolicy because no identity-based policy allows the dynamodb:PutResourcePolicy action")
	if err := withPolicy(s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))); err != nil {
		t.Fatalf("alice: %v", err)
	}
}

// A policy variable: each user may read the partition named after it.
func TestAuthzLeadingKeysPolicyVariable(t *testing.T) {
	s, _ := authServer(t)
	ctx := context.Background()
	alice := s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))
	gina := s.ClientWith("us-east-1", static("AKIAGINA", "gina-secret"))
	createKV(t, alice, "Shared")
	if _, err := gina.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Shared"), Key: key("gina")}); err != nil {
		t.Errorf("own partition: %v", err)
	}
	_, err := gina.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Shared"), Key: key("dave")})
	wantDenied(t, err, "User: arn:aws:iam::111111111111:user/team/gina is not authorized to perform: dynamodb:GetItem on resource: "+
		tableA+" because no identity-based policy allows the dynamodb:GetItem action")
}

// A stream is shared by its own resource policy; GetRecords is authorized
// on the stream its shard iterator names.
func TestAuthzCrossAccountStream(t *testing.T) {
	s, _ := authServer(t)
	ctx := context.Background()
	alice := s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))
	out, err := alice.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Shared"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	if err != nil {
		t.Fatal(err)
	}
	streamARN := *out.TableDescription.LatestStreamArn
	bob := dynamodbstreams.NewFromConfig(s.ConfigWith("us-east-1", static("AKIABOB", "bob-secret")))
	denied := func(action, why string) string {
		return "User: arn:aws:iam::222222222222:user/bob is not authorized to perform: " + action + " on resource: " + streamARN + " " + why
	}
	_, err = bob.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(streamARN)})
	wantDenied(t, err, denied("dynamodb:DescribeStream", "because no resource-based policy allows the dynamodb:DescribeStream action"))

	putPolicy(t, alice, streamARN, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"222222222222"},`+
		`"Action":["dynamodb:DescribeStream","dynamodb:GetShardIterator"],"Resource":"`+streamARN+`"}]}`)
	d, err := bob.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(streamARN)})
	if err != nil || len(d.StreamDescription.Shards) == 0 {
		t.Fatalf("DescribeStream: %v", err)
	}
	it, err := bob.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(streamARN),
		ShardId: d.StreamDescription.Shards[0].ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatalf("GetShardIterator: %v", err)
	}
	_, err = bob.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	wantDenied(t, err, denied("dynamodb:GetRecords", "because no resource-based policy allows the dynamodb:GetRecords action"))
}

// PartiQL statements are authorized as IAM's PartiQL actions.
func TestAuthzPartiQL(t *testing.T) {
	s, _ := authServer(t)
	ctx := context.Background()
	alice := s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))
	carol := s.ClientWith("us-east-1", static("AKIACAROL", "carol-secret"))
	createKV(t, alice, "Shared")
	stmt := func(c *dynamodb.Client, q string) error {
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(q)})
		return err
	}
	if err := stmt(alice, `INSERT INTO "Shared" VALUE {'pk': 'a'}`); err != nil {
		t.Fatalf("alice: %v", err)
	}
	denied := func(action string) string {
		return "User: arn:aws:iam::111111111111:user/carol is not authorized to perform: " + action + " on resource: " +
			tableA + " because no identity-based policy allows the " + action + " action"
	}
	wantDenied(t, stmt(carol, `SELECT * FROM "Shared" WHERE pk = 'a'`), denied("dynamodb:PartiQLSelect"))
	putPolicy(t, alice, tableA, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Principal":{"AWS":"arn:aws:iam::111111111111:user/carol"},"Action":"dynamodb:PartiQLSelect","Resource":"`+tableA+`"}]}`)
	if err := stmt(carol, `SELECT * FROM "Shared" WHERE pk = 'a'`); err != nil {
		t.Errorf("carol's SELECT with a resource policy: %v", err)
	}
	wantDenied(t, stmt(carol, `DELETE FROM "Shared" WHERE pk = 'a'`), denied("dynamodb:PartiQLDelete"))
	_, err := carol.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(`UPDATE "Shared" SET v = 1 WHERE pk = 'a'`)}}})
	wantDenied(t, err, denied("dynamodb:PartiQLUpdate"))
}

// Disassociating the local replica takes dynamodb:UpdateTable and
// dynamodb:DisassociateTableReplica on it (API Reference, UpdateTable);
// its protection only dynamodb:UpdateTable.
func TestAuthzDisassociateTableReplica(t *testing.T) {
	s, _ := authServer(t)
	ctx := context.Background()
	alice := s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))
	aliceEU := s.ClientWith("eu-west-1", static("AKIAALICE", "alice-secret"))
	hankEU := s.ClientWith("eu-west-1", static("AKIAHANK", "hank-secret"))
	createKV(t, alice, "Geo")
	if _, err := alice.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Geo"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		d, err := aliceEU.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Geo")})
		if err == nil && d.Table.TableStatus == types.TableStatusActive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica not ACTIVE: %v", err)
		}
	}
	if _, err := hankEU.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Geo"), DisassociationProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatalf("hank turning protection off: %v", err)
	}
	dis := &dynamodb.UpdateTableInput{TableName: aws.String("Geo"), ReplicaUpdates: []types.ReplicationGroupUpdate{{Disassociate: &types.DisassociateReplicationGroupMemberAction{
		RegionName: aws.String("eu-west-1"), DisassociationMode: types.DisassociationModeWaitForReplication}}}}
	_, err := hankEU.UpdateTable(ctx, dis)
	wantDenied(t, err, "User: arn:aws:iam::111111111111:user/hank is not authorized to perform: dynamodb:DisassociateTableReplica on resource: "+
		"arn:aws:dynamodb:eu-west-1:111111111111:table/Geo because no identity-based policy allows the dynamodb:DisassociateTableReplica action")
	if _, err := aliceEU.UpdateTable(ctx, dis); err != nil {
		t.Fatalf("alice: %v", err)
	}
}

// TestAuthzBulkOperations: the bulk operations are authorized as
// dynamodb:<Op> on the table (Describe and Cancel on the table their ARN
// names), ListBulkOperations on table/*.
func TestAuthzBulkOperations(t *testing.T) {
	s, _ := authServer(t)
	ctx := context.Background()
	alice := s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))
	carol := s.ClientWith("us-east-1", static("AKIACAROL", "carol-secret"))
	createKV(t, alice, "Shared")
	in := &dynamodb.StartBulkPutItemsInput{TableName: aws.String("Shared"),
		InputS3Configuration:  &types.InputS3Configuration{S3Bucket: aws.String("bkt"), InputFormat: types.BulkOperationInputFormatDynamodbJson},
		OutputS3Configuration: &types.OutputS3Configuration{OutputType: []types.OutputTypeEnum{types.OutputTypeEnumError}}}
	_, err := carol.StartBulkPutItems(ctx, in)
	wantDenied(t, err, "User: arn:aws:iam::111111111111:user/carol is not authorized to perform: dynamodb:StartBulkPutItems on resource: "+
		tableA+" because no identity-based policy allows the dynamodb:StartBulkPutItems action")
	out, err := alice.StartBulkPutItems(ctx, in)
	if err != nil {
		t.Fatalf("alice: %v", err)
	}
	arn := out.BulkOperationDescription.BulkOperationArn
	_, err = carol.DescribeBulkOperation(ctx, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: arn})
	wantDenied(t, err, "User: arn:aws:iam::111111111111:user/carol is not authorized to perform: dynamodb:DescribeBulkOperation on resource: "+
		tableA+" because no identity-based policy allows the dynamodb:DescribeBulkOperation action")
	_, err = carol.CancelBulkOperation(ctx, &dynamodb.CancelBulkOperationInput{BulkOperationArn: arn})
	wantDenied(t, err, "User: arn:aws:iam::111111111111:user/carol is not authorized to perform: dynamodb:CancelBulkOperation on resource: "+
		tableA+" because no identity-based policy allows the dynamodb:CancelBulkOperation action")
	_, err = carol.ListBulkOperations(ctx, &dynamodb.ListBulkOperationsInput{})
	wantDenied(t, err, "User: arn:aws:iam::111111111111:user/carol is not authorized to perform: dynamodb:ListBulkOperations on resource: "+
		"arn:aws:dynamodb:us-east-1:111111111111:table/* because no identity-based policy allows the dynamodb:ListBulkOperations action")
	if _, err := alice.DescribeBulkOperation(ctx, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: arn}); err != nil {
		t.Fatalf("alice describe: %v", err)
	}
	if _, err := alice.ListBulkOperations(ctx, &dynamodb.ListBulkOperationsInput{}); err != nil {
		t.Fatalf("alice list: %v", err)
	}
}
