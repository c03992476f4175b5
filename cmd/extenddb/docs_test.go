package main

import (
	"flag"
	"os"
	"regexp"
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

// TestDockerHealthcheck keeps the Dockerfile's HEALTHCHECK and the compose
// file's healthcheck on `extenddb healthcheck` (the image has no shell or
// curl), with arguments the command accepts, and the compose port on
// loopback.
func TestDockerHealthcheck(t *testing.T) {
	dockerfile, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	compose, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	execForm := regexp.MustCompile(`\["(?:CMD", ")?/usr/local/bin/extenddb", "healthcheck"((?:, "[^"]*")*)\]`)
	for name, text := range map[string]string{"Dockerfile": string(dockerfile), "docker-compose.yml": string(compose)} {
		m := execForm.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("%s has no healthcheck running extenddb healthcheck", name)
			continue
		}
		var args []string
		for _, a := range strings.Split(m[1], ",") {
			if a = strings.Trim(strings.TrimSpace(a), `"`); a != "" {
				args = append(args, a)
			}
		}
		fs, _ := newHealthcheckFlags()
		if err := parseFlags(fs, args, env()); err != nil {
			t.Errorf("%s: healthcheck %v: %v", name, args, err)
		}
	}
	if !strings.Contains(string(compose), `"127.0.0.1:8000:8000"`) {
		t.Error("docker-compose.yml should publish the port on 127.0.0.1 only")
	}
}
