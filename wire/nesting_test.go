package wire

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// nestedInvalid is an attribute value depth levels deep: maps of two
// members each, the invalid number {"N":"abc"} at the bottom of one and a
// valid string beside it at every level, so a validation that visits a
// failing subtree twice at each level (once to find a failure, again to
// name it) does 2^depth work.
func nestedInvalid(depth int) string {
	v := `{"N":"abc"}`
	for range depth - 1 {
		v = `{"M":{"b":{"S":"x"},"a":` + v + `}}`
	}
	return v
}

// TestNestedInvalidValueCostIsLinear: on every surface that takes
// attribute values (items, expression attribute values, keys of batches
// and transactions, PartiQL parameters), an invalid number nested up to
// DynamoDB's 32 levels is refused with a ValidationException, at a cost
// (counted in allocations) that grows linearly with the depth. Depths rise
// in steps of four, so a cost that doubles at each level fails the test
// within a few steps instead of running for hours.
func TestNestedInvalidValueCostIsLinear(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	const table = `{"TableName":"Tab","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`
	if r := do(h, http.MethodPost, "DynamoDB_20120810.CreateTable", contentTypeJSON10, table); r.status != http.StatusOK {
		t.Fatalf("CreateTable: %d %s", r.status, r.body)
	}
	surfaces := []struct{ op, body string }{
		{"PutItem", `{"TableName":"Tab","Item":{"pk":{"S":"a"},"v":@V@}}`},
		{"PutItem", `{"TableName":"Tab","Item":{"pk":{"S":"a"}},"ConditionExpression":"v <> :v","ExpressionAttributeValues":{":v":@V@}}`},
		{"UpdateItem", `{"TableName":"Tab","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET v = :v","ExpressionAttributeValues":{":v":@V@}}`},
		{"UpdateItem", `{"TableName":"Tab","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"v":{"Action":"PUT","Value":@V@}}}`},
		{"DeleteItem", `{"TableName":"Tab","Key":{"pk":{"S":"a"}},"Expected":{"v":{"Value":@V@}}}`},
		{"Query", `{"TableName":"Tab","KeyConditionExpression":"pk = :k","FilterExpression":"v = :v","ExpressionAttributeValues":{":k":{"S":"a"},":v":@V@}}`},
		{"Scan", `{"TableName":"Tab","FilterExpression":"v = :v","ExpressionAttributeValues":{":v":@V@}}`},
		{"BatchWriteItem", `{"RequestItems":{"Tab":[{"PutRequest":{"Item":{"pk":{"S":"a"},"v":@V@}}}]}}`},
		{"TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"Tab","Item":{"pk":{"S":"a"},"v":@V@}}}]}`},
		{"ExecuteStatement", `{"Statement":"INSERT INTO Tab VALUE {'pk':'b','v':?}","Parameters":[@V@]}`},
		{"ExecuteStatement", `{"Statement":"SELECT * FROM Tab WHERE pk = 'a' AND v = ?","Parameters":[@V@]}`},
		{"BatchExecuteStatement", `{"Statements":[{"Statement":"UPDATE Tab SET v = ? WHERE pk = 'a'","Parameters":[@V@]}]}`},
		{"ExecuteTransaction", `{"TransactStatements":[{"Statement":"INSERT INTO Tab VALUE {'pk':'c','v':?}","Parameters":[@V@]}]}`},
	}
	for i, s := range surfaces {
		t.Run(fmt.Sprintf("%d_%s", i, s.op), func(t *testing.T) {
			target := "DynamoDB_20120810." + s.op
			var costs []float64
			for depth := 4; depth <= 32; depth += 4 {
				body := strings.Replace(s.body, "@V@", nestedInvalid(depth), 1)
				r := do(h, http.MethodPost, target, contentTypeJSON10, body)
				refused := r.status == http.StatusBadRequest && strings.Contains(r.body, "ValidationException")
				// A batch statement's error is its own, in a 200 answer.
				refused = refused || (s.op == "BatchExecuteStatement" && r.status == http.StatusOK && strings.Contains(r.body, "ValidationError"))
				if !refused {
					t.Fatalf("depth %d: %d %s; want a ValidationException", depth, r.status, r.body)
				}
				costs = append(costs, testing.AllocsPerRun(3, func() { do(h, http.MethodPost, target, contentTypeJSON10, body) }))
				if n := len(costs); n >= 3 {
					first, last := costs[1]-costs[0], costs[n-1]-costs[n-2]
					if last > 2*first+64 {
						t.Fatalf("allocations by depth (4, 8, ...): %v: four more levels cost %v, the first four more %v: not linear", costs, last, first)
					}
				}
			}
		})
	}
}
