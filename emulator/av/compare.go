package av

// Equal reports whether a and b are the same DynamoDB value: numbers by value
// (1.0 == 1 == 1e0), sets as sets (order ignored), M and L deeply. Values of
// different types, and invalid values, are never equal.
func Equal(a, b Value) bool {
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case TypeS, TypeB:
		return a.S == b.S
	case TypeN:
		return CompareNumbers(a.S, b.S) == 0
	case TypeBOOL:
		return a.Bool == b.Bool
	case TypeNULL:
		return true
	case TypeSS, TypeBS:
		if len(a.Set) > 16 || len(b.Set) > 16 {
			return sameKeys(setOf(a.Set, false), setOf(b.Set, false))
		}
		return setsEqual(a.Set, b.Set, func(x, y string) bool { return x == y })
	case TypeNS:
		if len(a.Set) > 16 || len(b.Set) > 16 {
			return sameKeys(setOf(a.Set, true), setOf(b.Set, true))
		}
		return setsEqual(a.Set, b.Set, func(x, y string) bool { return CompareNumbers(x, y) == 0 })
	case TypeL:
		if len(a.L) != len(b.L) {
			return false
		}
		for i := range a.L {
			if !Equal(a.L[i], b.L[i]) {
				return false
			}
		}
		return true
	case TypeM:
		return mapsEqual(a.M, b.M)
	}
	return false
}

// EqualItems reports whether two items have the same attributes with Equal
// values.
func EqualItems(a, b Item) bool { return mapsEqual(a, b) }

func mapsEqual(a, b map[string]Value) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !Equal(av, bv) {
			return false
		}
	}
	return true
}

// setOf builds a lookup set for large sets; numbers are keyed by their
// canonical text so that equal values collide.
func setOf(set []string, numbers bool) map[string]struct{} {
	m := make(map[string]struct{}, len(set))
	for _, s := range set {
		if numbers {
			s = canonicalOrRaw(s)
		}
		m[s] = struct{}{}
	}
	return m
}

func sameKeys(a, b map[string]struct{}) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// setsEqual compares two sets as sets: every member of each is in the other.
func setsEqual(a, b []string, eq func(x, y string) bool) bool {
	return contains(a, b, eq) && contains(b, a, eq)
}

func contains(sup, sub []string, eq func(x, y string) bool) bool {
	for _, y := range sub {
		found := false
		for _, x := range sup {
			if eq(x, y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Compare orders two scalar key-type values as DynamoDB does: S bytewise by
// UTF-8, N numerically, B bytewise (unsigned). ok is false when the values are
// not both S, both N or both B.
func Compare(a, b Value) (c int, ok bool) {
	if a.Type != b.Type {
		return 0, false
	}
	switch a.Type {
	case TypeS, TypeB:
		return compareStrings(a.S, b.S), true
	case TypeN:
		return CompareNumbers(a.S, b.S), true
	}
	return 0, false
}
