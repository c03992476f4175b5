// Package cloudformation loads DynamoDB tables from CloudFormation and SAM
// templates (JSON or YAML, short-form tags included) and from cdk.out
// directories.
//
// It parses onto a position-carrying node tree (go.yaml.in/yaml/v3 parses
// JSON too, so both formats report file:line:col), resolves Parameters,
// Mappings, Conditions, pseudo parameters and intrinsic functions, and
// decodes AWS::DynamoDB::Table, AWS::DynamoDB::GlobalTable and
// AWS::Serverless::SimpleTable by their resource schemas: values are typed
// by the schema, not by YAML, so "5" is a number where a number is expected
// and 2012-10-17 stays a string.
package cloudformation
