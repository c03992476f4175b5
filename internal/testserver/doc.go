// Package testserver starts the real ExtendDB stack in-process for tests:
// a Pebble store (in memory by default), the engine, the wire handler and an
// httptest server, plus aws-sdk-go-v2 DynamoDB clients pointed at it.
package testserver
