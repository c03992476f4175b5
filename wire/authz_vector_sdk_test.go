package wire_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestAuthzSearchVectors: SearchVectors is dynamodb:SearchVectors on the
// vector index's ARN (Developer Guide, "Vector search security").
func TestAuthzSearchVectors(t *testing.T) {
	s, _ := authServer(t)
	ctx := context.Background()
	alice := s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))
	carol := s.ClientWith("us-east-1", static("AKIACAROL", "carol-secret"))
	if _, err := alice.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Vec"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		VectorIndexes: []types.VectorIndex{{IndexName: aws.String("near"), VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("v")},
			Dimensions: aws.Int64(1), DistanceFunction: types.VectorDistanceFunctionEuclidean, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	}); err != nil {
		t.Fatal(err)
	}
	in := &dynamodb.SearchVectorsInput{TableName: aws.String("Vec"), IndexName: aws.String("near"),
		SearchVector: []types.AttributeValue{&types.AttributeValueMemberN{Value: "1"}}, TopK: aws.Int32(1)}
	if _, err := alice.SearchVectors(ctx, in); err != nil {
		t.Fatalf("alice: %v", err)
	}
	const index = "arn:aws:dynamodb:us-east-1:111111111111:table/Vec/index/near"
	_, err := carol.SearchVectors(ctx, in)
	wantDenied(t, err, "User: arn:aws:iam::111111111111:user/carol is not authorized to perform: dynamodb:SearchVectors on resource: "+
		index+" because no identity-based policy allows the dynamodb:SearchVectors action")
	putPolicy(t, alice, "arn:aws:dynamodb:us-east-1:111111111111:table/Vec", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Principal":{"AWS":"arn:aws:iam::111111111111:user/carol"},"Action":"dynamodb:SearchVectors","Resource":"`+index+`"}]}`)
	if _, err := carol.SearchVectors(ctx, in); err != nil {
		t.Fatalf("carol with a resource policy on the index: %v", err)
	}
}
