package av

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// MaxDepth is DynamoDB's nesting limit: a top-level attribute is level 1 and
// each M or L adds one, so a scalar inside 31 maps is the deepest accepted.
const MaxDepth = 32

// MaxItemSize is DynamoDB's item size limit in bytes (names included).
const MaxItemSize = 400 * 1024

// Key size limits (bytes of the key value, as Size measures it).
const (
	MaxHashKeySize  = 2048
	MaxRangeKeySize = 1024
)

// ValidateValue checks v as DynamoDB checks an AttributeValue in a request:
// exactly one type, NULL true, non-empty sets without duplicates, valid
// numbers, recursively through M and L. The error is a *ValidationError whose
// text is DynamoDB's. Empty S and B are valid here (non-key attributes); key
// attributes are checked by ValidateKeyAttr.
func ValidateValue(v Value) error {
	switch v.Type {
	case TypeS, TypeB, TypeBOOL, TypeNULL:
		return nil
	case TypeN:
		_, err := parseValid(v.S)
		return err
	case TypeSS:
		if len(v.Set) == 0 {
			return validationErr(msgEmptySS)
		}
		if hasDuplicateStrings(v.Set) {
			return validationErr(fmt.Sprintf(msgDuplicatesSSFmt, strings.Join(v.Set, ", ")))
		}
		return nil
	case TypeBS:
		if len(v.Set) == 0 {
			return validationErr(msgEmptyBS)
		}
		if hasDuplicateStrings(v.Set) {
			enc := make([]string, len(v.Set))
			for i, b := range v.Set {
				enc[i] = base64.StdEncoding.EncodeToString(unsafeBytes(b))
			}
			return validationErr(fmt.Sprintf(msgDuplicatesBSFmt, strings.Join(enc, ", ")))
		}
		return nil
	case TypeNS:
		if len(v.Set) == 0 {
			return validationErr(msgEmptyNS)
		}
		for _, s := range v.Set {
			if _, err := parseValid(s); err != nil {
				return err
			}
		}
		if hasDuplicateNumbers(v.Set) {
			return validationErr(msgNSDuplicates)
		}
		return nil
	case TypeL:
		for _, e := range v.L {
			if err := ValidateValue(e); err != nil {
				return err
			}
		}
		return nil
	case TypeM:
		return validateMap(v.M)
	}
	if v.Invalid != "" {
		return validationErr(v.Invalid)
	}
	return validationErr(msgEmptyAV)
}

// validateMap validates the values of m. Go maps have no order, so on failure
// it reports the error of the first failing name in byte order, making the
// message deterministic. Each value is validated once: validating the
// failing ones again in order would double the work at every level of
// nesting, and a value 32 maps deep would take 2^32 steps.
func validateMap(m map[string]Value) error {
	var firstErr error
	first := ""
	for k, e := range m {
		if firstErr != nil && k > first {
			continue
		}
		err := ValidateValue(e)
		if len(k) > maxNameBytes {
			// A map entry's name has the attribute name's limit.
			err = validationErr(msgNameTooLarge)
		}
		if err != nil {
			firstErr, first = err, k
		}
	}
	return firstErr
}

// ValidateItem validates every attribute of an item to be stored (as
// ValidateValue), then DynamoDB's nesting limit.
func ValidateItem(it Item) error {
	if err := validateMap(it); err != nil {
		return err
	}
	for _, v := range it {
		if Depth(v) > MaxDepth {
			return validationErr(msgNestingTooDeep)
		}
	}
	return nil
}

// Depth is the nesting level of v: 1 for a scalar, set or empty container,
// 1 + the deepest element for a non-empty M or L.
func Depth(v Value) int {
	d := 0
	switch v.Type {
	case TypeL:
		for _, e := range v.L {
			d = max(d, Depth(e))
		}
	case TypeM:
		for _, e := range v.M {
			d = max(d, Depth(e))
		}
	}
	return d + 1
}

func hasDuplicateStrings(set []string) bool {
	if len(set) <= 16 {
		for i := 1; i < len(set); i++ {
			for j := 0; j < i; j++ {
				if set[i] == set[j] {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(set))
	for _, s := range set {
		if _, ok := seen[s]; ok {
			return true
		}
		seen[s] = struct{}{}
	}
	return false
}

// hasDuplicateNumbers compares by value: 1 and 1.0 are duplicates. The set's
// members must already be valid numbers.
func hasDuplicateNumbers(set []string) bool {
	if len(set) <= 16 {
		var xs [16]number
		for i, s := range set {
			xs[i], _ = parseNumber(s)
			for j := 0; j < i; j++ {
				if cmpNumber(&xs[i], &xs[j]) == 0 {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(set))
	var buf [200]byte
	for _, s := range set {
		x, _ := parseNumber(s)
		c := string(x.appendCanonical(buf[:0]))
		if _, ok := seen[c]; ok {
			return true
		}
		seen[c] = struct{}{}
	}
	return false
}

// KeyRole says which part of a primary key an attribute is.
type KeyRole uint8

// Key roles: the partition (hash) key or the sort (range) key.
const (
	HashKey KeyRole = iota
	RangeKey
)

// ValidateKeyAttr checks the value of key attribute name in an item being
// written (PutItem's Item and its kin), with DynamoDB's messages: present,
// of the schema's type (S, N or B), not an empty string or binary, within the
// key size limits. Requests that name a key (GetItem's Key) report a type
// mismatch differently ("The provided key element does not match the
// schema"); the engine handles that wording.
func ValidateKeyAttr(name string, want Type, role KeyRole, v Value, present bool) error {
	if !present {
		return validationErr("One or more parameter values were invalid: Missing the key " + name + " in the item")
	}
	if v.Type != want {
		return validationErr("One or more parameter values were invalid: Type mismatch for key " + name + " expected: " + want.String() + " actual: " + v.Type.String())
	}
	switch {
	case want == TypeS && v.S == "":
		return validationErr("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: " + name)
	case want == TypeB && v.S == "":
		return validationErr("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: " + name)
	}
	size := Size(v)
	if role == HashKey && size > MaxHashKeySize {
		return validationErr("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes")
	}
	if role == RangeKey && size > MaxRangeKeySize {
		return validationErr("One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
	}
	return nil
}
