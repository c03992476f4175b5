//go:build !unix

package emulator

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
