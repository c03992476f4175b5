// Package terraform runs the real Terraform CLI and the hashicorp AWS
// provider against an in-process ExtendDB: apply, plan, import and destroy,
// offline, with the provider configured as users configure it (endpoints for
// dynamodb and sts, an access key per account, no skip_* flags). Every
// scenario ends its steps with `terraform plan -detailed-exitcode`, which must
// find nothing to change, and checks the result through the real
// aws-sdk-go-v2 client. The tests skip when Terraform or the provider mirror
// is missing, unless EXTENDDB_REQUIRE_TERRAFORM=1 (set by .ci/run) makes that
// a failure. See docs/terraform.md. It has no non-test code.
package terraform
