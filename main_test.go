package petstore

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"testing"

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
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines left behind after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
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
