package shape

import (
	"regexp"
	"testing"
)

// The pattern DynamoDB documents for table, index and stream names; ValidName
// must agree with it on every string.
var namePatternRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)

func TestValidNameMatchesPattern(t *testing.T) {
	for _, s := range []string{"", "a", "Orders_2024.v-1", "a b", "a/b", "é", "tab\t", "-._", "x\x00", "Z9", "abc:def"} {
		if got, want := ValidName(s), namePatternRE.MatchString(s); got != want {
			t.Errorf("ValidName(%q) = %v, the pattern says %v", s, got, want)
		}
	}
	// Every single byte, alone and after a valid prefix.
	for b := range 256 {
		for _, s := range []string{string([]byte{byte(b)}), "ok" + string([]byte{byte(b)})} {
			if got, want := ValidName(s), namePatternRE.MatchString(s); got != want {
				t.Errorf("ValidName(%q) = %v, the pattern says %v", s, got, want)
			}
		}
	}
}

func FuzzValidName(f *testing.F) {
	f.Add("Orders")
	f.Add("a b")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidName(s), namePatternRE.MatchString(s); got != want {
			t.Errorf("ValidName(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}

func BenchmarkValidName(b *testing.B) {
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			ValidName("orders-global_2024.v1")
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			namePatternRE.MatchString("orders-global_2024.v1")
		}
	})
}
