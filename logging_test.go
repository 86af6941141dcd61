package petstore

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

// recordHandler is a slog.Handler that keeps every record, as text.
type recordHandler struct {
	mu      sync.Mutex
	records []slog.Record
	level   slog.Level
}

func (h *recordHandler) logger() *slog.Logger { h.level = slog.LevelDebug; return slog.New(h) }

func (h *recordHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordHandler) WithGroup(string) slog.Handler      { return h }

// attrs returns a record's attributes as strings, durations left out.
func attrs(r slog.Record) map[string]string {
	m := map[string]string{"level": r.Level.String(), "msg": r.Message}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "duration" {
			m[a.Key] = "set"
		} else {
			m[a.Key] = a.Value.String()
		}
		return true
	})
	return m
}

func (h *recordHandler) all() []map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]string
	for _, r := range h.records {
		out = append(out, attrs(r))
	}
	return out
}

func (h *recordHandler) attempts() []map[string]string {
	var out []map[string]string
	for _, m := range h.all() {
		if m["msg"] == "petstore: attempt" {
			out = append(out, m)
		}
	}
	return out
}

func TestDebugRecordPerAttempt(t *testing.T) {
	t.Parallel()
	logs := &recordHandler{}
	c, mt := newTestClient(t, WithLogger(logs.logger()))
	mt.RegisterResponder("GET", testPets, sequence(
		func(*http.Request) (*http.Response, error) {
			resp := httpmock.NewStringResponse(503, "secret body")
			resp.Header.Set("X-Request-Id", "req-1")
			return resp, nil
		},
		jsonResponder(200, onePet),
	))
	if _, err := c.ListPets(context.Background(), ListPetsParams{Limit: 5, Status: PetStatusSold}); err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		{"level": "DEBUG", "msg": "petstore: attempt", "method": "GET", "host": "petstore.test", "path": "/v1/pets", "attempt": "1", "status": "503", "duration": "set", "request_id": "req-1"},
		{"level": "DEBUG", "msg": "petstore: attempt", "method": "GET", "host": "petstore.test", "path": "/v1/pets", "attempt": "2", "status": "200", "duration": "set"},
	}
	if diff := cmp.Diff(want, logs.all()); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

func TestDebugRecordOfTransportError(t *testing.T) {
	t.Parallel()
	logs := &recordHandler{}
	c, mt := newTestClient(t, WithLogger(logs.logger()), WithMaxRetries(0))
	mt.RegisterResponder("GET", testPets, httpmock.NewErrorResponder(io.ErrUnexpectedEOF))
	_, _ = c.ListPets(context.Background(), ListPetsParams{})
	want := []map[string]string{
		{"level": "DEBUG", "msg": "petstore: attempt", "method": "GET", "host": "petstore.test", "path": "/v1/pets", "attempt": "1", "error": "truncated response", "duration": "set"},
	}
	if diff := cmp.Diff(want, logs.all()); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

func TestDeprecationWarnings(t *testing.T) {
	t.Parallel()
	logs := &recordHandler{}
	c, mt := newTestClient(t, WithLogger(logs.logger()))
	logs.level = slog.LevelWarn
	mt.RegisterResponder("GET", testPets+"/1", jsonResponder(200, `{"id":1,"name":"Rex","categoryId":2}`))
	mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(200, onePet)
		resp.Header.Set("Deprecation", "@1798761600") // 2027-01-01
		resp.Header.Set("Sunset", "Thu, 05 Dec 2030 00:00:00 GMT")
		return resp, nil
	})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := c.GetPet(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListPets(ctx, ListPetsParams{}); err != nil {
			t.Fatal(err)
		}
	}
	want := []map[string]string{
		{"level": "WARN", "msg": "petstore: GetPet is deprecated and will be removed on 5 December 2030; use ListPets with a Status filter", "operation": "GetPet"},
		{"level": "WARN", "msg": "petstore: the server says this endpoint is deprecated", "method": "GET", "path": "/v1/pets",
			"deprecated_since": "2027-01-01 00:00:00 +0000 UTC", "sunset": "2030-12-05 00:00:00 +0000 UTC"},
	}
	if diff := cmp.Diff(want, logs.all()); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}

	// Warnings are per Client.
	other, mt2 := newTestClient(t, WithLogger(logs.logger()))
	logs.level = slog.LevelWarn
	mt2.RegisterResponder("GET", testPets+"/1", jsonResponder(200, `{"id":1,"name":"Rex","categoryId":2}`))
	if _, err := other.GetPet(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := len(logs.all()); n != 3 {
		t.Errorf("a second Client logged %d records in all; want 3", n)
	}
}

// TestLogsNeverHoldSecrets runs every flow with a Debug text logger and
// looks for the key, header names and body text in the output.
func TestLogsNeverHoldSecrets(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, mt := newTestClient(t, WithLogger(l))
	mt.RegisterResponder("GET", testPets, sequence(jsonResponder(503, "body-503-"+testKey), jsonResponder(200, onePet)))
	mt.RegisterResponder("POST", testPets, jsonResponder(400, `{"code":"bad","message":"body-400","status":400}`))
	mt.RegisterResponder("GET", testPets+"/7", httpmock.NewErrorResponder(io.ErrUnexpectedEOF))
	callAll(context.Background(), c)
	l.Info("client", "c", c)
	out := buf.String()
	if !strings.Contains(out, "petstore: attempt") {
		t.Fatalf("no attempt records in %q", out)
	}
	for _, secret := range []string{testKey, "Bearer", "Authorization", "body-503", "body-400", "Rex"} {
		if strings.Contains(out, secret) {
			t.Errorf("log output holds %q:\n%s", secret, out)
		}
	}
}

// TestSilentWithoutLogger runs failing, retried and deprecated calls with no
// logger (and with WithLogger(nil)) in a child process, and checks that the
// child writes nothing at all to stdout or stderr: a fresh process is the
// only way to see writes to the file descriptors themselves, such as those
// of a logger made with os.Stderr at init time.
func TestSilentWithoutLogger(t *testing.T) {
	t.Parallel()
	if os.Getenv("PETSTORE_TEST_SILENT_CHILD") == "1" {
		for _, opts := range [][]Option{nil, {WithLogger(nil)}} {
			c, mt := newTestClient(t, opts...)
			mt.RegisterResponder("GET", testPets, jsonResponder(503, "x"))
			mt.RegisterResponder("POST", testPets, httpmock.NewErrorResponder(io.ErrUnexpectedEOF))
			mt.RegisterResponder("GET", testPets+"/7", func(*http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(200, "{}")
				resp.Header.Set("Deprecation", "@1")
				return resp, nil
			})
			callAll(context.Background(), c)
		}
		os.Exit(0) // before the testing package prints PASS
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSilentWithoutLogger$")
	// The child's TestMain writes its own test certificate to $TMPDIR (see
	// trustTestCertificate), which its os.Exit skips removing: it goes
	// into a directory of this test's, removed with it.
	cmd.Env = append(os.Environ(), "PETSTORE_TEST_SILENT_CHILD=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if len(out) > 0 {
		t.Errorf("the SDK wrote to stdout or stderr without a logger:\n%s", out)
	}
}
