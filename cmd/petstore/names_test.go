package main

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/redact"
)

// TestErrorNames: every error the SDK refuses a parameter, an option, a
// variable or a key with is one line on stderr that names the flag or the
// variable the user typed or set, never the SDK's Go name; the whole line
// is compared. The names come from ParamError.Field, ConfigError.Option and
// ConfigError.Env.
func TestErrorNames(t *testing.T) {
	t.Parallel()
	const insecure = `: http to a host that is not loopback would send the API key in clear text; use https, or set PETSTORE_INSECURE_HTTP=1`
	tests := []struct {
		name string
		args []string
		env  []string // beyond the fake's key and URL
		want string   // stderr
		code int
	}{
		{"-limit", []string{"list", "-limit", "101"}, nil,
			"invalid parameters: -limit is 101; want 1..100, or 0 for the server's default", exitUsage},
		{"-limit negative", []string{"list", "-limit", "-1"}, nil,
			"invalid parameters: -limit is -1; want 1..100, or 0 for the server's default", exitUsage},
		{"-status of list", []string{"list", "-status", "lost"}, nil,
			`invalid parameters: -status is "lost"; want available, pending, sold or empty`, exitUsage},
		{"-name", []string{"create", "-category", "1"}, nil, "invalid parameters: -name is empty", exitUsage},
		{"-status of create", []string{"create", "-name", "Bella", "-category", "1", "-status", "lost"}, nil,
			`invalid parameters: -status is "lost"; want available, pending, sold or empty`, exitUsage},
		{"-base-url http to a far host", []string{"-base-url", "http://petstore.example.com/v1", "list"}, nil,
			`-base-url: URL "http://petstore.example.com/v1"` + insecure, exitUsage},
		{"-base-url http to a far host, PETSTORE_INSECURE_HTTP=0", []string{"-base-url", "http://petstore.example.com/v1", "list"}, []string{"PETSTORE_INSECURE_HTTP=0"},
			`-base-url: URL "http://petstore.example.com/v1"` + insecure, exitUsage},
		{"-base-url scheme", []string{"list", "-base-url", "ftp://example.com/v1"}, nil,
			`-base-url: URL "ftp://example.com/v1": scheme must be https or http`, exitUsage},
		{"PETSTORE_BASE_URL http to a far host", []string{"list"}, []string{"PETSTORE_BASE_URL=http://petstore.example.com/v1"},
			`PETSTORE_BASE_URL: URL "http://petstore.example.com/v1"` + insecure, exitUsage},
		{"PETSTORE_BASE_URL with user info", []string{"get", "1"}, []string{"PETSTORE_BASE_URL=https://admin:secret@example.com/v1"},
			`PETSTORE_BASE_URL: URL "[REDACTED]@example.com/v1" must not contain user info`, exitUsage},
		{"PETSTORE_INSECURE_HTTP", []string{"list"}, []string{"PETSTORE_INSECURE_HTTP=maybe"},
			"PETSTORE_INSECURE_HTTP: want 1, true, 0 or false (as strconv.ParseBool reads it), or unset", exitUsage},
		{"-retries", []string{"list", "-retries", "-1"}, nil, "-retries: -1 is negative", exitUsage},
		{"-retries of check", []string{"-retries", "-1", "check"}, nil, "-retries: -1 is negative", exitUsage},
		{"-retry-wait", []string{"list", "-retry-wait", "2s,1s"}, nil, "-retry-wait: want 0 <= min <= max, got min 2s, max 1s", exitUsage},
		{"PETSTORE_API_KEY not a bearer token", []string{"list"}, []string{"PETSTORE_API_KEY=sk live"},
			"PETSTORE_API_KEY: character 3 is a space (stray whitespace?); a bearer token holds only ASCII letters, digits and -._~+/, then optional = padding", exitUsage},
		{"PETSTORE_API_KEY missing", []string{"create", "-name", "Bella", "-category", "1"}, []string{"PETSTORE_API_KEY="}, "no API key: set PETSTORE_API_KEY", exitAuth},
	}
	srv := newFake(t)
	t.Cleanup(func() { // after the parallel subtests
		if n := srv.Requests(); n != 0 {
			t.Errorf("the fake received %d requests; want none", n)
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := runCLI(t, append(fakeEnv(srv), tc.env...), tc.args...)
			want := result{code: tc.code, stderr: "petstore: " + tc.want + "\n"}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("petstore %q (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

// TestServerTextUnchanged: what a server says is shown as it said it, even
// when it reads like the SDK's Go names, which the command names otherwise
// in its own errors.
func TestServerTextUnchanged(t *testing.T) {
	t.Parallel()
	const msg = "ListPetsParams.Limit and WithBaseURL: pass one to NewClient or set the default of WithTimeout"
	base := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"code":"NewPet.Name","message":"` + msg + `","status":404}`))
	}))
	got := runCLI(t, []string{"PETSTORE_API_KEY=some-key", "PETSTORE_BASE_URL=" + base}, "get", "7")
	want := result{code: exitNotFound, stderr: "petstore: GET /v1/pets/7: 404 NewPet.Name: " + msg + "\n"}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("petstore get 7 (-want +got):\n%s", diff)
	}
}

// TestAttemptTimeoutNamed: an attempt that runs out of the SDK's limit per
// attempt is said as the SDK says it, no text rewritten (the command sets
// no limit per attempt, and the SDK's error for its default names no
// option: TestAttemptTimeoutSource in the root package); a GET's exits 7, a
// create's 6. Here a client's 3s limit, against a server that never
// answers, the two calls side by side.
func TestAttemptTimeoutNamed(t *testing.T) {
	t.Parallel()
	stall := make(chan struct{})
	base := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(stall) }) // before the server closes: cleanups run last first
	// A limit the request surely reaches the server within, even on a
	// loaded machine (a create that timed out before it had a connection
	// would exit 7): the server never answers, so the limit ends the attempt.
	c, err := petstore.NewClient("some-key", petstore.WithBaseURL(base), petstore.WithMaxRetries(0), petstore.WithTimeout(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var getErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, getErr = c.ListPets(context.Background(), petstore.ListPetsParams{})
	}()
	_, createErr := c.CreatePet(context.Background(), petstore.NewPet{Name: "Bella", CategoryID: 1})
	<-done
	for _, tc := range []struct {
		err  error
		want string
		code int
	}{
		{getErr, "petstore: GET /v1/pets: attempt timed out after 3s (WithTimeout): the call may succeed if made again later\n", exitLater},
		{createErr, "petstore: POST /v1/pets: attempt timed out after 3s (WithTimeout) (outcome unknown: the animal may have been created): run petstore list before creating it again\n", exitUnknown},
	} {
		var stderr bytes.Buffer
		e := &env{stderr: &stderr, red: redact.New("")}
		code := e.fail(tc.err)
		if diff := cmp.Diff(result{code: tc.code, stderr: tc.want}, result{code: code, stderr: stderr.String()}, cmp.AllowUnexported(result{})); diff != "" {
			t.Errorf("fail(%q) (-want +got):\n%s", tc.err, diff)
		}
	}
}
