// Package kvtest is the conformance suite for kv.Store implementations: every
// store the engine may run on (pebblestore on disk and in memory today, a
// distributed ordered KV later) must pass RunConformance, and durable stores
// RunPersistence. It imports only package kv and the standard library, so
// any store can use it without depending on another.
package kvtest
