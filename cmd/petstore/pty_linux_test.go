package main

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// runOnTerminal runs petstore with args and the variables env added to
// cleanEnv's, its stdout on a new pseudo-terminal, and returns what it
// wrote there, with the terminal's \r\n read back as \n.
func runOnTerminal(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cli, _ := programs(t)
	master, slave := openPTY(t)
	cmd := exec.Command(cli, args...)
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdout, cmd.Stderr = slave, os.Stderr
	err := cmd.Start()
	slave.Close() // the child holds it; the master reads EIO once it exits
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(master) // ends with EIO when the child closes its end
	if err := cmd.Wait(); err != nil {
		t.Fatalf("petstore %q: %v", args, err)
	}
	return strings.ReplaceAll(string(out), "\r\n", "\n")
}

// openPTY opens a pseudo-terminal, as posix_openpt, unlockpt and ptsname
// do, and returns its two ends.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	var unlock int32
	var n uint32
	if err := ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	if err := ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return master, slave
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}
