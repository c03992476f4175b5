package jobs

import "sync"

// Claims is the set of jobs (by key) running in this process, so a job
// found again (the leader's poll, a resume) starts once. Its zero value
// is empty. Its methods are safe for concurrent use.
type Claims struct {
	mu   sync.Mutex
	keys map[string]bool
}

// Claim marks key running; false if it already is.
func (c *Claims) Claim(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys[key] {
		return false
	}
	if c.keys == nil {
		c.keys = map[string]bool{}
	}
	c.keys[key] = true
	return true
}

// Running reports whether key is claimed.
func (c *Claims) Running(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.keys[key]
}

// Release unmarks key.
func (c *Claims) Release(key string) {
	c.mu.Lock()
	delete(c.keys, key)
	c.mu.Unlock()
}
