// Package gotest is a tiny piece of application code that keeps a visit
// counter per page in DynamoDB. Its test (visits_test.go) shows how to test
// such code against ExtendDB started in-process with extenddbtest.
package gotest

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Counter counts visits in a table with a String hash key "page".
type Counter struct {
	DB    *dynamodb.Client
	Table string
}

// Visit adds one to page's counter and returns the new count.
func (c *Counter) Visit(ctx context.Context, page string) (int, error) {
	out, err := c.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(c.Table),
		Key:                       map[string]types.AttributeValue{"page": &types.AttributeValueMemberS{Value: page}},
		UpdateExpression:          aws.String("ADD visits :one"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(out.Attributes["visits"].(*types.AttributeValueMemberN).Value)
}
