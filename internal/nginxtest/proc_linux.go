package nginxtest

import "syscall"

// childAttr returns the attributes of a process this package starts: a
// process group of its own, and SIGTERM when this process ends, so that a
// test binary killed by its -timeout leaves no nginx or fake behind (nginx's
// master stops its workers on SIGTERM).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
