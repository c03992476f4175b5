package av

// Size is v's size by DynamoDB's rules (Developer Guide, "DynamoDB item
// sizes and formats"): S its UTF-8
// bytes, B its raw bytes, N by significant digits, sets the sum of their
// members, L 3 + Σ(1 + element), M 3 + Σ(1 + name bytes + value), NULL and
// BOOL 1.
func Size(v Value) int {
	switch v.Type {
	case TypeS, TypeB:
		return len(v.S)
	case TypeN:
		return numberSize(v.S)
	case TypeSS, TypeBS:
		n := 0
		for _, s := range v.Set {
			n += len(s)
		}
		return n
	case TypeNS:
		n := 0
		for _, s := range v.Set {
			n += numberSize(s)
		}
		return n
	case TypeL:
		n := 3
		for _, e := range v.L {
			n += 1 + Size(e)
		}
		return n
	case TypeM:
		n := 3
		for k, e := range v.M {
			n += 1 + len(k) + Size(e)
		}
		return n
	case TypeNULL, TypeBOOL:
		return 1
	}
	return 0
}

// ItemSize is the size of an item: Σ over attributes of the name's UTF-8
// bytes plus the value's Size.
func ItemSize(it Item) int {
	n := 0
	for k, v := range it {
		n += len(k) + Size(v)
	}
	return n
}

// numberSize is dynalite's empirical rule, checked against live DynamoDB:
// zero is 1 byte; otherwise 1 + ceil(digits/2), plus 1 when the digit count
// and the exponent of the leading digit are both even (the digits then
// straddle a base-100 boundary), plus 1 when negative. It agrees with every
// literal of the 2026 eu-west-2 capture (e.g. 3.14159 → 5, 123456 → 4).
func numberSize(s string) int {
	x, ok := parseNumber(s)
	if !ok {
		return len(s)
	}
	if x.n == 0 {
		return 1
	}
	n := 1 + (x.n+1)/2
	if x.n%2 == 0 && x.exp%2 == 0 {
		n++
	}
	if x.neg {
		n++
	}
	return n
}
