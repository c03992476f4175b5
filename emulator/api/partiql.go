package api

import "github.com/extenddb/extenddb/emulator/av"

// PartiQL request and response shapes (ExecuteStatement,
// BatchExecuteStatement, ExecuteTransaction).

// ExecuteStatementInput is ExecuteStatement's request.
type ExecuteStatementInput struct {
	Statement                           *string    `json:"Statement,omitempty"`
	Parameters                          []av.Value `json:"Parameters,omitempty"`
	ConsistentRead                      *bool      `json:"ConsistentRead,omitempty"`
	NextToken                           *string    `json:"NextToken,omitempty"`
	ReturnConsumedCapacity              *string    `json:"ReturnConsumedCapacity,omitempty"`
	Limit                               *int64     `json:"Limit,omitempty"`
	ReturnValuesOnConditionCheckFailure *string    `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
}

// ExecuteStatementOutput is ExecuteStatement's response. Items is always
// present, [] when nothing is returned.
type ExecuteStatementOutput struct {
	Items            []av.Item         `json:"Items"`
	NextToken        *string           `json:"NextToken,omitempty"`
	ConsumedCapacity *ConsumedCapacity `json:"ConsumedCapacity,omitempty"`
}

// BatchStatementRequest is one statement of BatchExecuteStatement.
type BatchStatementRequest struct {
	Statement                           *string    `json:"Statement,omitempty"`
	Parameters                          []av.Value `json:"Parameters,omitempty"`
	ConsistentRead                      *bool      `json:"ConsistentRead,omitempty"`
	ReturnValuesOnConditionCheckFailure *string    `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
}

// BatchExecuteStatementInput is BatchExecuteStatement's request.
type BatchExecuteStatementInput struct {
	Statements             []BatchStatementRequest `json:"Statements,omitempty"`
	ReturnConsumedCapacity *string                 `json:"ReturnConsumedCapacity,omitempty"`
}

// BatchStatementError is a statement's failure inside BatchExecuteStatement;
// Code is the short form (ConditionalCheckFailed, ValidationError, …).
type BatchStatementError struct {
	Code    string  `json:"Code,omitempty"`
	Message string  `json:"Message,omitempty"`
	Item    av.Item `json:"Item,omitempty"`
}

// BatchStatementResponse is one statement's answer.
type BatchStatementResponse struct {
	Error     *BatchStatementError `json:"Error,omitempty"`
	TableName string               `json:"TableName,omitempty"`
	Item      av.Item              `json:"Item,omitempty"`
}

// BatchExecuteStatementOutput is BatchExecuteStatement's response.
type BatchExecuteStatementOutput struct {
	Responses        []BatchStatementResponse `json:"Responses"`
	ConsumedCapacity []ConsumedCapacity       `json:"ConsumedCapacity,omitempty"`
}

// ParameterizedStatement is one statement of ExecuteTransaction.
type ParameterizedStatement struct {
	Statement                           *string    `json:"Statement,omitempty"`
	Parameters                          []av.Value `json:"Parameters,omitempty"`
	ReturnValuesOnConditionCheckFailure *string    `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
}

// ExecuteTransactionInput is ExecuteTransaction's request.
type ExecuteTransactionInput struct {
	TransactStatements     []ParameterizedStatement `json:"TransactStatements,omitempty"`
	ClientRequestToken     *string                  `json:"ClientRequestToken,omitempty"`
	ReturnConsumedCapacity *string                  `json:"ReturnConsumedCapacity,omitempty"`
}

// ExecuteTransactionOutput is ExecuteTransaction's response.
type ExecuteTransactionOutput struct {
	Responses        []ItemResponse     `json:"Responses"`
	ConsumedCapacity []ConsumedCapacity `json:"ConsumedCapacity,omitempty"`
}
