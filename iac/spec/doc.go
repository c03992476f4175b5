// Package spec is the loader-neutral model of infrastructure as code: the
// tables a Terraform configuration or a CloudFormation template declares
// (TableSpec), each with the account and Region it lives in, and the
// positioned diagnostics loaders report (Diagnostics).
//
// It sits below package iac and its loaders so both can share it without an
// import cycle; package iac re-exports its types.
package spec
