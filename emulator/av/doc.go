// Package av owns DynamoDB attribute values: the Value type, its JSON codec
// (the wire's hot path), number canonicalisation and arithmetic over
// 38-digit decimals, validation with DynamoDB's messages, item size by
// DynamoDB's rules, order-preserving key encoding and the compact binary item
// encoding stored in the key-value store.
package av
