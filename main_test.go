package petstore

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/petstore/petstore-go/internal/transport"
	"go.uber.org/goleak"
)

// TestMain checks, once every test of the package has passed, that no
// goroutine is left behind: no stalled handler, no connection whose body was
// never closed, no backoff timer. Idle keep-alive connections are not leaks
// (the shared transport keeps them by design), so they are closed first;
// goroutines of connections still in use would remain and be reported.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && !fuzzing() {
		closeIdleConnections()
		if err := findLeaks(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines left behind after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// leakWait bounds how long TestMain waits for goroutines that are ending,
// such as those of connections just closed, which a loaded machine may not
// have run yet. goleak.Find alone gives up after about half a second.
const leakWait = 10 * time.Second

// findLeaks is goleak.Find, tried again until it finds nothing or leakWait
// has passed: a goroutine left behind is still there then.
func findLeaks() error {
	deadline := time.Now().Add(leakWait)
	for {
		err := goleak.Find()
		if err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

// fuzzing reports whether this process runs a fuzz target (-test.fuzz, or a
// worker of one), whose engine keeps goroutines of its own.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// closeIdleConnections closes the idle connections of the transports the
// tests use: the SDK's shared one and http.DefaultTransport.
func closeIdleConnections() {
	for _, rt := range []http.RoundTripper{transport.Shared(), http.DefaultTransport} {
		if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
			c.CloseIdleConnections()
		}
	}
}
