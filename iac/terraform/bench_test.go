package terraform

import (
	"testing"

	"github.com/extenddb/extenddb/iac/spec"
)

// BenchmarkLoadDir measures a start-up load of the example configurations.
func BenchmarkLoadDir(b *testing.B) {
	for _, dir := range []string{"../../examples/terraform/module", "../../examples/terraform/multi-region"} {
		b.Run(dir[len("../../examples/terraform/"):], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, d := LoadDir(dir, spec.Options{Getenv: noEnv}); d.HasErrors() {
					b.Fatal(d.Error())
				}
			}
		})
	}
}
