// Package objstoretest is the conformance suite of objstore.Store: every
// implementation (the folder store, the S3 endpoint store) runs it.
package objstoretest
