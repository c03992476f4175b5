package capacity_test

import (
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/capacity"
)

func s(v string) av.Value { return av.Value{Type: av.TypeS, S: v} }

func sum(del, put float64) float64 { return del + put }

func TestCapacityUnits(t *testing.T) {
	for _, tc := range []struct {
		bytes      int
		consistent bool
		want       float64
	}{
		{0, false, 0.5}, {0, true, 1}, {4096, true, 1}, {4097, true, 2}, {8192, false, 1}, {40 * 1024, false, 5},
	} {
		if got := capacity.ReadUnits(tc.bytes, tc.consistent); got != tc.want {
			t.Errorf("capacity.ReadUnits(%d, %v) = %v, want %v", tc.bytes, tc.consistent, got, tc.want)
		}
	}
	for _, tc := range []struct {
		bytes int
		want  float64
	}{{0, 1}, {1, 1}, {1024, 1}, {1025, 2}, {310 * 1024, 310}} {
		if got := capacity.WriteUnits(tc.bytes); got != tc.want {
			t.Errorf("WriteUnits(%d) = %v, want %v", tc.bytes, got, tc.want)
		}
	}
	small, big := av.Item{"a": s("x")}, av.Item{"a": s(string(make([]byte, 1500)))}
	for _, tc := range []struct {
		name           string
		old, new       av.Item
		oldKey, newKey string
		want           float64
	}{
		{"absent both", nil, nil, "", "", 0},
		{"new entry", nil, big, "", "k", 2},
		{"removed entry", big, nil, "k", "", 2},
		{"key change", small, big, "k1", "k2", 3},
		{"projection change", small, big, "k", "k", 2},
		{"no visible change", small, av.Item{"a": s("x")}, "k", "k", 0},
	} {
		if got := sum(capacity.IndexWrites(tc.old, tc.new, []byte(tc.oldKey), []byte(tc.newKey))); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
