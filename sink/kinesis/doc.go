// Package kinesis delivers the engine's change records to a Kinesis Data
// Streams endpoint (AWS, or a local server such as kinesalite) with a small
// client of its own: JSON 1.1 over net/http, signed by the SDK's SigV4
// signer. The SDK's Kinesis client would cost every start of the binary
// (issue 36); only its tests use it. It implements emulator.KinesisSink;
// cmd wires it from --kinesis-endpoint. It knows nothing of DynamoDB beyond
// that interface: the engine builds the records and keeps the queue.
package kinesis
