package expr

// Fallbacks for emulator/av helpers that have not landed yet (av.Equal,
// av.Compare). Delete this file once av exports them.

import (
	"bytes"

	"github.com/extenddb/extenddb/emulator/av"
)

// equalValues reports whether a and b are the same DynamoDB value: same
// type, numbers compared numerically, sets compared as sets.
func equalValues(a, b av.Value) bool {
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case av.TypeS, av.TypeB:
		return a.S == b.S
	case av.TypeN:
		return av.CompareNumbers(a.S, b.S) == 0
	case av.TypeBOOL:
		return a.Bool == b.Bool
	case av.TypeNULL:
		return true
	case av.TypeSS, av.TypeBS, av.TypeNS:
		if len(a.Set) != len(b.Set) {
			return false
		}
		for _, m := range a.Set {
			if !setHas(a.Type, b.Set, m) {
				return false
			}
		}
		return true
	case av.TypeL:
		if len(a.L) != len(b.L) {
			return false
		}
		for i := range a.L {
			if !equalValues(a.L[i], b.L[i]) {
				return false
			}
		}
		return true
	case av.TypeM:
		if len(a.M) != len(b.M) {
			return false
		}
		for k, v := range a.M {
			w, ok := b.M[k]
			if !ok || !equalValues(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// compareValues orders two scalars of the same type (S, N or B); ok is
// false for other types or mismatched types.
func compareValues(a, b av.Value) (int, bool) {
	if a.Type != b.Type {
		return 0, false
	}
	switch a.Type {
	case av.TypeS, av.TypeB:
		return bytes.Compare([]byte(a.S), []byte(b.S)), true
	case av.TypeN:
		return av.CompareNumbers(a.S, b.S), true
	}
	return 0, false
}

// setHas reports whether members contains m under the set type's equality.
func setHas(t av.Type, members []string, m string) bool {
	for _, x := range members {
		if x == m || t == av.TypeNS && av.CompareNumbers(x, m) == 0 {
			return true
		}
	}
	return false
}

// typeByName maps a type descriptor ("S", "NS", "BOOL", …) to its Type.
func typeByName(s string) av.Type {
	for t := av.TypeS; t <= av.TypeBOOL; t++ {
		if t.String() == s {
			return t
		}
	}
	return av.TypeInvalid
}
