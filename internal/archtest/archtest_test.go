package archtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/extenddb/extenddb"

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

func TestDependencyDirection(t *testing.T) {
	imports, err := ModuleImports(moduleRoot(t), module)
	if err != nil {
		t.Fatal(err)
	}
	// Guard against a walker that silently finds nothing.
	found := map[string]bool{}
	for _, im := range imports {
		found[im.From+" -> "+im.To] = true
	}
	for _, edge := range []string{"pebblestore -> kv", "cmd/extenddb -> wire", "cmd/extenddb -> emulator"} {
		if !found[edge] {
			t.Errorf("expected edge %s not found; is the parser walking the module?", edge)
		}
	}
	for _, v := range Violations(imports, Rules()) {
		t.Error(v)
	}
}

func TestViolations(t *testing.T) {
	im := func(from, to string, test bool) Import {
		f := from + "/x.go"
		if test {
			f = from + "/x_test.go"
		}
		return Import{From: from, To: to, File: f, Test: test}
	}
	cases := []struct {
		imp  Import
		want string // substring of the violation; "" means allowed
	}{
		{im("kv", "emulator", false), "kv is the storage contract"},
		{im("kv/kvtest", "kv", false), ""},
		{im("kv/kvtest", "pebblestore", true), "kv is the storage contract"},
		{im("throttle", "kv", false), "throttle is pure"},
		{im("throttle/internal", "throttle", false), ""},
		{im("pebblestore", "kv", false), ""},
		{im("pebblestore", "kv/kvtest", true), ""},
		{im("pebblestore", "emulator", false), "pebblestore knows only"},
		{im("pebblestore", "emulator/av", true), "pebblestore knows only"},
		{im("emulator", "kv", false), ""},
		{im("emulator", "throttle", false), ""},
		{im("emulator", "wire", false), "the engine knows no HTTP"},
		{im("emulator/expr", "iac/terraform", false), "the engine knows no HTTP"},
		{im("emulator", "pebblestore", false), "the engine knows no HTTP"},
		{im("emulator", "pebblestore", true), ""},
		{im("emulator", "internal/testserver", true), ""},
		{im("emulator", "cmd/extenddb", true), "nothing imports a command"},
		{im("wire", "emulator", false), ""},
		{im("wire", "iac", false), "wire serves the engine"},
		{im("wire", "iac/spec", true), "wire serves the engine"},
		{im("wire", "internal/testserver", true), ""},
		{im("wire", "internal/testserver", false), "testserver is for tests only"},
		{im("iac", "emulator", false), ""},
		{im("iac/terraform", "wire", false), "iac provisions"},
		{im("iac/terraform", "internal/testserver", true), ""},
		{im("cmd/extenddb", "wire", false), ""},
		{im("cmd/extenddb", "internal/testserver", false), "testserver is for tests only"},
		{im("e2e", "cmd/extenddb", true), "nothing imports a command"},
		{im("wireless", "iac", false), ""}, // a prefix is a path element, not a string prefix
	}
	for _, c := range cases {
		got := strings.Join(Violations([]Import{c.imp}, Rules()), "\n")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s -> %s (test=%v): got %q; want %q", c.imp.From, c.imp.To, c.imp.Test, got, c.want)
		}
	}
}

func TestModuleImportsSeesTaggedAndTestFiles(t *testing.T) {
	root := t.TempDir()
	write := func(name, src string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("throttle/a_windows.go", "//go:build windows\n\npackage throttle\n\nimport _ \""+module+"/kv\"\n")
	write("throttle/a_test.go", "package throttle\n\nimport (\n\t\"testing\"\n\t\""+module+"/emulator\"\n)\n")
	write("throttle/testdata/x.go", "package x\n\nimport _ \""+module+"/wire\"\n")
	imports, err := ModuleImports(root, module)
	if err != nil {
		t.Fatal(err)
	}
	got := Violations(imports, Rules())
	if len(got) != 2 || !strings.Contains(got[0], "a_test.go imports emulator") || !strings.Contains(got[1], "a_windows.go imports kv") {
		t.Fatalf("violations = %q; want the tagged file and the test file, not testdata", got)
	}
}
