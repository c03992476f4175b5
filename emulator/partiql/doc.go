// Package partiql is DynamoDB's dialect of PartiQL as text: a lexer, a
// recursive-descent parser, the syntax tree and source positions. It knows
// no tables and no engine; the engine (emulator/partiql*.go) turns a parsed
// Statement into its own operations (Query, Scan, PutItem, UpdateItem,
// DeleteItem and the transactions), so item semantics live in one place.
//
// Errors are *Error values whose Message is DynamoDB's text: malformed
// statements read "Statement wasn't well formed, can't be processed: …", and
// statements that parse but are refused carry the message alone, some with
// DynamoDB's " at line:column:length" suffix (1-based, in characters).
package partiql
