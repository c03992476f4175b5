//go:build race

package emulator

// raceEnabled: the race detector allocates and reschedules, so allocation
// counts are only checked without it.
const raceEnabled = true
