// Package accounts owns the one rule that says which account an access key
// ID is (README, "Accounts and Regions"): a key that is itself a 12-digit
// account ID is that account, then a configured map (serve's
// --access-key-account), then, when asked (--account-per-access-key), an
// account derived from the key, then the default account
// (--default-account, 000000000000).
//
// The wire resolves every request's account with it, and the IaC loaders
// resolve each Terraform provider's access key with it, so a table that
// `serve --load` provisions lands in the account `terraform apply` against
// the same server would have used.
//
// It is a pure leaf: it imports nothing of ExtendDB.
package accounts
