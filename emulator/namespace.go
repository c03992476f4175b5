package emulator

import "strings"

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
	return kmsKeyArn(ns, nil)
}
