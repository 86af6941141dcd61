package petstore

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
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
//
// It also makes this process trust the certificate of httptest's TLS servers
// (see trustTestCertificate), so that the SDK's shared transport, as a user
// gets it, speaks HTTP/2 over TLS to the tests' servers.
func TestMain(m *testing.M) {
	cleanup := func() {}
	if !fuzzing() { // a fuzz target needs no TLS, and its workers are killed, not ended
		var err error
		if cleanup, err = trustTestCertificate(); err != nil {
			fmt.Fprintf(os.Stderr, "trusting the test certificate: %v\n", err)
			os.Exit(2)
		}
	}
	code := m.Run()
	cleanup()
	if code == 0 && !fuzzing() {
		closeIdleConnections()
		if err := findLeaks(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines left behind after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// trustTestCertificate makes the system's roots, for this process, the one
// certificate that net/http/httptest's TLS servers (and h2Server) present,
// through SSL_CERT_FILE, which crypto/x509 reads once, at the first
// verification: before any test runs. The SDK's shared transport is then
// under test as it is, with no TLS setting of the tests' own.
//
// macOS, iOS and Windows verify with the platform's own roots and read no
// SSL_CERT_FILE: there, the shared transport is given the certificate as its
// RootCAs instead, before its first use (and testTLSConfig returns them).
func trustTestCertificate() (cleanup func(), err error) {
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS()
	cert := srv.Certificate()
	srv.Close()
	switch runtime.GOOS {
	case "darwin", "ios", "windows":
		testRoots = x509.NewCertPool()
		testRoots.AddCert(cert)
		transport.Shared().TLSClientConfig = testTLSConfig()
		return func() {}, nil
	}
	f, err := os.CreateTemp("", "petstore-test-ca-*.pem")
	if err != nil {
		return nil, err
	}
	cleanup = func() { os.Remove(f.Name()) }
	err = pem.Encode(f, &pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Setenv("SSL_CERT_FILE", f.Name())
	}
	if err != nil {
		cleanup()
		return nil, err
	}
	return cleanup, nil
}

// testRoots holds the test certificate where SSL_CERT_FILE is not read;
// nil elsewhere, where the system's roots are that certificate.
var testRoots *x509.CertPool

// testTLSConfig is the TLS configuration of a transport a test makes: nil
// (the system's roots), or one that trusts testRoots.
func testTLSConfig() *tls.Config {
	if testRoots == nil {
		return nil
	}
	return &tls.Config{RootCAs: testRoots}
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
