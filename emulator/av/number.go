package av

import (
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// DynamoDB's number limits: 38 significant digits, magnitudes from 1E-130
// to 9.9999999999999999999999999999999999999E+125.
const (
	MaxDigits   = 38
	MaxExponent = 125
	MinExponent = -130
)

// number is a parsed decimal: value = ±0.d1d2…dn × 10^(exp+1), i.e. d1 is
// the digit of 10^exp. Zero has n == 0. Only the first MaxDigits digits are
// kept; n counts them all.
type number struct {
	neg bool
	n   int
	exp int
	// zexp is, for a zero, the exponent it is written with (BigDecimal's
	// adjusted exponent: "0e126" → 126, "0.0e126" → 125), which DynamoDB
	// range-checks like any other number's.
	zexp int
	dig  [MaxDigits]byte
}

func (x *number) digits() string {
	k := min(x.n, MaxDigits)
	return unsafe.String(&x.dig[0], k)
}

// parseNumber parses the text DynamoDB accepts as a Number (Java BigDecimal's
// grammar: optional sign, digits with an optional point, optional exponent).
// ok is false when s is not a number at all.
func parseNumber(s string) (x number, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		x.neg = s[i] == '-'
		i++
	}
	var (
		mantDigits int
		seenPoint  bool
		intLen     int // digits before the point
		firstNZ    = -1
		pending    int // zeros after the last non-zero digit
	)
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if seenPoint {
				return x, false
			}
			seenPoint = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		pos := mantDigits
		mantDigits++
		if !seenPoint {
			intLen++
		}
		if c == '0' {
			if firstNZ >= 0 {
				pending++
			}
			continue
		}
		if firstNZ < 0 {
			firstNZ = pos
		}
		for ; pending > 0; pending-- {
			if x.n < MaxDigits {
				x.dig[x.n] = '0'
			}
			x.n++
		}
		if x.n < MaxDigits {
			x.dig[x.n] = c
		}
		x.n++
	}
	if mantDigits == 0 {
		return x, false
	}
	e := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		start := i
		// DynamoDB reads the exponent as a 64-bit integer: past that the
		// text cannot be converted at all; within it, any exponent past
		// ±1e9 is out of range, so e saturates there.
		var u uint64
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			d := uint64(s[i] - '0')
			if u > (1<<64-1-d)/10 {
				return x, false
			}
			u = u*10 + d
		}
		if i == start {
			return x, false
		}
		if u > 1<<63-1 && !(eneg && u == 1<<63) {
			return x, false
		}
		e = int(min(u, 1e9))
		if eneg {
			e = -e
		}
	}
	if i != len(s) {
		return x, false
	}
	if x.n == 0 {
		// Zero: the sign is never observable (canonical text, order, size).
		x.zexp = e - (mantDigits - intLen)
		return x, true
	}
	x.exp = intLen - 1 - firstNZ + e
	return x, true
}

// check returns DynamoDB's message for a parsed number out of its limits.
func (x *number) check() string {
	if x.n == 0 {
		switch {
		case x.zexp > MaxExponent:
			return msgOverflow
		case x.zexp < MinExponent:
			return msgUnderflow
		}
		return ""
	}
	switch {
	case x.exp > MaxExponent:
		return msgOverflow
	case x.exp < MinExponent:
		return msgUnderflow
	case x.n > MaxDigits:
		return msgTooManyDigits
	}
	return ""
}

func notANumber(s string) error {
	if s == "" {
		return validationErr(msgNotNumber)
	}
	return validationErr(msgNotNumber + ": " + s)
}

// parseValid parses s and applies DynamoDB's limits.
func parseValid(s string) (number, error) {
	x, ok := parseNumber(s)
	if !ok {
		return x, notANumber(s)
	}
	if msg := x.check(); msg != "" {
		return x, validationErr(msg)
	}
	return x, nil
}

// appendCanonical appends x in DynamoDB's canonical text: plain notation, no
// leading or trailing zeros, no exponent ("1.0"→"1", "1e2"→"100",
// "-0"→"0", "1E-3"→"0.001"). x must be within limits.
func (x *number) appendCanonical(dst []byte) []byte {
	if x.n == 0 {
		return append(dst, '0')
	}
	if x.neg {
		dst = append(dst, '-')
	}
	d := x.digits()
	switch {
	case x.exp >= len(d)-1:
		dst = append(dst, d...)
		for range x.exp - (len(d) - 1) {
			dst = append(dst, '0')
		}
	case x.exp < 0:
		dst = append(dst, '0', '.')
		for range -x.exp - 1 {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default:
		dst = append(dst, d[:x.exp+1]...)
		dst = append(dst, '.')
		dst = append(dst, d[x.exp+1:]...)
	}
	return dst
}

// CanonicalNumber validates s as a DynamoDB Number and returns its canonical
// text, or a *ValidationError with DynamoDB's message. Already-canonical
// input is returned without allocating.
func CanonicalNumber(s string) (string, error) {
	x, err := parseValid(s)
	if err != nil {
		return "", err
	}
	var buf [200]byte
	out := x.appendCanonical(buf[:0])
	if string(out) == s {
		return s, nil
	}
	return string(out), nil
}

// cmpNumber compares two parsed numbers.
func cmpNumber(a, b *number) int {
	sa, sb := a.sign(), b.sign()
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	c := 0
	switch {
	case a.exp < b.exp:
		c = -1
	case a.exp > b.exp:
		c = 1
	default:
		da, db := a.digits(), b.digits()
		switch {
		case da < db:
			c = -1
		case da > db:
			c = 1
		}
	}
	return c * sa
}

func (x *number) sign() int {
	switch {
	case x.n == 0:
		return 0
	case x.neg:
		return -1
	}
	return 1
}

// CompareNumbers compares two DynamoDB numbers by value: -1, 0 or +1.
// Inputs are expected to be valid; text that is not a number sorts before
// every number (so the order stays total).
func CompareNumbers(a, b string) int {
	x, okx := parseNumber(a)
	y, oky := parseNumber(b)
	switch {
	case !okx && !oky:
		return compareStrings(a, b)
	case !okx:
		return -1
	case !oky:
		return 1
	}
	return cmpNumber(&x, &y)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// AddNumbers returns a+b in canonical text, or DynamoDB's overflow or
// underflow error for a result it cannot store (a result of more than 38
// significant digits is an overflow too, as DynamoDB reports it).
func AddNumbers(a, b string) (string, error) {
	return arith(a, b, false)
}

// SubtractNumbers returns a-b in canonical text (errors as AddNumbers).
func SubtractNumbers(a, b string) (string, error) {
	return arith(a, b, true)
}

// arith computes a±b exactly: every in-range operand has at most 38 digits
// between 10^125 and 10^-167, so the sum of the two coefficients aligned
// on the smaller operand's last digit is exact (at most 294 digits). The
// result, written as its coefficient and the exponent of its last digit,
// is checked against DynamoDB's limits like a stored number: a zero keeps
// that exponent, as the General Decimal Arithmetic's addition keeps it
// (x - x of 38 digits near 1E-130 is an underflow, as it always was here;
// the service's answer is not known).
//
// (Its own arithmetic rather than a decimal library's: cockroachdb/apd's
// package initialiser alone took 3 ms of every start; see
// docs/performance.md, "Eighth round".)
func arith(a, b string, sub bool) (string, error) {
	x, err := parseValid(a)
	if err != nil {
		return "", err
	}
	y, err := parseValid(b)
	if err != nil {
		return "", err
	}
	if sub {
		y.neg = !y.neg
	}
	sx, sy := x.lastExp(), y.lastExp()
	s := min(sx, sy)
	var buf [320]byte
	text := buf[:0]
	if x.n+sx-s <= 18 && y.n+sy-s <= 18 {
		// Both aligned coefficients are below 10^18: their sum fits an int64.
		r := x.coefficient(sx-s) + y.coefficient(sy-s)
		text = strconv.AppendInt(text, r, 10)
	} else {
		var r, t big.Int
		x.bigCoefficient(&r, sx-s)
		y.bigCoefficient(&t, sy-s)
		text = r.Add(&r, &t).Append(text, 10)
	}
	text = append(text, 'E')
	text = strconv.AppendInt(text, int64(s), 10)
	r, ok := parseNumber(unsafe.String(&text[0], len(text)))
	if !ok {
		return "", validationErr(msgOverflow) // unreachable: the text is a number
	}
	switch msg := r.check(); msg {
	case "":
	case msgTooManyDigits:
		// A sum in range that needs more than 38 significant digits:
		// DynamoDB answers it with its overflow text (1e50 + 1, observed
		// by ScyllaDB's Alternator tests run against the service).
		return "", validationErr(msgOverflow)
	default:
		return "", validationErr(msg)
	}
	return string(r.appendCanonical(buf[:0])), nil
}

// lastExp is the exponent of x's last digit (0 for a zero). x must be
// within limits.
func (x *number) lastExp() int {
	if x.n == 0 {
		return 0
	}
	return x.exp - x.n + 1
}

// coefficient returns x's signed digits times 10^shift; the result must
// have at most 18 digits.
func (x *number) coefficient(shift int) int64 {
	var c int64
	for _, d := range []byte(x.digits()) {
		c = c*10 + int64(d-'0')
	}
	for range shift {
		c *= 10
	}
	if x.neg {
		return -c
	}
	return c
}

// bigCoefficient sets z to x's signed digits times 10^shift.
func (x *number) bigCoefficient(z *big.Int, shift int) {
	if x.n == 0 {
		z.SetInt64(0)
		return
	}
	// A copy: the digits' text points into x, which would otherwise
	// leave the stack on every call of arith.
	z.SetString(strings.Clone(x.digits()), 10)
	if shift > 0 {
		var p big.Int
		z.Mul(z, p.Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
	}
	if x.neg {
		z.Neg(z)
	}
}

// unsafeBytes views s as bytes for read-only use (base64 encoding).
func unsafeBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// Canonical returns v with every number (N, NS members, inside M and L) in
// canonical text, as DynamoDB returns stored values. v is not modified; when
// nothing changes v itself is returned, without allocating.
func (v Value) Canonical() Value {
	c, _ := canonical(v)
	return c
}

// Canonical returns it with every number in canonical text (see
// Value.Canonical); it returns it itself when nothing changes.
func (it Item) Canonical() Item {
	if m, changed := canonicalMap(it); changed {
		return m
	}
	return it
}

// canonical is Value.Canonical reporting whether anything changed, so that
// containers are copied only along changed paths.
func canonical(v Value) (Value, bool) {
	switch v.Type {
	case TypeN:
		c := canonicalOrRaw(v.S)
		if c == v.S {
			return v, false
		}
		v.S = c
		return v, true
	case TypeNS:
		for i, s := range v.Set {
			if canonicalOrRaw(s) == s {
				continue
			}
			set := make([]string, len(v.Set))
			copy(set, v.Set[:i])
			for j := i; j < len(v.Set); j++ {
				set[j] = canonicalOrRaw(v.Set[j])
			}
			v.Set = set
			return v, true
		}
	case TypeL:
		for i, e := range v.L {
			c, changed := canonical(e)
			if !changed {
				continue
			}
			l := make([]Value, len(v.L))
			copy(l, v.L[:i])
			l[i] = c
			for j := i + 1; j < len(v.L); j++ {
				l[j], _ = canonical(v.L[j])
			}
			v.L = l
			return v, true
		}
	case TypeM:
		if m, changed := canonicalMap(v.M); changed {
			v.M = m
			return v, true
		}
	}
	return v, false
}

func canonicalMap(m map[string]Value) (map[string]Value, bool) {
	for _, e := range m {
		if _, changed := canonical(e); !changed {
			continue
		}
		out := make(map[string]Value, len(m))
		for k, e := range m {
			out[k], _ = canonical(e)
		}
		return out, true
	}
	return m, false
}

// paramNumberProblem is DynamoDB's message for a number passed as a PartiQL
// parameter that it reads differently from an attribute value, or "". A
// parameter is read as Java's BigDecimal reads a string: an exponent or a
// scale that does not fit a 32-bit integer cannot be converted, and the
// magnitude check works on precision minus scale in 32-bit arithmetic, so
// it wraps ("1e2147483647" underflows).
func paramNumberProblem(s string) string {
	x, ok := parseNumber(s)
	if !ok || x.n == 0 {
		return "" // ValidateValue answers these
	}
	mant, exp := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			mant, exp = s[:i], s[i+1:]
			break
		}
	}
	var e int64
	if exp != "" {
		var err error
		if e, err = strconv.ParseInt(exp, 10, 64); err != nil {
			return ""
		}
	}
	frac, digits, lead := 0, 0, 0
	seenPoint, seenNZ := false, false
	for i := 0; i < len(mant); i++ {
		c := mant[i]
		switch {
		case c == '.':
			seenPoint = true
		case c >= '0' && c <= '9':
			digits++
			if seenPoint {
				frac++
			}
			if c != '0' {
				seenNZ = true
			} else if !seenNZ {
				lead++
			}
		}
	}
	scale := int64(frac) - e
	if e < math.MinInt32 || e > math.MaxInt32 || scale < math.MinInt32 || scale > math.MaxInt32 {
		return msgNotNumber + ": " + s
	}
	precision := int64(digits - lead)
	adj := int64(int32(precision-scale)) - 1
	switch {
	case adj > MaxExponent:
		return msgOverflow
	case adj < MinExponent:
		return msgUnderflow
	}
	return ""
}

// ValidateParam checks a PartiQL parameter: numbers as DynamoDB reads a
// parameter (paramNumberProblem), at any depth, then as ValidateValue.
func ValidateParam(v Value) error {
	if msg := paramProblem(v); msg != "" {
		return validationErr(msg)
	}
	return ValidateValue(v)
}

func paramProblem(v Value) string {
	switch v.Type {
	case TypeN:
		return paramNumberProblem(v.S)
	case TypeNS:
		for _, s := range v.Set {
			if msg := paramNumberProblem(s); msg != "" {
				return msg
			}
		}
	case TypeL:
		for _, e := range v.L {
			if msg := paramProblem(e); msg != "" {
				return msg
			}
		}
	case TypeM:
		keys := make([]string, 0, len(v.M))
		for k := range v.M {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if msg := paramProblem(v.M[k]); msg != "" {
				return msg
			}
		}
	}
	return ""
}
