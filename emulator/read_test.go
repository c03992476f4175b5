package emulator

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
)

func sv(s string) av.Value { return av.Value{Type: av.TypeS, S: s} }
func nv(s string) av.Value { return av.Value{Type: av.TypeN, S: s} }

// inRange reports whether k is in [lower, upper) (nil upper: open).
func inRange(k, lower, upper []byte) bool {
	return bytes.Compare(k, lower) >= 0 && (upper == nil || bytes.Compare(k, upper) < 0)
}

// checkSortBounds asserts that, for every candidate sort-key value, the
// storage key of an item (and of an index entry, which has the table key
// after the sort key) falls in sortBounds exactly when the term matches.
func checkSortBounds(t *testing.T, term *expr.KeyTerm, candidates []av.Value) {
	t.Helper()
	p := appendPartition([]byte{keyspace.FamItem, 1, 2, 3}, sv("pk"))
	lower, upper := sortBounds(p, term)
	for _, c := range candidates {
		k := av.AppendKey(append([]byte(nil), p...), c)
		ik := av.AppendKey(append([]byte(nil), k...), sv("table-key"))
		want := term == nil || term.Match(c)
		if got := inRange(k, lower, upper); got != want {
			t.Fatalf("%s %v: item key of %q in range = %v, want %v", term.Op, term.Values, c.S, got, want)
		}
		if got := inRange(ik, lower, upper); got != want {
			t.Fatalf("%s %v: index key of %q in range = %v, want %v", term.Op, term.Values, c.S, got, want)
		}
	}
	// Nothing of a neighbouring partition is in range.
	other := av.AppendKey(appendPartition([]byte{keyspace.FamItem, 1, 2, 3}, sv("pk2")), sv(""))
	if inRange(other, lower, upper) {
		t.Fatal("another partition is in range")
	}
}

func TestSortBounds(t *testing.T) {
	strs := []av.Value{sv("\x00"), sv("\x00\x00"), sv("\x00\x01"), sv("a"), sv("a\x00"), sv("a\x00\xff"), sv("a\xff"), sv("aa"), sv("ab"), sv("b"), sv("\xff"), sv("\xff\xff")}
	nums := []av.Value{nv("-100"), nv("-1"), nv("-0.5"), nv("0"), nv("0.5"), nv("1"), nv("1.5"), nv("2"), nv("10"), nv("100"), nv("1e10")}
	for _, op := range []string{"EQ", "LT", "LE", "GT", "GE"} {
		for _, v := range strs {
			checkSortBounds(t, &expr.KeyTerm{Op: op, Values: []av.Value{v}}, strs)
		}
		for _, v := range nums {
			checkSortBounds(t, &expr.KeyTerm{Op: op, Values: []av.Value{v}}, nums)
		}
	}
	for i, a := range nums {
		for _, b := range nums[i:] {
			checkSortBounds(t, &expr.KeyTerm{Op: "BETWEEN", Values: []av.Value{a, b}}, nums)
		}
	}
	for _, v := range append(strs, sv("")) {
		checkSortBounds(t, &expr.KeyTerm{Op: "BEGINS_WITH", Values: []av.Value{v}}, strs)
	}
	checkSortBounds(t, nil, strs)
}

func FuzzSortBounds(f *testing.F) {
	f.Add("GE", "a", "b\x00c")
	f.Add("BEGINS_WITH", "a\x00", "a\x00\x01")
	f.Add("LT", "", "\x00")
	ops := []string{"EQ", "LT", "LE", "GT", "GE", "BEGINS_WITH"}
	f.Fuzz(func(t *testing.T, op, v, c string) {
		for _, o := range ops {
			if o == op {
				checkSortBounds(t, &expr.KeyTerm{Op: op, Values: []av.Value{sv(v)}}, []av.Value{sv(c), sv(v), sv(v + c), sv(c + v)})
			}
		}
	})
}

func TestSegmentBoundsPartitionTheHashSpace(t *testing.T) {
	prefix := []byte{keyspace.FamItem, 9, 9}
	hashKey := func(h uint32) []byte { return binary.BigEndian.AppendUint32(append([]byte(nil), prefix...), h) }
	probes := []uint32{0, 1, 1 << 31, 1<<31 - 1, 1<<32 - 1, 12345, 0x7fff_0000, 0xdead_beef}
	for _, total := range []int64{1, 2, 3, 7, 10, 1000, 999_999, 1_000_000} {
		segs := []int64{0, 1, total / 2, total - 2, total - 1}
		for _, seg := range segs {
			if seg < 0 || seg >= total {
				continue
			}
			lower, upper := segmentBounds(prefix, seg, total)
			if seg == 0 && !bytes.Equal(lower, hashKey(0)) {
				t.Fatalf("total %d: segment 0 starts at %x", total, lower)
			}
			if seg == total-1 && !bytes.Equal(upper, kv.PrefixEnd(prefix)) {
				t.Fatalf("total %d: last segment ends at %x", total, upper)
			}
			if seg+1 < total {
				next, _ := segmentBounds(prefix, seg+1, total)
				if !bytes.Equal(upper, next) {
					t.Fatalf("total %d: segment %d ends at %x, %d starts at %x", total, seg, upper, seg+1, next)
				}
			}
		}
		// Every probed hash is in exactly one segment (checked on the
		// segments around it, which is where an off-by-one would show).
		for _, h := range probes {
			seg := int64(uint64(h) * uint64(total) >> 32)
			n := 0
			for s := max(0, seg-1); s <= min(total-1, seg+1); s++ {
				lower, upper := segmentBounds(prefix, s, total)
				k := append(hashKey(h), 'x')
				if inRange(k, lower, upper) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("total %d: hash %x in %d segments", total, h, n)
			}
		}
	}
}

func TestSelectRules(t *testing.T) {
	s := func(x string) *string { return &x }
	cases := []struct {
		sel            *string
		index, pe, atg bool
		want, err      string
	}{
		{nil, false, false, false, selAll, ""},
		{nil, true, false, false, selProjected, ""},
		{nil, true, true, false, selSpecific, ""},
		{nil, false, false, true, selSpecific, ""},
		{s(selCount), false, false, false, selCount, ""},
		{s(selCount), false, true, false, "", "Cannot specify the ProjectionExpression when choosing to get only the Count"},
		{s(selCount), false, false, true, "", "Cannot specify the AttributesToGet when choosing to get only the Count"},
		{s(selAll), true, false, true, "", "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES"},
		{s(selProjected), false, false, false, "", "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"},
		{s(selProjected), false, true, false, "", "Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES"},
		{s(selSpecific), true, false, false, "", "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"},
		{s(selSpecific), false, false, true, selSpecific, ""},
	}
	for i, tc := range cases {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			got, err := selectRules(tc.sel, tc.index, tc.pe, tc.atg)
			if tc.err != "" {
				var e *api.Error
				if err == nil || !errors.As(err, &e) || e.Message != tc.err {
					t.Fatalf("got %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q %v, want %q", got, err, tc.want)
			}
		})
	}
}
