// Package shape is the request shape checks every operation shares:
// Violations collects DynamoDB's "Value … at '…' failed to satisfy
// constraint: …" messages in request order and joins them the way the
// service does ("N validation errors detected: …"), with the checks of the
// members many operations have (names and table references, lengths, enums,
// bounds, key schemas, projections, throughput), and the service's other
// early answers (a missing TableName, an over-long bare name,
// InvalidParam's prefix). The engine and its capability packages use it, so
// a check reads and answers the same wherever it runs.
//
// A leaf: imports only emulator/api.
package shape
