package main

import (
	"os/exec"
	"syscall"
	"time"
)

// selfCPU returns the CPU time (user+system) this process has used so far,
// so that the client's share of the two shared cores can be told apart from
// the server's.
func selfCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// dieWithParent makes the kernel kill cmd's process if the bench dies
// without stopping it (SIGKILL, a crash). A forgotten server would go on
// using the cores that the next measurement, ours or someone else's, needs.
// The signal is tied to the thread that started the child; Go's runtime
// does not end threads while goroutines need them, which is good enough for
// a safety net behind the normal, explicit stop.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
