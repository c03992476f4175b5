package terraform_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/internal/testserver"
)

// namespace is one (account, Region) a configuration provisions into.
type namespace struct {
	region string
	acct   account
}

// example is one directory of examples/terraform and what applying it
// must produce.
type example struct {
	dir string
	// override is an override file (Terraform's and the loader's) pointing
	// the provider blocks at the test server; %[1]s is its URL.
	override   string
	namespaces []namespace
	// outputs are the root outputs that must hold ARNs, by name.
	outputs map[string]string
	// tables per namespace index, that must exist after apply.
	tables map[int][]string
}

var (
	// The examples' provider keys: a 12-digit key is that account, any
	// other is mapped with --access-key-account (scenarioOptions.accounts
	// for terraform apply, iac.Options.AccessKeyAccounts for --load).
	prodAcct = account{"111111111111", "111111111111"}
	drAcct   = account{"222222222222", "AKIADR0000000000"}
	devAcct  = account{"123456789012", "123456789012"}
)

func examples() []example {
	return []example{
		{
			dir: "multi-region",
			override: `provider "aws" {
  alias = "prod"
  endpoints {
    dynamodb = "%[1]s"
    sts      = "%[1]s"
  }
}

provider "aws" {
  alias = "dr"
  endpoints {
    dynamodb = "%[1]s"
    sts      = "%[1]s"
  }
}

# ExtendDB does not serve SQS; the loader skips the queue and so does this run.
resource "aws_sqs_queue" "events" {
  count = 0
}
`,
			namespaces: []namespace{{"eu-west-1", prodAcct}, {"us-east-1", drAcct}},
			outputs: map[string]string{
				"prod_arn": "arn:aws:dynamodb:eu-west-1:111111111111:table/orders",
				"dr_arn":   "arn:aws:dynamodb:us-east-1:222222222222:table/orders",
			},
			tables: map[int][]string{0: {"orders"}, 1: {"orders"}},
		},
		{
			dir: "module",
			override: `provider "aws" {
  endpoints {
    dynamodb = "%[1]s"
    sts      = "%[1]s"
  }
}
`,
			namespaces: []namespace{{"eu-central-1", devAcct}},
			outputs: map[string]string{
				"users_arn":    "arn:aws:dynamodb:eu-central-1:123456789012:table/dev-users",
				"sessions_arn": "arn:aws:dynamodb:eu-central-1:123456789012:table/dev-sessions",
			},
			tables: map[int][]string{0: {"dev-sessions", "dev-users"}},
		},
	}
}

// copyDir copies a directory tree of small text files.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExamples applies every example of examples/terraform with the real
// Terraform, checks a clean plan, the output ARNs, the tables and items
// through the SDK, compares the result with `serve --load` of the same
// files, and destroys. multi-region also checks that a refresh-only apply
// and a second apply change nothing.
func TestExamples(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	for _, ex := range examples() {
		t.Run(ex.dir, func(t *testing.T) {
			t.Parallel()
			var accts []account
			for _, ns := range ex.namespaces {
				accts = append(accts, ns.acct)
			}
			s := newScenario(t, tl, scenarioOptions{accounts: accts, transitionDelay: defaultTransitionDelay})
			copyDir(t, filepath.Join("..", "..", "examples", "terraform", ex.dir), s.dir)
			s.write("extenddb_override.tf", fmt.Sprintf(ex.override, s.srv.URL))
			s.init()
			s.applyClean("apply " + ex.dir)

			outs := s.outputs()
			for name, want := range ex.outputs {
				if got := fmt.Sprint(outs[name]); got != want {
					t.Errorf("output %s = %s, want %s", name, got, want)
				}
			}
			for i, names := range ex.tables {
				ns := ex.namespaces[i]
				got := strings.Join(tablesIn(t, s.client(ns.region, ns.acct)), ",")
				if want := strings.Join(names, ","); got != want {
					t.Errorf("%s/%s tables %q, want %q", ns.acct.id, ns.region, got, want)
				}
			}
			compareWithLoad(t, s, ex)

			if ex.dir == "multi-region" {
				out := s.apply("apply -refresh-only", "-refresh-only")
				if !strings.Contains(out, "No changes.") {
					t.Errorf("apply -refresh-only changed something:\n%s", out)
				}
				out = s.apply("second apply")
				if !strings.Contains(out, "Resources: 0 added, 0 changed, 0 destroyed.") {
					t.Errorf("second apply was not a no-op:\n%s", out)
				}
			}

			s.destroy("destroy " + ex.dir)
			for i, names := range ex.tables {
				ns := ex.namespaces[i]
				if left := tablesIn(t, s.client(ns.region, ns.acct)); len(left) > 0 {
					t.Errorf("%s/%s tables left after destroy: %v (want none of %v)", ns.acct.id, ns.region, left, names)
				}
			}
		})
	}
}

// compareWithLoad provisions the very files Terraform applied (example and
// override) into a fresh server through the loader `extenddb serve --load`
// runs, given the server's --access-key-account flags, and requires every
// table of every namespace to match what `terraform apply` produced: ARNs
// (so accounts: the loader resolves each provider's access key as the
// server resolved Terraform's requests), keys, indexes, billing, caps,
// stream, TTL, PITR, tags and items.
func compareWithLoad(t *testing.T, s *scenario, ex example) {
	t.Helper()
	var so []testserver.Option
	keys := map[string]string{}
	for _, ns := range ex.namespaces {
		so = append(so, testserver.WithAccessKeyAccount(ns.acct.accessKey, ns.acct.id))
		keys[ns.acct.accessKey] = ns.acct.id
	}
	loaded := testserver.New(t, so...)
	specs, diags := iac.Load([]string{s.dir}, iac.Options{AccessKeyAccounts: keys, Getenv: func(string) (string, bool) { return "", false }})
	if diags.HasErrors() {
		t.Fatalf("--load %s: %s", ex.dir, diags.Error())
	}
	if d := iac.Provision(context.Background(), loaded.Engine(), specs); d.HasErrors() {
		t.Fatalf("--load %s: provision: %s", ex.dir, d.Error())
	}
	for _, ns := range ex.namespaces {
		viaTF := s.client(ns.region, ns.acct)
		viaLoad := loaded.ClientFor(ns.region, ns.acct.accessKey)
		tfTables, loadTables := tablesIn(t, viaTF), tablesIn(t, viaLoad)
		if strings.Join(tfTables, ",") != strings.Join(loadTables, ",") {
			t.Errorf("%s/%s: terraform apply made tables %v, --load made %v", ns.acct.id, ns.region, tfTables, loadTables)
			continue
		}
		for _, name := range tfTables {
			a, b := describe(t, viaTF, name), describe(t, viaLoad, name)
			if a.String() != b.String() {
				t.Errorf("%s/%s table %s differs\n--- terraform apply ---\n%s\n--- serve --load ---\n%s", ns.acct.id, ns.region, name, a, b)
			}
		}
	}
}
