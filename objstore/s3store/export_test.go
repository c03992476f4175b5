package s3store

import "time"

// SetPageSize makes List ask for pages of n keys, to see several pages.
func SetPageSize(s *Store, n int) { s.pageSize = n }

// SetBackoff sets the most the first retry waits, to keep tests quick.
func SetBackoff(s *Store, d time.Duration) { s.backoff = d }

// EmptySHA256 is the payload hash of a request without a body.
const EmptySHA256 = emptySHA256
