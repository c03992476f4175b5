// Package terraform loads DynamoDB tables from a Terraform root module.
//
// It evaluates the configuration statically with hashicorp/hcl/v2 and
// go-cty: variables (types, defaults, optional(), tfvars, TF_VAR_*, -var),
// locals, count, for_each, dynamic blocks, local modules, override files,
// provider configurations (Region, alias, allowed_account_ids,
// default_tags) and the functions real configurations use. References
// between resources resolve to the names and ARNs ExtendDB gives the
// tables; values only known after apply (other resources' attributes) are
// unknown and leave the argument unset with a warning.
package terraform
