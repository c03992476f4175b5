package kv

// PrefixEnd returns the smallest key greater than every key with prefix p,
// or nil when there is none (p is all 0xff): the exclusive upper bound of an
// iteration over the prefix. p is not modified.
func PrefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
