package emulator_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Transaction behaviour that needs an item held busy, through the SDK.

const sdkAccount = "111122223333"

var sdkNS = api.Namespace{Account: sdkAccount, Region: "us-east-1"}

func sdkServer(t *testing.T) (*testserver.Server, *dynamodb.Client) {
	t.Helper()
	s := testserver.New(t)
	c := s.ClientFor("us-east-1", sdkAccount)
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String("txt"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func putTx(pk string) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String("txt"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}}}
}

func apiErr(t *testing.T, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code || ae.ErrorMessage() != msg {
		t.Fatalf("got %v, want %s: %s", err, code, msg)
	}
}

// TestTransactInProgress: a replay of a token whose transaction is still
// running is TransactionInProgressException (and a different request with
// it IdempotentParameterMismatchException); once the first completes, the
// replay returns its result.
func TestTransactInProgress(t *testing.T) {
	s, c := sdkServer(t)
	e := s.Engine()
	emulator.SetTxLockWait(e, time.Minute)
	release := emulator.HoldItem(e, sdkNS, "txt", av.Item{"pk": {Type: av.TypeS, S: "b"}})
	in := &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("tok"), TransactItems: []types.TransactWriteItem{putTx("a"), putTx("b")}}
	first := make(chan error, 1)
	go func() {
		_, err := c.TransactWriteItems(context.Background(), in)
		first <- err
	}()
	for !emulator.TokenRunning(e, sdkNS, "tok") {
		time.Sleep(time.Millisecond)
	}
	_, err := c.TransactWriteItems(context.Background(), in)
	apiErr(t, err, "TransactionInProgressException", "Transaction with the given request token is already in progress.")
	_, err = c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("tok"), TransactItems: []types.TransactWriteItem{putTx("a")}})
	apiErr(t, err, "IdempotentParameterMismatchException", "Request has the same client token as a previous request with different parameters")
	release()
	if err := <-first; err != nil {
		t.Fatalf("first run: %v", err)
	}
	if _, err := c.TransactWriteItems(context.Background(), in); err != nil {
		t.Fatalf("replay after completion: %v", err)
	}
}

// TestTransactConflict: an item held past the bounded wait cancels the
// transaction with a TransactionConflict reason on the actions of that
// item, and nothing is written.
func TestTransactConflict(t *testing.T) {
	s, c := sdkServer(t)
	e := s.Engine()
	emulator.SetTxLockWait(e, time.Millisecond)
	release := emulator.HoldItemInTx(e, sdkNS, "txt", av.Item{"pk": {Type: av.TypeS, S: "b"}})
	_, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{putTx("a"), putTx("b")}})
	release()
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("got %v, want TransactionCanceledException", err)
	}
	if aws.ToString(tce.Message) != "Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]" ||
		aws.ToString(tce.CancellationReasons[1].Message) != "Transaction is ongoing for the item" {
		t.Errorf("%q %+v", aws.ToString(tce.Message), tce.CancellationReasons)
	}
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("txt"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	if err != nil || out.Item != nil {
		t.Errorf("a conflicted transaction wrote: %v %v", out.Item, err)
	}
	// Released, the same transaction commits.
	if _, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{putTx("a"), putTx("b")}}); err != nil {
		t.Fatal(err)
	}
}

// TestTransactSingleWriteConflict: a single-item write to an item a
// transaction holds past the bounded wait gets TransactionConflictException;
// an item held by another single-item write is waited for instead.
func TestTransactSingleWriteConflict(t *testing.T) {
	s, c := sdkServer(t)
	e := s.Engine()
	emulator.SetTxLockWait(e, time.Millisecond)
	key := av.Item{"pk": {Type: av.TypeS, S: "b"}}
	put := &dynamodb.PutItemInput{TableName: aws.String("txt"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "b"}}}
	release := emulator.HoldItemInTx(e, sdkNS, "txt", key)
	answered := make(chan error, 1)
	go func() {
		_, err := c.PutItem(context.Background(), put)
		answered <- err
	}()
	select {
	case err := <-answered:
		release()
		apiErr(t, err, "TransactionConflictException", "Transaction is ongoing for the item")
	case <-time.After(10 * time.Second):
		release()
		t.Fatal("a write to an item held by a transaction waited 10 s instead of conflicting")
	}

	release = emulator.HoldItem(e, sdkNS, "txt", key)
	done := make(chan error, 1)
	go func() {
		_, err := c.PutItem(context.Background(), put)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	release()
	if err := <-done; err != nil {
		t.Fatalf("a write queued behind another write: %v", err)
	}
}
