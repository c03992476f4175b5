// Package archtest holds the test that keeps ExtendDB's dependency graph one
// way (DESIGN.md): cmd → wire, iac → emulator → throttle; emulator uses the
// kv contract that pebblestore implements. It parses every Go file of the
// module (all build tags, tests included) and fails on a forbidden import.
package archtest
