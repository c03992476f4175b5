package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/iac/spec"
)

// writeFiles writes name → content under a new temporary directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// noEnv is an empty environment, so the machine's AWS_REGION and TF_VAR_*
// never leak into a test.
func noEnv(string) (string, bool) { return "", false }

func env(kv ...string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == name {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

// load loads a root module made of files and fails on any error.
func load(t *testing.T, files map[string]string, opts spec.Options) []spec.TableSpec {
	t.Helper()
	if opts.Getenv == nil {
		opts.Getenv = noEnv
	}
	specs, diags := LoadDir(writeFiles(t, files), opts)
	if diags.HasErrors() {
		t.Fatalf("unexpected errors:\n%s", diags.Error())
	}
	return specs
}

// loadErr loads files expecting errors, and returns them rendered.
func loadErr(t *testing.T, files map[string]string, opts spec.Options) (string, string) {
	t.Helper()
	if opts.Getenv == nil {
		opts.Getenv = noEnv
	}
	dir := writeFiles(t, files)
	specs, diags := LoadDir(dir, opts)
	if !diags.HasErrors() {
		t.Fatalf("expected errors, got none (specs: %d)", len(specs))
	}
	if specs != nil {
		t.Fatalf("a configuration with errors must yield no tables, got %d", len(specs))
	}
	return strings.ReplaceAll(diags.Error(), dir+string(filepath.Separator), ""), dir
}

func byName(t *testing.T, specs []spec.TableSpec, name, region string) *spec.TableSpec {
	t.Helper()
	for i := range specs {
		if specs[i].Name() == name && (region == "" || specs[i].Region == region) {
			return &specs[i]
		}
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name()+"@"+s.Region)
	}
	t.Fatalf("no table %s in %s; have %v", name, region, names)
	return nil
}

func names(specs []spec.TableSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name())
	}
	return out
}

func tags(s *spec.TableSpec) map[string]string {
	m := map[string]string{}
	for _, t := range s.Create.Tags {
		m[*t.Key] = *t.Value
	}
	return m
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
