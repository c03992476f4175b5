package expr

import (
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
)

const (
	benchCond   = "attribute_exists(#pk) AND #status = :active AND (size(tags) > :zero OR begins_with(#name, :prefix)) AND price BETWEEN :lo AND :hi"
	benchUpdate = "SET #name = :name, price = price + :delta, tags = list_append(if_not_exists(tags, :empty), :tags) REMOVE hist[0] ADD visits :one"
)

var benchNames = map[string]string{"#pk": "pk", "#status": "status", "#name": "name"}
var benchValues = map[string]av.Value{
	":active": S("ACTIVE"), ":zero": N("0"), ":prefix": S("wid"), ":lo": N("1"), ":hi": N("100"),
	":name": S("widget"), ":delta": N("1.5"), ":empty": L(), ":tags": L(S("new")), ":one": N("1"),
}
var benchItem = av.Item{
	"pk": S("item#1"), "status": S("ACTIVE"), "name": S("widget"), "price": N("42.5"),
	"tags": L(S("a"), S("b")), "hist": L(S("x"), S("y")), "visits": N("7"),
}

func BenchmarkParseConditionCold(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewParams(benchNames, benchValues, nil).Condition(benchCond); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseConditionCached(b *testing.B) {
	c := NewCache(0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewParams(benchNames, benchValues, c).Condition(benchCond); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseUpdateCold(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewParams(benchNames, benchValues, nil).Update(benchUpdate); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseUpdateCached(b *testing.B) {
	c := NewCache(0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewParams(benchNames, benchValues, c).Update(benchUpdate); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvalCondition(b *testing.B) {
	c, err := NewParams(benchNames, benchValues, nil).Condition(benchCond)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := c.Eval(benchItem); !ok {
			b.Fatal("false")
		}
	}
}

func BenchmarkApplyUpdate(b *testing.B) {
	u, err := NewParams(benchNames, benchValues, nil).Update(benchUpdate)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := u.Apply(benchItem); err != nil {
			b.Fatal(err)
		}
	}
}
