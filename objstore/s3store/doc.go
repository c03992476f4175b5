// Package s3store implements objstore.Store over any S3-compatible server
// (MinIO, LocalStack, AWS itself) through the aws-sdk-go-v2 S3 client,
// path-style, for --s3-endpoint.
package s3store
