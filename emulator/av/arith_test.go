package av

import (
	"errors"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// decimalArith is the arithmetic AddNumbers and SubtractNumbers had before
// they had their own: a general decimal library's exact sum of the
// operands' canonical texts (300 digits hold any sum of in-range
// operands), checked like a stored number. It is the oracle of
// FuzzArithMatchesDecimal.
func decimalArith(a, b string, sub bool) (string, error) {
	x, err := parseValid(a)
	if err != nil {
		return "", err
	}
	y, err := parseValid(b)
	if err != nil {
		return "", err
	}
	var da, db, r apd.Decimal
	if _, _, err := da.SetString(string(x.appendCanonical(nil))); err != nil {
		return "", err
	}
	if _, _, err := db.SetString(string(y.appendCanonical(nil))); err != nil {
		return "", err
	}
	ctx := apd.Context{Precision: 300, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent, Rounding: apd.RoundHalfEven}
	if sub {
		_, err = ctx.Sub(&r, &da, &db)
	} else {
		_, err = ctx.Add(&r, &da, &db)
	}
	if err != nil {
		return "", validationErr(msgOverflow)
	}
	out, err := CanonicalNumber(r.Text('f'))
	var ve *ValidationError
	if errors.As(err, &ve) && ve.Message == msgTooManyDigits {
		return "", validationErr(msgOverflow)
	}
	return out, err
}

// FuzzArithMatchesDecimal holds AddNumbers and SubtractNumbers to the
// decimal library's answers, text and error alike.
func FuzzArithMatchesDecimal(f *testing.F) {
	nines := strings.Repeat("9", 38)
	for _, s := range [][2]string{
		{"1", "2"}, {"41", "1"}, {"-5", "3"}, {"0.1", "0.2"}, {"1e10", "1"},
		{"1e2", "1e2"}, {"0", "0e-5"}, {"0.000", "-0"},
		{nines, "0"}, {nines, "1"}, {nines, "0.1"}, {nines + "e-167", nines + "e-167"},
		{"1." + nines[1:] + "e-93", "1." + nines[1:] + "e-93"},
		{"9.9999999999999999999999999999999999999E+125", "1E+125"},
		{"1e50", "1"}, {"1e20", "1e-20"}, {"1e-130", "1.1e-130"}, {"1e-130", "1e-130"},
		{"999999999999999999", "1"}, {"-999999999999999999", "-999999999999999999"},
		{"123456789012345678", "0.1"}, {"1e17", "1e-1"}, {"9999999999999999999", "9999999999999999999"}, {"999999999999999999", "0.9"}, {"x", "1"}, {"1", ""},
	} {
		f.Add(s[0], s[1], false)
		f.Add(s[0], s[1], true)
	}
	f.Fuzz(func(t *testing.T, a, b string, sub bool) {
		want, wantErr := decimalArith(a, b, sub)
		got, err := arith(a, b, sub)
		if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("arith(%q, %q, sub=%v) = %q, %v; the decimal library: %q, %v", a, b, sub, got, err, want, wantErr)
		}
	})
}
