package main

import (
	"strings"
	"testing"

	"github.com/extenddb/extenddb/accounts"
)

// FuzzParseServe: any command line and any EXTENDDB_* value either parse
// into a config that passes validate or fail with a usage error — never a
// panic, never an invalid account accepted.
func FuzzParseServe(f *testing.F) {
	f.Add("--default-account 111122223333 --access-key-account A=111122223333,B=222233334444", "")
	f.Add("--transition-delay 2s --log-level debug", "X=1")
	f.Add("--access-key-account ==", "=,=")
	f.Add("--addr :0 --in-memory", "A=")
	f.Fuzz(func(t *testing.T, line, envAccessKeys string) {
		getenv := env("HOME", "/h", "EXTENDDB_ACCESS_KEY_ACCOUNT", envAccessKeys)
		c, err := parseServe(strings.Fields(line), getenv)
		if err != nil {
			return
		}
		if verr := c.validate(); verr != nil {
			t.Fatalf("parseServe accepted an invalid config: %v", verr)
		}
		for k, a := range c.accessKeyAccounts {
			if k == "" || !accounts.IsID(a) {
				t.Fatalf("accepted access key mapping %q=%q", k, a)
			}
		}
	})
}
