package main

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/internal/pgtest"
)

// TestServeStorePostgres: with --store the data lives in PostgreSQL: an
// item written through one server is read back through a second one
// started afterwards on the same database (nothing of it in a data dir).
func TestServeStorePostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	client := func(addr string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://" + addr), RetryMaxAttempts: 1,
			Credentials: credentials.NewStaticCredentialsProvider("AK", "secret", "")})
	}
	addr, logs, stop, done := startServe(t, "--store", dsn, "--data-dir", t.TempDir())
	cl := client(addr)
	_, err := cl.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Things"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cl.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Things"), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "a"}, "n": &types.AttributeValueMemberN{Value: "42"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, logs.String())
	}
	if !strings.Contains(logs.String(), `"store":"postgres://`) {
		t.Errorf("the serving line does not name the store:\n%s", logs.String())
	}

	addr, _, stop, done = startServe(t, "--store", dsn, "--data-dir", t.TempDir())
	defer func() { stop(); <-done }()
	out, err := client(addr).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Things"), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := out.Item["n"].(*types.AttributeValueMemberN); !ok || n.Value != "42" {
		t.Fatalf("GetItem through a second server = %#v; want n=42", out.Item)
	}
}

func TestServeStoreFlag(t *testing.T) {
	for _, c := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--store", "postgres://u:secret@h:5432/db", "--in-memory"}, "--store and --in-memory do not go together"},
		{[]string{"--store", "/var/lib/extenddb"}, "want a postgres://"},
		{[]string{"--store", "mysql://u:secret@h/db"}, "want a postgres://"},
	} {
		_, err := parseServe(c.args, env())
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%q: %v; want %q", c.args, err, c.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: the error shows the password: %v", c.args, err)
		}
	}
	c, err := parseServe(nil, env("EXTENDDB_STORE", "postgresql://h/db"))
	if err != nil || c.store != "postgresql://h/db" {
		t.Fatalf("EXTENDDB_STORE: %q, %v", c.store, err)
	}
}
