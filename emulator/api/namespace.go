package api

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// Namespace is the (account, Region) a request lives in. Tables of two
// namespaces never see each other.
type Namespace struct {
	Account string
	Region  string
}

// Partition returns the AWS partition of the Region: aws-cn for cn-*,
// aws-us-gov for us-gov-*, aws otherwise.
func (ns Namespace) Partition() string {
	switch {
	case strings.HasPrefix(ns.Region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(ns.Region, "us-gov-"):
		return "aws-us-gov"
	case strings.HasPrefix(ns.Region, "us-iso-"):
		return "aws-iso"
	case strings.HasPrefix(ns.Region, "us-isob-"):
		return "aws-iso-b"
	}
	return "aws"
}

// TableARN returns the ARN of table name in this namespace.
func (ns Namespace) TableARN(name string) string {
	return "arn:" + ns.Partition() + ":dynamodb:" + ns.Region + ":" + ns.Account + ":table/" + name
}

// IndexARN returns the ARN of an index of table name in this namespace.
func (ns Namespace) IndexARN(table, index string) string {
	return ns.TableARN(table) + "/index/" + index
}

// ManagedKeyARN returns the ARN of the AWS-managed key alias/aws/dynamodb in
// this namespace: the key DescribeTable reports for KMS encryption without a
// key of the caller's, and the one KMS DescribeKey answers for the alias.
func (ns Namespace) ManagedKeyARN() string {
	return ns.KMSKeyARN(nil)
}

// KMSKeyARN resolves a KMSMasterKeyId (ARN, key ID, alias name) to the ARN
// DescribeTable reports; no key means the AWS-managed key alias/aws/dynamodb,
// given a stable per-namespace key ID.
func (ns Namespace) KMSKeyARN(keyID *string) string {
	prefix := "arn:" + ns.Partition() + ":kms:" + ns.Region + ":" + ns.Account + ":"
	if keyID == nil || *keyID == "" || *keyID == "alias/aws/dynamodb" {
		h := sha256.Sum256([]byte("aws/dynamodb\x00" + ns.Account + "\x00" + ns.Region))
		var id [16]byte
		copy(id[:], h[:16])
		id[6] = (id[6] & 0x0f) | 0x40
		id[8] = (id[8] & 0x3f) | 0x80
		return prefix + "key/" + UUIDString(id)
	}
	k := *keyID
	switch {
	case strings.HasPrefix(k, "arn:"):
		return k
	case strings.HasPrefix(k, "alias/"):
		return prefix + k
	}
	return prefix + "key/" + k
}

// UUIDString writes id in the 8-4-4-4-12 form of DynamoDB's TableId and
// KMS key IDs.
func UUIDString(id [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], id[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], id[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], id[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], id[8:10])
	b[23] = '-'
	hex.Encode(b[24:], id[10:])
	return string(b[:])
}

// EpochSeconds is t as epoch seconds with DynamoDB's millisecond precision,
// as every date of the API is sent (computed from milliseconds so the float
// prints without binary noise).
func EpochSeconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

// EpochPtr is EpochSeconds of t, or nil for the zero time (a date the
// answer leaves out).
func EpochPtr(t time.Time) *float64 {
	if t.IsZero() {
		return nil
	}
	f := EpochSeconds(t)
	return &f
}
