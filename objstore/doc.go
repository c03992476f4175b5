// Package objstore is the S3 stand-in that exports and imports read and
// write: the Store interface the engine uses (Put, Get, List, Delete of
// objects in a bucket), its sentinel errors, and Dir, a folder per bucket.
// objstore/s3store implements Store over any S3-compatible endpoint. A leaf:
// it imports nothing of ours.
package objstore
