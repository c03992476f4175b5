//go:build race

package pebblestore_test

// raceEnabled: the race detector allocates and reschedules, so allocation
// counts are only checked without it.
const raceEnabled = true
