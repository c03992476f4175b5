package terraform

import (
	"strings"
	"testing"

	"github.com/extenddb/extenddb/accounts"
	"github.com/extenddb/extenddb/iac/spec"
)

// providerTable is a table declared through provider aws.p.
const providerTable = `
resource "aws_dynamodb_table" "t" {
  provider     = aws.p
  name         = "Orders"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
`

// TestProviderAccount checks that each provider block's tables land in the
// account the server resolves the provider's access key to (issue 37): the
// account `terraform apply` against the same server creates them in.
func TestProviderAccount(t *testing.T) {
	mapped := spec.Options{AccessKeyAccounts: map[string]string{"AKIAPROD00000000": "111111111111"}}
	for _, c := range []struct {
		name     string
		provider string
		opts     spec.Options
		want     string
	}{
		{"12-digit key is that account", `access_key = "111111111111"`, spec.Options{}, "111111111111"},
		{"12-digit key wins over the default account", `access_key = "222222222222"`, spec.Options{DefaultAccount: "333333333333"}, "222222222222"},
		{"mapped key (--access-key-account)", `access_key = "AKIAPROD00000000"`, mapped, "111111111111"},
		{"unmapped key: --default-account", `access_key = "AKIAOTHER0000000"`, spec.Options{AccessKeyAccounts: mapped.AccessKeyAccounts, DefaultAccount: "333333333333"}, "333333333333"},
		{"unmapped key: 000000000000", `access_key = "test"`, spec.Options{}, "000000000000"},
		{"--account-per-access-key", `access_key = "AKIADEV000000000"`, spec.Options{AccountPerAccessKey: true}, accounts.Derived("AKIADEV000000000")},
		{"key from a variable", "access_key = var.key", spec.Options{Vars: []string{"key=444444444444"}}, "444444444444"},
		{"AWS_ACCESS_KEY_ID when the block names no key", ``, spec.Options{Getenv: env("AWS_ACCESS_KEY_ID", "555555555555")}, "555555555555"},
		{"access_key wins over AWS_ACCESS_KEY_ID", `access_key = "111111111111"`, spec.Options{Getenv: env("AWS_ACCESS_KEY_ID", "555555555555")}, "111111111111"},
		{"assume_role: the role's account", `access_key = "111111111111"
  assume_role {
    role_arn = "arn:aws:iam::666666666666:role/deploy"
  }`, spec.Options{}, "666666666666"},
		{"allowed account of the key", `access_key = "AKIAPROD00000000"
  allowed_account_ids = ["999999999999", "111111111111"]`, mapped, "111111111111"},
		{"no key: the first allowed account", `allowed_account_ids = ["777777777777"]`, spec.Options{}, "777777777777"},
		{"no key, no allowed accounts: the default account", ``, spec.Options{DefaultAccount: "888888888888"}, "888888888888"},
		{"--auth=sigv4: the credentials file's account, even of a 12-digit key", `access_key = "222222222222"`,
			spec.Options{CredentialsAccount: func(k string) (string, bool) { return "333333333333", k == "222222222222" }}, "333333333333"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{
				"main.tf": "variable \"key\" {\n  default = \"\"\n}\nprovider \"aws\" {\n  alias  = \"p\"\n  region = \"eu-west-1\"\n  " + c.provider + "\n}\n" + providerTable,
			}
			specs := load(t, files, c.opts)
			s := byName(t, specs, "Orders", "eu-west-1")
			if s.Account != c.want {
				t.Errorf("account %s, want %s", s.Account, c.want)
			}
			if want := "arn:aws:dynamodb:eu-west-1:" + c.want + ":table/Orders"; s.ARN() != want {
				t.Errorf("ARN %s, want %s", s.ARN(), want)
			}
		})
	}
}

// TestProviderAccountFrom: each table says how its account was chosen, for
// validate to show.
func TestProviderAccountFrom(t *testing.T) {
	files := map[string]string{"main.tf": `
provider "aws" {
  alias  = "p"
  region = "eu-west-1"
  assume_role {
    role_arn = "arn:aws:iam::666666666666:role/deploy"
  }
}
provider "aws" {
  alias               = "q"
  region              = "eu-west-2"
  allowed_account_ids = ["777777777777"]
}
provider "aws" {
  region = "eu-west-3"
}
` + providerTable +
		strings.NewReplacer("aws.p", "aws.q", `"t"`, `"q"`).Replace(providerTable) +
		strings.NewReplacer("  provider     = aws.p\n", "", `"t"`, `"d"`).Replace(providerTable)}
	specs := load(t, files, spec.Options{DefaultAccount: "888888888888"})
	for region, want := range map[string]string{
		"eu-west-1": "provider aws.p: the account of its assume_role role_arn",
		"eu-west-2": "provider aws.q, no access key: the first of allowed_account_ids",
		"eu-west-3": "provider aws, no access key: --default-account",
	} {
		if got := byName(t, specs, "Orders", region).AccountFrom; got != want {
			t.Errorf("%s: AccountFrom %q, want %q", region, got, want)
		}
	}
}

// TestImplicitProviderAccount: without a provider block, tables are in the
// account of the environment's access key, as the provider's would be.
func TestImplicitProviderAccount(t *testing.T) {
	files := map[string]string{"main.tf": strings.Replace(providerTable, "  provider     = aws.p\n", "", 1)}
	s := load(t, files, spec.Options{Getenv: env("AWS_ACCESS_KEY_ID", "AKIAPROD00000000", "AWS_REGION", "eu-west-1"),
		AccessKeyAccounts: map[string]string{"AKIAPROD00000000": "111111111111"}})
	if got := byName(t, s, "Orders", "eu-west-1").Account; got != "111111111111" {
		t.Errorf("account %s, want 111111111111", got)
	}
}

// TestProviderAccountNotAllowed: a provider whose key resolves to an
// account allowed_account_ids does not list (or forbidden_account_ids
// lists) is an error at the list, as terraform apply refuses it.
func TestProviderAccountNotAllowed(t *testing.T) {
	for _, c := range []struct {
		name, provider, want string
	}{
		{"unmapped key", `access_key = "AKIAPROD00000000"
  allowed_account_ids = ["111111111111"]`,
			`main.tf:5:25: provider aws.p: AWS account ID not allowed: 000000000000 is the account of its access key AKIAPROD00000000 (access_key), which allowed_account_ids ["111111111111"] does not list; terraform apply fails the same way; map the key to an allowed account with --access-key-account AKIAPROD00000000=ACCOUNT, or use a 12-digit access key, which is that account`},
		{"role in another account", `assume_role {
    role_arn = "arn:aws:iam::222222222222:role/r"
  }
  allowed_account_ids = ["111111111111"]`,
			`main.tf:7:25: provider aws.p: AWS account ID not allowed: 222222222222 is the account of its assume_role role_arn, which allowed_account_ids ["111111111111"] does not list; terraform apply fails the same way`},
		{"forbidden", `access_key = "111111111111"
  forbidden_account_ids = ["111111111111"]`,
			`main.tf:5:27: provider aws.p: AWS account ID not allowed: 111111111111 is the account of its access key 111111111111 (access_key), which forbidden_account_ids lists; terraform apply fails the same way`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _ := loadErr(t, map[string]string{"main.tf": "provider \"aws\" {\n  alias  = \"p\"\n  region = \"eu-west-1\"\n  " + c.provider + "\n}\n" + providerTable}, spec.Options{})
			if !strings.Contains(got, c.want) {
				t.Errorf("diagnostics:\n%s\nwant a line starting\n%s", got, c.want)
			}
		})
	}
}
