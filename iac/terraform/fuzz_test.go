package terraform

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/extenddb/extenddb/iac/spec"
)

func FuzzLoadDir(f *testing.F) {
	f.Add(minimalTable, false)
	f.Add(`variable "x" { type = map(object({ a = optional(number, 1) })) }`+minimalTable, false)
	f.Add(`locals { a = [for i in range(3) : { n = i }] }
resource "aws_dynamodb_table" "t" {
  for_each = { for o in local.a : tostring(o.n) => o }
  name = each.key
  dynamic "attribute" {
    for_each = [each.value]
    content { name = attribute.value.n }
  }
}`, false)
	f.Add(`module "m" { source = "./" }`, false)
	f.Add(`{"resource": {"aws_dynamodb_table": {"t": {"name": "x", "count": 2}}}}`, true)
	if b, err := os.ReadFile("../../examples/terraform/multi-region/main.tf"); err == nil {
		f.Add(string(b), false)
	}
	f.Fuzz(func(t *testing.T, src string, isJSON bool) {
		dir := t.TempDir()
		name := "main.tf"
		if isJSON {
			name = "main.tf.json"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		specs, diags := LoadDir(dir, spec.Options{Getenv: noEnv})
		if diags.HasErrors() && specs != nil {
			t.Fatal("tables returned with errors")
		}
	})
}
