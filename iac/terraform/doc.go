// Package terraform loads DynamoDB tables from a Terraform root module.
//
// It evaluates the configuration statically with hashicorp/hcl/v2 and
// go-cty: variables (types, defaults, optional(), tfvars, TF_VAR_*, -var),
// locals, count, for_each, dynamic blocks, local modules, override files,
// provider configurations (Region, alias, default_tags; the account of the
// access key or assume_role, checked against allowed_account_ids and
// forbidden_account_ids: provider.go) and the functions real
// configurations use. References
// between resources resolve to the names and ARNs ExtendDB gives the
// tables; values only known after apply (other resources' attributes) are
// unknown and leave the argument unset with a warning.
package terraform
