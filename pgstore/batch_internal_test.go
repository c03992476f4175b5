package pgstore

import (
	"fmt"
	"testing"
)

func TestLastWins(t *testing.T) {
	o := func(k, v string) op { return op{k: []byte(k), v: []byte(v)} }
	keys, values := lastWins([]op{o("b", "1"), o("a", "2"), o("b", "3"), o("c", "4"), o("a", "5")})
	got := fmt.Sprintf("%s %s", keys, values)
	if want := "[a b c] [5 3 4]"; got != want {
		t.Fatalf("lastWins = %s; want %s", got, want)
	}
}
