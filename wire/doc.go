// Package wire is HTTP and the DynamoDB JSON 1.0 protocol: routes, the
// X-Amz-Target dispatch table, request decoding, response and error encoding
// (__type namespaces, member casing, x-amzn-RequestId, x-amz-crc32), SigV4
// credential-scope parsing into an (account, Region) namespace, STS
// GetCallerIdentity over the query protocol, KMS DescribeKey of the
// AWS-managed DynamoDB key, and --auth=sigv4: SigV4 verification, the
// credentials file, STS AssumeRole.
//
// Files: handler.go (routes, the request pipeline, response headers),
// dispatch.go (the one target → operation table), errors.go (the one error
// code → wire form table), decode.go (encoding/json decoding with Coral's
// SerializationException messages), fastdecode.go and encode.go (direct
// paths for the hot data-plane shapes, checked byte for byte against the
// encoding/json paths), identity.go (credential scope, account resolution),
// sts.go (GetCallerIdentity, AssumeRole), kms.go (DescribeKey of
// alias/aws/dynamodb), credentials.go (the credentials
// file, temporary credentials), sigv4.go (signature verification and its
// errors), authz.go (authorizing the operations the engine does not).
package wire
