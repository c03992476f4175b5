package accounts

import (
	"regexp"
	"testing"
)

func TestAccount(t *testing.T) {
	keys := map[string]string{"AKIAPROD00000000": "111111111111", "999999999999": "222222222222"}
	for _, c := range []struct {
		name string
		rule Rule
		key  string
		want string
	}{
		{"12-digit key is its account", Rule{}, "123456789012", "123456789012"},
		{"12-digit key wins over the map", Rule{Keys: keys}, "999999999999", "999999999999"},
		{"mapped key", Rule{Keys: keys}, "AKIAPROD00000000", "111111111111"},
		{"unmapped key: package default", Rule{Keys: keys}, "test", Default},
		{"unmapped key: configured default", Rule{Default: "333333333333"}, "test", "333333333333"},
		{"per key", Rule{PerKey: true}, "test", Derived("test")},
		{"map wins over per key", Rule{Keys: keys, PerKey: true}, "AKIAPROD00000000", "111111111111"},
		{"empty key under per key: default", Rule{PerKey: true, Default: "333333333333"}, "", "333333333333"},
		{"13 digits is a key", Rule{}, "1234567890123", Default},
	} {
		if got := c.rule.Account(c.key); got != c.want {
			t.Errorf("%s: Account(%q) = %s, want %s", c.name, c.key, got, c.want)
		}
	}
	for key, want := range map[string]By{"123456789012": ByKey, "AKIAPROD00000000": ByMap, "other": ByPerKey, "": ByDefault} {
		if _, by := (Rule{Keys: keys, PerKey: true}).Resolve(key); by != want {
			t.Errorf("Resolve(%q) by %d, want %d", key, by, want)
		}
	}
	if d := Derived("test"); !IsID(d) || d == Derived("other") {
		t.Errorf("Derived(test) = %s: want 12 digits, distinct per key", d)
	}
}

// FuzzIsRegion holds IsRegion to the pattern serve and ReplicaUpdates
// checked Regions with before it: ^[a-z0-9]+(-[a-z0-9]+)*$.
func FuzzIsRegion(f *testing.F) {
	re := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, s := range []string{"us-east-1", "us-gov-west-1", "local", "", "-", "a-", "-a", "a--b", "US-east-1", "eu_west-1", "a-b-c", "1", "ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsRegion(s), re.MatchString(s); got != want {
			t.Fatalf("IsRegion(%q) = %v, want %v", s, got, want)
		}
	})
}
