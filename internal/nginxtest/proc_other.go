//go:build unix && !linux

package nginxtest

import "syscall"

// childAttr returns the attributes of a process this package starts: a
// process group of its own.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
