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

// Account is the account of accessKeyID: the key itself when it is a
// 12-digit account ID, then Keys, then (with PerKey) Derived, then the
// default. An empty key is in the default account.
func (r Rule) Account(accessKeyID string) string {
	if IsID(accessKeyID) {
		return accessKeyID
	}
	if a, ok := r.Keys[accessKeyID]; ok && a != "" {
		return a
	}
	if r.PerKey && accessKeyID != "" {
		return Derived(accessKeyID)
	}
	if r.Default != "" {
		return r.Default
	}
	return Default
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
