//go:build !linux

package terraform_test

import "os/exec"

// setDeathSignal has no portable equivalent: the cleanup stops the
// provider processes.
func setDeathSignal(*exec.Cmd) {}
