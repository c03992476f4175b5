// Package kinesis delivers the engine's change records to a Kinesis Data
// Streams endpoint (AWS, or a local server such as kinesalite) with the
// aws-sdk-go-v2 Kinesis client. It implements emulator.KinesisSink; cmd
// wires it from --kinesis-endpoint. It knows nothing of DynamoDB beyond
// that interface: the engine builds the records and keeps the queue.
package kinesis
