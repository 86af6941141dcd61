package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
)

// TestProgram builds petstore-fake once and runs it in each subtest, on
// loopback only.
func TestProgram(t *testing.T) {
	t.Parallel()
	bin := buildFake(t)
	t.Run("ServesTheSDK", func(t *testing.T) { t.Parallel(); testServesTheSDK(t, bin) })
	t.Run("ChosenKey", func(t *testing.T) { t.Parallel(); testChosenKey(t, bin) })
	t.Run("Faults", func(t *testing.T) { t.Parallel(); testFaults(t, bin) })
	t.Run("Signals", func(t *testing.T) { t.Parallel(); testSignals(t, bin) })
	t.Run("UsageErrors", func(t *testing.T) { t.Parallel(); testUsageErrors(t, bin) })
	t.Run("Help", func(t *testing.T) { t.Parallel(); testHelp(t, bin) })
	t.Run("Version", func(t *testing.T) { t.Parallel(); testVersion(t, bin) })
	t.Run("AddressInUse", func(t *testing.T) { t.Parallel(); testAddressInUse(t, bin) })
	t.Run("StuckUpload", func(t *testing.T) { t.Parallel(); testStuckUpload(t, bin) })
	t.Run("JSONLog", func(t *testing.T) { t.Parallel(); testJSONLog(t, bin) })
	t.Run("ControlAPI", func(t *testing.T) { t.Parallel(); testControlProgram(t, bin) })
	t.Run("Environment", func(t *testing.T) { t.Parallel(); testEnvironment(t, bin) })
	t.Run("EnvironmentErrors", func(t *testing.T) { t.Parallel(); testEnvironmentErrors(t, bin) })
	t.Run("Healthcheck", func(t *testing.T) { t.Parallel(); testHealthcheck(t, bin) })
}

// newSDKClient returns a client of the fake at baseURL, with fast retries.
func newSDKClient(t *testing.T, baseURL, key string) *petstore.Client {
	t.Helper()
	c, err := petstore.NewClient(key, petstore.WithBaseURL(baseURL),
		petstore.WithRetryWait(time.Millisecond, 2*time.Millisecond))
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// stop sends SIGINT and checks that the program exits 0 having printed
// nothing more on stdout than the two export lines.
func (f *fake) stop(t *testing.T) {
	t.Helper()
	f.signal(t, os.Interrupt)
	if code := f.wait(t); code != 0 {
		t.Errorf("exit code after SIGINT = %d, want 0; stderr:\n%s", code, f.stderr.String())
	}
	if got := f.stdout.Lines(); len(got) != 2 {
		t.Errorf("stdout = %q, want exactly the two export lines", got)
	}
}

// testServesTheSDK: the two export lines carry a real port and a key the
// SDK works with, the -pets animals are there, each request is one stderr
// line, and the key is never on stderr.
func testServesTheSDK(t *testing.T, bin string) {
	f := startFake(t, bin, "-addr", "127.0.0.1:0", "-pets", "testdata/pets.json")
	baseURL, key := f.exports(t)
	if !strings.HasPrefix(key, "pst_") || len(key) != 36 {
		t.Errorf("key %q, want a random pst_ key", key)
	}
	c := newSDKClient(t, baseURL, key)
	ctx := context.Background()

	pets, err := c.ListPets(ctx, petstore.ListPetsParams{Status: petstore.PetStatusAvailable})
	if err != nil {
		t.Fatalf("ListPets: %v", err)
	}
	rex := petstore.Pet{ID: 1, Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable}
	if diff := cmp.Diff([]petstore.Pet{rex}, pets); diff != "" {
		t.Errorf("ListPets(available) mismatch (-want +got):\n%s", diff)
	}
	got, err := c.CreatePet(ctx, petstore.NewPet{Name: "Bella", CategoryID: 1, Status: petstore.PetStatusAvailable})
	if err != nil {
		t.Fatalf("CreatePet: %v", err)
	}
	bella := petstore.Pet{ID: 4, Name: "Bella", CategoryID: 1, Status: petstore.PetStatusAvailable}
	if diff := cmp.Diff(&bella, got); diff != "" {
		t.Errorf("CreatePet mismatch (-want +got):\n%s", diff)
	}
	pets, err = c.ListPets(ctx, petstore.ListPetsParams{Limit: 10})
	if err != nil {
		t.Fatalf("ListPets: %v", err)
	}
	if got, want := len(pets), 4; got != want {
		t.Errorf("ListPets returned %d animals, want %d: %v", got, want, pets)
	}
	f.stop(t)

	if lines := f.stderr.Lines(); !strings.Contains(lines[0], " serving the Pet Store API at "+baseURL+"; animals: 3, faults: 0;") {
		t.Errorf("stderr's first line %q, want it to announce %s", lines[0], baseURL)
	}
	want := []string{"GET /v1/pets 200", "POST /v1/pets 201", "GET /v1/pets 200"}
	if diff := cmp.Diff(want, f.requests()); diff != "" {
		t.Errorf("requests on stderr mismatch (-want +got):\n%s\nstderr:\n%s", diff, f.stderr.String())
	}
	if stderr := f.stderr.String(); strings.Contains(stderr, key) || strings.Contains(stderr, "Bearer") {
		t.Errorf("stderr holds the key or the Authorization header:\n%s", stderr)
	}
}

// testChosenKey: -key sets the only key the fake accepts.
func testChosenKey(t *testing.T, bin string) {
	f := startFake(t, bin, "-addr", "127.0.0.1:0", "-key", "ci-key-42")
	baseURL, key := f.exports(t)
	if key != "ci-key-42" {
		t.Errorf("exported key %q, want ci-key-42", key)
	}
	ctx := context.Background()
	if _, err := newSDKClient(t, baseURL, "another-key").ListPets(ctx, petstore.ListPetsParams{}); !errors.Is(err, petstore.ErrUnauthorized) {
		t.Errorf("ListPets with another key: %v, want ErrUnauthorized", err)
	}
	if _, err := newSDKClient(t, baseURL, "ci-key-42").ListPets(ctx, petstore.ListPetsParams{}); err != nil {
		t.Errorf("ListPets with the chosen key: %v", err)
	}
	f.stop(t)
	if diff := cmp.Diff([]string{"GET /v1/pets 401", "GET /v1/pets 200"}, f.requests()); diff != "" {
		t.Errorf("requests on stderr mismatch (-want +got):\n%s", diff)
	}
	if strings.Contains(f.stderr.String(), "ci-key-42") {
		t.Errorf("stderr holds the key:\n%s", f.stderr.String())
	}
}

// testFaults: -fault faults apply in order, to their operation, with their
// status and Retry-After, or by dropping the connection, which is logged.
func testFaults(t *testing.T, bin string) {
	f := startFake(t, bin, "-addr", "127.0.0.1:0",
		"-fault", "op=ListPets,count=2,status=503",
		"-fault", "op=GetPet,status=429,retry-after=1500ms",
		"-fault", "op=CreatePet,disconnect")
	baseURL, key := f.exports(t)
	c := newSDKClient(t, baseURL, key)

	// Two 503s, then success: within the SDK's two retries.
	if _, err := c.ListPets(context.Background(), petstore.ListPetsParams{}); err != nil {
		t.Errorf("ListPets after two 503s: %v, want success", err)
	}
	// The 429 fault waited for GetPet; it answers before the key check.
	resp, err := http.Get(baseURL + "/pets/1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("GET /pets/1: %d, Retry-After %q; want 429, \"2\"", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// CreatePet's connection is dropped without an answer: the SDK does
	// not send it again (the animal may have been created).
	if _, err := c.CreatePet(context.Background(), petstore.NewPet{Name: "Rex", CategoryID: 1}); err == nil {
		t.Error("CreatePet on a dropped connection succeeded, want an error")
	}
	f.stop(t)
	want := []string{"GET /v1/pets 503", "GET /v1/pets 503", "GET /v1/pets 200", "GET /v1/pets/1 429", "POST /v1/pets - (dropped)"}
	if diff := cmp.Diff(want, f.requests()); diff != "" {
		t.Errorf("requests on stderr mismatch (-want +got):\n%s", diff)
	}
}

// testSignals: SIGINT and SIGTERM each stop the program with exit code 0.
func testSignals(t *testing.T, bin string) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			f := startFake(t, bin, "-addr", "127.0.0.1:0")
			baseURL, key := f.exports(t)
			if _, err := newSDKClient(t, baseURL, key).ListPets(context.Background(), petstore.ListPetsParams{}); err != nil {
				t.Errorf("ListPets: %v", err)
			}
			f.signal(t, sig)
			if code := f.wait(t); code != 0 {
				t.Errorf("exit code after %v = %d, want 0; stderr:\n%s", sig, code, f.stderr.String())
			}
			lines := f.stderr.Lines()
			if len(lines) == 0 || !strings.HasSuffix(lines[len(lines)-1], " stopped") {
				t.Errorf("stderr does not end with \"stopped\":\n%s", f.stderr.String())
			}
		})
	}
}

// testUsageErrors: bad flags, a non-loopback -addr and a bad -pets file end
// the program with exit code 2 and a message, before it serves anything.
func testUsageErrors(t *testing.T, bin string) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"-port", "80"}, "petstore-fake: flag provided but not defined: -port\n"},
		{"not loopback", []string{"-addr", "0.0.0.0:0"}, `petstore-fake: -addr "0.0.0.0:0" is not a loopback address; use 127.0.0.1, ::1 or localhost, or add -allow-remote`},
		{"every interface", []string{"-addr", ":0"}, `petstore-fake: -addr ":0" listens on every interface`},
		{"missing -pets file", []string{"-pets", "testdata/missing.json"}, "petstore-fake: -pets: open testdata/missing.json: "},
		{"invalid -pets file", []string{"-pets", "testdata/no-name.json"}, "petstore-fake: -pets testdata/no-name.json: animal 2: name is required\n"},
		{"bad -fault", []string{"-fault", "op=ListPets"}, `petstore-fake: invalid value "op=ListPets" for flag -fault: a fault needs a status, a delay, disconnect or cut-body`},
		{"bad -key", []string{"-key", "a key"}, "petstore-fake: -key: petstore: API key: character 2 is a space"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFake(t, bin, tc.args...)
			if code := f.wait(t); code != 2 {
				t.Errorf("exit code = %d, want 2", code)
			}
			stderr := f.stderr.String()
			if !strings.HasPrefix(stderr, tc.want) || !strings.HasSuffix(stderr, "\nRun petstore-fake -h for usage.\n") {
				t.Errorf("stderr = %q, want %q... then the -h hint", stderr, tc.want)
			}
			if got := f.stdout.String(); got != "" {
				t.Errorf("stdout = %q, want nothing", got)
			}
		})
	}
}

// testHelp: -h prints the usage on stderr and exits 0.
func testHelp(t *testing.T, bin string) {
	f := startFake(t, bin, "-h")
	if code := f.wait(t); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
	if diff := cmp.Diff(usage, f.stderr.String()); diff != "" {
		t.Errorf("stderr mismatch (-want +got):\n%s", diff)
	}
	if got := f.stdout.String(); got != "" {
		t.Errorf("stdout = %q, want nothing", got)
	}
}

// testVersion: -version prints the version on stdout and exits 0.
func testVersion(t *testing.T, bin string) {
	f := startFake(t, bin, "-version")
	if code := f.wait(t); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
	if diff := cmp.Diff("petstore-fake "+petstore.Version+"\n", f.stdout.String()); diff != "" {
		t.Errorf("stdout mismatch (-want +got):\n%s", diff)
	}
	if got := f.stderr.String(); got != "" {
		t.Errorf("stderr = %q, want nothing", got)
	}
}

// testAddressInUse: a failure to listen is not a usage error: exit code 1.
func testAddressInUse(t *testing.T, bin string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	f := startFake(t, bin, "-addr", l.Addr().String())
	if code := f.wait(t); code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
	if want := "petstore-fake: listen tcp " + l.Addr().String() + ": "; !strings.HasPrefix(f.stderr.String(), want) {
		t.Errorf("stderr = %q, want %q...", f.stderr.String(), want)
	}
	if got := f.stdout.String(); got != "" {
		t.Errorf("stdout = %q, want nothing", got)
	}
}

func TestLocalURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, addr, want string }{
		{"http://127.0.0.1:8080/v1", "127.0.0.1:8080", "http://127.0.0.1:8080/v1"},
		{"http://[::1]:8080/v1", "[::1]:8080", "http://[::1]:8080/v1"},
		{"http://0.0.0.0:8080/v1", "0.0.0.0:8080", "http://127.0.0.1:8080/v1"},
		// Go listens on 0.0.0.0 and on "" with a dual-stack socket: [::].
		{"http://[::]:8080/v1", "0.0.0.0:8080", "http://127.0.0.1:8080/v1"},
		{"http://[::]:8080/v1", ":8080", "http://127.0.0.1:8080/v1"},
		{"http://[::]:8080/v1", "[::]:8080", "http://[::1]:8080/v1"},
		{"http://192.168.1.10:8080/v1", "192.168.1.10:8080", "http://192.168.1.10:8080/v1"},
	}
	for _, tc := range tests {
		if got := localURL(tc.in, tc.addr); got != tc.want {
			t.Errorf("localURL(%q, %q) = %q, want %q", tc.in, tc.addr, got, tc.want)
		}
	}
}

// TestServing: the fake announces the address it listens on: its base URL
// for one address; for every interface, that, its port, and a URL for this
// machine and for others, never only a loopback URL as if it served there
// alone.
func TestServing(t *testing.T) {
	t.Parallel()
	tests := []struct{ url, addr, want string }{
		{"http://127.0.0.1:40123/v1", "127.0.0.1:0", "serving the Pet Store API at http://127.0.0.1:40123/v1"},
		{"http://127.0.0.1:8080/v1", "localhost:8080", "serving the Pet Store API at http://127.0.0.1:8080/v1"},
		{"http://[::1]:8080/v1", "[::1]:8080", "serving the Pet Store API at http://[::1]:8080/v1"},
		{"http://192.168.1.10:8080/v1", "192.168.1.10:8080", "serving the Pet Store API at http://192.168.1.10:8080/v1"},
		{"http://[::]:8080/v1", "0.0.0.0:8080", "serving the Pet Store API on every interface, port 8080 (-addr 0.0.0.0:8080): " +
			"at http://127.0.0.1:8080/v1 from this machine, at http://HOST:8080/v1 from others (HOST: this machine's name or address)"},
		{"http://[::]:8080/v1", ":8080", "serving the Pet Store API on every interface, port 8080 (-addr :8080): " +
			"at http://127.0.0.1:8080/v1 from this machine, at http://HOST:8080/v1 from others (HOST: this machine's name or address)"},
		{"http://[::]:9000/v1", "[::]:9000", "serving the Pet Store API on every interface, port 9000 (-addr [::]:9000): " +
			"at http://[::1]:9000/v1 from this machine, at http://HOST:9000/v1 from others (HOST: this machine's name or address)"},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, serving(tc.url, tc.addr)); diff != "" {
			t.Errorf("serving(%q, %q) mismatch (-want +got):\n%s", tc.url, tc.addr, diff)
		}
	}
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"pst_0123456789abcdef", "pst_0123456789abcdef"},
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"},
		{"a-b.c_d+e/f==", "a-b.c_d+e/f=="},
		{"http://[::1]:8080/v1", "'http://[::1]:8080/v1'"},
		{"~/key", "'~/key'"},
		{"it's", `'it'\''s'`},
	}
	for _, tc := range tests {
		if got := shellQuote(tc.in); got != tc.want {
			t.Errorf("shellQuote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// testStuckUpload: a client that stops in the middle of a request body does
// not keep the program from stopping (after shutdownGrace at most).
func testStuckUpload(t *testing.T, bin string) {
	f := startFake(t, bin, "-addr", "127.0.0.1:0")
	baseURL, key := f.exports(t)
	u, err := url.Parse(baseURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The headers promise 100 bytes of body, and ask the server to say when
	// the handler reads it: then the request is running.
	req := "POST /v1/pets HTTP/1.1\r\nHost: " + u.Host + "\r\nAuthorization: Bearer " + key +
		"\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 100 ") {
		t.Fatalf("after the headers: %q, %v; want HTTP/1.1 100 Continue", status, err)
	}
	if _, err := io.WriteString(conn, "{"); err != nil { // 1 byte of 100
		t.Fatal(err)
	}
	f.signal(t, syscall.SIGTERM)
	if code := f.wait(t); code != 0 {
		t.Errorf("exit code = %d, want 0; stderr:\n%s", code, f.stderr.String())
	}
	if want := " requests still running after " + shutdownGrace.String() + ": closing their connections\n"; !strings.Contains(f.stderr.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, f.stderr.String())
	}
}

// TestUsageSaysTheGrace keeps -h in step with shutdownGrace.
func TestUsageSaysTheGrace(t *testing.T) {
	t.Parallel()
	if want := "after " + shutdownGrace.String() + " closing the"; !strings.Contains(usage, want) {
		t.Errorf("usage does not say %q", want)
	}
}
