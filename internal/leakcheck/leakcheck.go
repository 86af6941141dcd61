// Package leakcheck is the TestMain of the packages whose tests must leave
// no goroutine behind (no stalled handler, no response body never closed, no
// backoff timer): one helper instead of a copy in each package, which had
// drifted (one waited for ending goroutines, another did not). Only tests
// import it.
package leakcheck

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// wait bounds how long Run waits for goroutines that are ending, such as
// those of connections just closed, which a loaded machine may not have run
// yet. goleak.Find alone gives up after about half a second.
var wait = 10 * time.Second // a variable only so that its test can shorten it

// Run runs m's tests and returns the exit code for os.Exit. When they
// passed, and the process runs no fuzz target (whose engine keeps goroutines
// of its own), it closes the idle connections of the given transports and
// of http.DefaultTransport (kept-alive connections are not leaks), and fails
// with the goroutines still running after wait, written to stderr.
func Run(m *testing.M, stderr io.Writer, transports ...*http.Transport) int {
	code := m.Run()
	if code != 0 || Fuzzing() {
		return code
	}
	for _, t := range append(transports, http.DefaultTransport.(*http.Transport)) {
		t.CloseIdleConnections()
	}
	if err := find(); err != nil {
		fmt.Fprintf(stderr, "goroutines left behind after the tests: %v\n", err)
		return 1
	}
	return 0
}

// find is goleak.Find, tried again until it finds nothing or wait has
// passed: a goroutine left behind is still there then.
func find() error {
	deadline := time.Now().Add(wait)
	for {
		err := goleak.Find()
		if err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

// Fuzzing reports whether this process runs a fuzz target (-test.fuzz, or a
// worker of one).
func Fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}
