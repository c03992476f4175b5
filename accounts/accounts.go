package accounts

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// Default is the account of an access key that no other rule places.
const Default = "000000000000"

// Rule maps access key IDs to accounts. Its zero value puts every key that
// is not 12 digits in Default.
type Rule struct {
	// Default is the account of keys no other rule places; empty means
	// the package's Default.
	Default string
	// Keys maps access key IDs to accounts (--access-key-account). A key
	// that is itself a 12-digit account ID needs no entry.
	Keys map[string]string
	// PerKey gives every other non-empty key an account of its own,
	// Derived from the key (--account-per-access-key).
	PerKey bool
}

// By says which part of a Rule placed a key.
type By int

// The parts of a Rule, in the order they are tried.
const (
	// ByKey: the key is a 12-digit account ID, and is that account.
	ByKey By = iota
	// ByMap: Rule.Keys maps the key.
	ByMap
	// ByPerKey: Rule.PerKey derived the account from the key.
	ByPerKey
	// ByDefault: no other part placed the key.
	ByDefault
)

// Account is the account of accessKeyID: the key itself when it is a
// 12-digit account ID, then Keys, then (with PerKey) Derived, then the
// default. An empty key is in the default account.
func (r Rule) Account(accessKeyID string) string {
	a, _ := r.Resolve(accessKeyID)
	return a
}

// Resolve is Account, and which part of the rule gave it.
func (r Rule) Resolve(accessKeyID string) (string, By) {
	if IsID(accessKeyID) {
		return accessKeyID, ByKey
	}
	if a, ok := r.Keys[accessKeyID]; ok && a != "" {
		return a, ByMap
	}
	if r.PerKey && accessKeyID != "" {
		return Derived(accessKeyID), ByPerKey
	}
	if r.Default != "" {
		return r.Default, ByDefault
	}
	return Default, ByDefault
}

// Derived is the account an access key ID gets under Rule.PerKey: 12
// digits from a hash of the key, so the same key finds the same data after
// a restart.
func Derived(accessKeyID string) string {
	sum := sha256.Sum256([]byte(accessKeyID))
	return fmt.Sprintf("%012d", binary.BigEndian.Uint64(sum[:8])%1_000_000_000_000)
}

// IsID reports whether s is a 12-digit AWS account ID.
func IsID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// IsRegion reports whether s is shaped like an AWS Region name: groups of
// lower-case letters and digits joined by single hyphens (us-east-1,
// us-gov-west-1), or a simple made-up name such as "local". It keeps the
// ARNs built from it well formed.
func IsRegion(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && s[i-1] != '-':
		default:
			return false
		}
	}
	return true
}
