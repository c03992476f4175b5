package terraform_test

import (
	"os/exec"
	"syscall"
)

// setDeathSignal stops a provider process with the test binary, even when
// a timeout kills the binary before its cleanup runs.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
