package main

import (
	"flag"
	"os"
	"strings"
	"testing"
)

// TestConfigurationDocumentsEveryFlag keeps docs/configuration.md complete:
// every flag of serve and validate has a row naming it and its variable.
func TestConfigurationDocumentsEveryFlag(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	c := newServeConfig(env("HOME", "/h"))
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c.register(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if isAlias(f) {
			if !strings.Contains(text, "| `-"+f.Name+"`") && !strings.Contains(text, "| `-"+f.Name+" ") {
				t.Errorf("docs/configuration.md has no row for DynamoDB Local's -%s", f.Name)
			}
			return
		}
		if !strings.Contains(text, "| `--"+f.Name+"`") && !strings.Contains(text, "| `--"+f.Name+" ") {
			t.Errorf("docs/configuration.md has no row for --%s", f.Name)
		}
		if !strings.Contains(text, "`"+envName(f.Name)+"`") {
			t.Errorf("docs/configuration.md does not name %s", envName(f.Name))
		}
	})
}
