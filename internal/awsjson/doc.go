// Package awsjson reads the error answers of AWS's JSON protocols (JSON
// 1.0 and 1.1: DynamoDB, Kinesis) as the AWS SDKs read them, for the
// small clients of our own that replaced the SDK's service clients
// (mcpserver's DynamoDB client, sink/kinesis; docs/adr/0009). A leaf: the
// standard library only.
package awsjson
