package cloudformation

import (
	"os"
	"testing"
)

// BenchmarkLoad measures evaluating the example stack.
func BenchmarkLoad(b *testing.B) {
	data, err := os.ReadFile("../../examples/cloudformation/orders-stack.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, d := Load("orders-stack.yaml", data, opts()); d.HasErrors() {
			b.Fatal(d.Error())
		}
	}
}
