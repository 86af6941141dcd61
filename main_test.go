package petstore

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"

	"github.com/petstore/petstore-go/internal/leakcheck"
	"github.com/petstore/petstore-go/internal/transport"
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
	// The tests start from an environment without the variables NewClient
	// reads, whatever a CI job sets for every step (.ci/run runs this
	// package with all three set): a test about them sets them itself.
	for _, v := range []string{envAPIKey, envBaseURL, envInsecureHTTP} {
		os.Unsetenv(v)
	}
	cleanup := func() {}
	if !leakcheck.Fuzzing() { // a fuzz target needs no TLS, and its workers are killed, not ended
		var err error
		if cleanup, err = trustTestCertificate(); err != nil {
			fmt.Fprintf(os.Stderr, "trusting the test certificate: %v\n", err)
			os.Exit(2)
		}
	}
	code := leakcheck.Run(m, os.Stderr, transport.Shared())
	cleanup()
	os.Exit(code)
}

// trustTestCertificate makes the system's roots, for this process, the one
// certificate that net/http/httptest's TLS servers (and internal/h2fault's) present,
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
	// Removed once m.Run returns: a test that runs this binary as a child
	// which ends with os.Exit gives it a TMPDIR of its own (a t.TempDir).
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
