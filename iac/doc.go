// Package iac loads tables from infrastructure as code and provisions them
// into the engine.
//
// Load reads Terraform root modules (package iac/terraform), CloudFormation
// and SAM templates and cdk.out directories (package iac/cloudformation)
// into TableSpecs, each in the account and Region it declares. Provision
// creates them through the engine's own API (CreateTable, UpdateTimeToLive,
// UpdateContinuousBackups, TagResource, PutItem), so a declared table is
// validated exactly as a CreateTable request is; a table that already exists
// is reconciled by UpdateTable's rules, and a change UpdateTable cannot make
// (a key schema) is a diagnostic, never a re-creation.
//
// The model (TableSpec, Diagnostics, Options) lives in iac/spec so the
// loaders can share it; this package re-exports it.
package iac
