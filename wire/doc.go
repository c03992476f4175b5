// Package wire is HTTP and the DynamoDB JSON 1.0 protocol: routes, the
// X-Amz-Target dispatch table, request decoding, response and error encoding
// (__type namespaces, member casing, x-amzn-RequestId, x-amz-crc32), SigV4
// credential-scope parsing into an (account, Region) namespace, and STS
// GetCallerIdentity over the query protocol.
package wire
