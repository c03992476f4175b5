package cloudformation

import (
	"testing"
)

// A table's ResourcePolicy and its stream's StreamSpecification.ResourcePolicy
// (and a GlobalTable replica's ReplicaStreamSpecification.ResourcePolicy)
// become the spec's policies.
func TestResourcePolicies(t *testing.T) {
	src := `Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: pol
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      BillingMode: PAY_PER_REQUEST
      StreamSpecification:
        StreamViewType: KEYS_ONLY
        ResourcePolicy:
          PolicyDocument:
            Version: "2012-10-17"
            Statement: [{Effect: Allow, Principal: {AWS: "111122223333"}, Action: "dynamodb:GetRecords", Resource: "*"}]
      ResourcePolicy:
        PolicyDocument: '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}]}'
  G:
    Type: AWS::DynamoDB::GlobalTable
    Properties:
      TableName: g
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      BillingMode: PAY_PER_REQUEST
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
      Replicas:
        - Region: eu-west-1
          ReplicaStreamSpecification:
            ResourcePolicy:
              PolicyDocument: {Version: "2012-10-17", Statement: [{Effect: Deny, Principal: "*", Action: "dynamodb:GetRecords", Resource: "*"}]}
`
	specs := mustLoad(t, "pol.yaml", src, opts())
	if len(specs) != 2 {
		t.Fatalf("%d specs", len(specs))
	}
	s := specs[0]
	if got := *s.Create.ResourcePolicy; got != `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}]}` {
		t.Errorf("table policy %s", got)
	}
	if s.StreamPolicy == nil || *s.StreamPolicy != `{"Statement":[{"Action":"dynamodb:GetRecords","Effect":"Allow","Principal":{"AWS":"111122223333"},"Resource":"*"}],"Version":"2012-10-17"}` {
		t.Errorf("stream policy %v", s.StreamPolicy)
	}
	if !s.ConfirmRemoveSelf {
		t.Error("CloudFormation applies its policies as declared: ConfirmRemoveSelf")
	}
	g := specs[1]
	if g.StreamPolicy == nil || *g.StreamPolicy != `{"Statement":[{"Action":"dynamodb:GetRecords","Effect":"Deny","Principal":"*","Resource":"*"}],"Version":"2012-10-17"}` {
		t.Errorf("replica stream policy %v", g.StreamPolicy)
	}
}
