// Package s3store implements objstore.Store over any S3-compatible server
// (MinIO, LocalStack, AWS itself) for --s3-endpoint, with a small S3 client
// of its own over net/http: path style, SigV4-signed by aws-sdk-go-v2's
// signer, only the operations Store needs (PutObject, GetObject,
// ListObjectsV2, DeleteObject). The SDK's S3 client is not used: its code
// and endpoint tables cost every start of the binary (issue 36).
package s3store
