package petstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

var onePet = `[{"id":1,"name":"Rex","categoryId":2}]`

func TestReadsRetryStatuses(t *testing.T) {
	t.Parallel()
	for status := 400; status <= 504; status++ {
		if http.StatusText(status) == "" {
			continue
		}
		retried := map[int]bool{408: true, 429: true, 500: true, 502: true, 503: true, 504: true}[status]
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			for name, call := range map[string]func(*Client) error{
				"ListPets": func(c *Client) error { _, err := c.ListPets(context.Background(), ListPetsParams{}); return err },
				"GetPet":   func(c *Client) error { _, err := c.GetPet(context.Background(), 1); return err },
			} {
				c, mt := newTestClient(t)
				ok := jsonResponder(200, `{"id":1,"name":"Rex","categoryId":2}`)
				if name == "ListPets" {
					ok = jsonResponder(200, onePet)
				}
				r := sequence(jsonResponder(status, ""), jsonResponder(status, ""), ok)
				mt.RegisterResponder("GET", testPets, r)
				mt.RegisterResponder("GET", testPets+"/1", r)
				err := call(c)
				attempts := mt.GetTotalCallCount()
				if retried {
					if err != nil || attempts != 3 {
						t.Errorf("%s: err %v after %d attempts; want success on attempt 3", name, err, attempts)
					}
					continue
				}
				var apiErr *APIError
				if !errors.As(err, &apiErr) || apiErr.Status != status || attempts != 1 {
					t.Errorf("%s: err %v after %d attempts; want *APIError %d after 1", name, err, attempts, status)
				}
			}
		})
	}
}

// afterReading is a responder that reads the request's body, as a
// transport that sent the request does, and then fails with err.
func afterReading(err error) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		io.Copy(io.Discard, req.Body)
		return nil, err
	}
}

func TestCreatePetRetriesOnlyWhenNothingWasCreated(t *testing.T) {
	t.Parallel()
	created := jsonResponder(201, `{"id":5,"name":"Rex","categoryId":2}`)
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: "connection refused"}}
	tests := []struct {
		name         string
		first        httpmock.Responder
		wantAttempts int
	}{
		{"429", jsonResponder(429, `{"code":"rate_limited","message":"m","status":429}`), 2},
		{"dial error", httpmock.NewErrorResponder(dial), 2},
		{"DNS error", httpmock.NewErrorResponder(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "petstore.test"}}), 2},
		{"408", jsonResponder(408, ""), 1},
		{"500", jsonResponder(500, ""), 1},
		{"502", jsonResponder(502, ""), 1},
		{"503", jsonResponder(503, ""), 1},
		{"504", jsonResponder(504, ""), 1},
		{"reset after sending", afterReading(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), 1},
		{"truncated response", afterReading(io.ErrUnexpectedEOF), 1},
		// A transport that never read the body cannot have sent it.
		{"reset, the body never read", httpmock.NewErrorResponder(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t)
			mt.RegisterResponder("POST", testPets, sequence(tc.first, created))
			pet, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 2})
			if n := mt.GetTotalCallCount(); n != tc.wantAttempts {
				t.Errorf("attempts = %d; want %d", n, tc.wantAttempts)
			}
			if tc.wantAttempts == 2 && (err != nil || pet == nil || pet.ID != 5) {
				t.Errorf("CreatePet = %v, %v; want the pet created by the retry", pet, err)
			}
			if tc.wantAttempts == 1 && err == nil {
				t.Error("CreatePet succeeded; want the first attempt's error")
			}
		})
	}
}

func TestReadsRetryTransportErrors(t *testing.T) {
	t.Parallel()
	for _, cause := range []error{
		&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET},
		io.ErrUnexpectedEOF,
		&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED},
	} {
		t.Run(cause.Error(), func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t)
			mt.RegisterResponder("GET", testPets, sequence(httpmock.NewErrorResponder(cause), jsonResponder(200, onePet)))
			pets, err := c.ListPets(context.Background(), ListPetsParams{})
			if err != nil || len(pets) != 1 || mt.GetTotalCallCount() != 2 {
				t.Errorf("ListPets = %v, %v after %d attempts; want one pet after 2", pets, err, mt.GetTotalCallCount())
			}
		})
	}
}

func TestMaxRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts         []Option
		wantAttempts int
	}{
		{nil, 3}, // default: 2 retries
		{[]Option{WithMaxRetries(0)}, 1},
		{[]Option{WithMaxRetries(1)}, 2},
		{[]Option{WithMaxRetries(4)}, 5},
	} {
		c, mt := newTestClient(t, tc.opts...)
		mt.RegisterResponder("GET", testPets, sequence(jsonResponder(503, "first"), jsonResponder(503, "second"), jsonResponder(502, "last")))
		_, err := c.ListPets(context.Background(), ListPetsParams{})
		if n := mt.GetTotalCallCount(); n != tc.wantAttempts {
			t.Errorf("attempts = %d; want %d", n, tc.wantAttempts)
		}
		var apiErr *APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("err = %v; want the last response as *APIError", err)
		}
		wantStatus, wantBody := 503, []string{"first", "second", "last"}[min(tc.wantAttempts, 3)-1]
		if tc.wantAttempts >= 3 {
			wantStatus = 502
		}
		if apiErr.Status != wantStatus || string(apiErr.Body) != wantBody {
			t.Errorf("APIError %d %q; want the last response, %d %q", apiErr.Status, apiErr.Body, wantStatus, wantBody)
		}
		if strings.Contains(err.Error(), "giving up") {
			t.Errorf("error %q is retryablehttp's, not ours", err)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	// future stands for an HTTP date two hours ahead, made when its subtest
	// runs: a parallel subtest may start long after the table is made.
	const future = "(an HTTP date in 2h)"
	tests := []struct {
		name           string
		status         int
		retryAfter     string
		wantAttempts   int
		wantRetryAfter time.Duration // approximate for dates
	}{
		// The computed wait would be an hour: only Retry-After makes these fast.
		{"429 retry after 0 replaces the wait", 429, "0", 3, 0},
		{"503 retry after 0 replaces the wait", 503, "0", 3, 0},
		{"longer than max: not waited for", 429, "7200", 1, 2 * time.Hour},
		{"HTTP date longer than max", 503, future, 1, 2 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			retryAfter := tc.retryAfter
			if retryAfter == future {
				retryAfter = time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat)
			}
			c, mt := newTestClient(t, WithRetryWait(time.Hour, time.Hour))
			mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(tc.status, `{"code":"busy","message":"later","status":0}`)
				resp.Header.Set("Retry-After", retryAfter)
				return resp, nil
			})
			var err error
			wait(t, 10*time.Second, func() { _, err = c.ListPets(context.Background(), ListPetsParams{}) })
			if n := mt.GetTotalCallCount(); n != tc.wantAttempts {
				t.Errorf("attempts = %d; want %d", n, tc.wantAttempts)
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.Status != tc.status {
				t.Fatalf("err = %v; want *APIError %d", err, tc.status)
			}
			if d := apiErr.RetryAfter - tc.wantRetryAfter; d < -time.Minute || d > time.Minute {
				t.Errorf("RetryAfter = %v; want about %v", apiErr.RetryAfter, tc.wantRetryAfter)
			}
		})
	}
}

// attemptEnded is a slog.Handler that signals when an attempt has ended,
// its body read: the SDK logs each attempt at its end.
type attemptEnded chan struct{}

func (h attemptEnded) Enabled(context.Context, slog.Level) bool { return true }
func (h attemptEnded) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "petstore: attempt" {
		h <- struct{}{}
	}
	return nil
}
func (h attemptEnded) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h attemptEnded) WithGroup(string) slog.Handler      { return h }

// TestContextEndsWaitKeepsLastError: when the context ends during the wait
// before a retry, the call ends at once with an error that matches the
// context's and still carries the last attempt's *APIError.
func TestContextEndsWaitKeepsLastError(t *testing.T) {
	t.Parallel()
	ended := make(attemptEnded, 1)
	c, mt := newTestClient(t, WithRetryWait(time.Hour, time.Hour), WithLogger(slog.New(ended)))
	mt.RegisterResponder("GET", testPets, jsonResponder(503, `{"code":"unavailable","message":"try later","status":503}`))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-ended; cancel() }()
	var err error
	wait(t, 10*time.Second, func() { _, err = c.ListPets(ctx, ListPetsParams{}) })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want it to match context.Canceled", err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || apiErr.Code != "unavailable" {
		t.Errorf("err = %v; want it to carry the 503 *APIError", err)
	}
	if n := mt.GetTotalCallCount(); n != 1 {
		t.Errorf("attempts = %d; want 1", n)
	}
	if err != nil {
		for _, s := range []string{"petstore: GET /v1/pets: ", "context canceled", "503 unavailable: try later"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not say %q", err, s)
			}
		}
	}
}

// TestWaitPastDeadlineIsNotStarted: a wait that would end after the
// context's deadline is not started: the call returns the last attempt's
// error at once, not the deadline's.
func TestWaitPastDeadlineIsNotStarted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		opts           []Option
		retryAfter     string
		wantRetryAfter time.Duration
	}{
		{"computed wait", []Option{WithRetryWait(time.Hour, time.Hour)}, "", 0},
		{"Retry-After within the maximum wait", []Option{WithRetryWait(time.Millisecond, 3*time.Hour)}, "7200", 2 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t, tc.opts...)
			mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(503, `{"code":"unavailable","message":"try later","status":503}`)
				if tc.retryAfter != "" {
					resp.Header.Set("Retry-After", tc.retryAfter)
				}
				return resp, nil
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			var err error
			wait(t, 10*time.Second, func() { _, err = c.ListPets(ctx, ListPetsParams{}) })
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.Status != 503 || apiErr.RetryAfter != tc.wantRetryAfter {
				t.Errorf("err = %v; want the 503 *APIError with RetryAfter %v", err, tc.wantRetryAfter)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v matches DeadlineExceeded; the deadline has not passed", err)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("attempts = %d; want 1", n)
			}
		})
	}
}

// stallingServer answers nothing until the test ends; it counts requests.
func stallingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv, &hits
}

func TestPerAttemptTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		call         func(*Client) error
		opts         []Option
		wantAttempts int64
		wantSource   string // in the error, where the limit came from
	}{
		{"GET is retried", func(c *Client) error { _, err := c.ListPets(context.Background(), ListPetsParams{}); return err },
			[]Option{WithTimeout(50 * time.Millisecond)}, 3, "(WithTimeout)"},
		{"POST is not", func(c *Client) error {
			_, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1})
			return err
		}, []Option{WithTimeout(50 * time.Millisecond)}, 1, "(WithTimeout)"},
		{"http.Client's Timeout is the default", func(c *Client) error {
			_, err := c.ListPets(context.Background(), ListPetsParams{})
			return err
		}, []Option{WithHTTPClient(&http.Client{Timeout: 50 * time.Millisecond}), WithMaxRetries(0)}, 1, "(the WithHTTPClient client's Timeout)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, hits := stallingServer(t)
			logs := &recordHandler{}
			opts := append([]Option{WithBaseURL(srv.URL + "/v1"), WithRetryWait(time.Millisecond, time.Millisecond), WithLogger(logs.logger())}, tc.opts...)
			c, err := NewClient(testKey, opts...)
			if err != nil {
				t.Fatal(err)
			}
			wait(t, 10*time.Second, func() { err = tc.call(c) })
			if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, new(*APIError)) {
				t.Errorf("err = %v; want context.DeadlineExceeded, not *APIError", err)
			}
			if err != nil && !strings.Contains(err.Error(), "attempt timed out after 50ms "+tc.wantSource) {
				t.Errorf("error %q does not say the attempt timed out", err)
			}
			// Counted by the client: on a busy machine an attempt may time
			// out before the server has read its request.
			attempts := logs.attempts()
			if int64(len(attempts)) != tc.wantAttempts {
				t.Errorf("made %d attempts; want %d", len(attempts), tc.wantAttempts)
			}
			for _, a := range attempts {
				if a["error"] != "timeout" {
					t.Errorf("attempt %s ended with %q; want a timeout", a["attempt"], a["error"])
				}
			}
			if n := hits.Load(); n > tc.wantAttempts {
				t.Errorf("server saw %d requests; want at most %d", n, tc.wantAttempts)
			}
		})
	}
}

func TestWithTimeoutOverridesHTTPClientTimeout(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, onePet)
	}))
	t.Cleanup(srv.Close)
	// The client's Timeout, a nanosecond, ends an attempt before its
	// connection is dialled: no sleep is needed for it to fail the call,
	// were it used. WithTimeout's 10s is only a guard against a hang.
	c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v1"), WithMaxRetries(0),
		WithHTTPClient(&http.Client{Timeout: time.Nanosecond}), WithTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	pets, err := c.ListPets(context.Background(), ListPetsParams{})
	if err != nil {
		t.Fatalf("ListPets: %v; want WithTimeout(10s) to win over the client's 1ns", err)
	}
	if diff := cmp.Diff([]Pet{{ID: 1, Name: "Rex", CategoryID: 2}}, pets); diff != "" {
		t.Errorf("ListPets (-want +got):\n%s", diff)
	}
}

// TestCreatePetRetriesRefusedConnections uses a real closed port: the dial
// fails, nothing can have been created, so CreatePet is retried.
func TestCreatePetRetriesRefusedConnections(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	logs := &recordHandler{}
	c, err := NewClient(testKey, WithBaseURL("http://"+addr+"/v1"), WithRetryWait(time.Millisecond, time.Millisecond), WithLogger(logs.logger()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1})
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("err = %v; want connection refused", err)
	}
	if n := len(logs.attempts()); n != 3 {
		t.Errorf("logged %d attempts; want 3", n)
	}
}

// TestBodyWhoseCloseDoesNotInterruptRead: a RoundTripper passed with
// WithHTTPClient whose body is an io.NopCloser around a reader that blocks
// (what many hand-written, recording and mock transports return), or one
// that returns no byte and no error forever, does not hold the call up:
// the call ends with the attempt's time or the context, or with
// io.ErrNoProgress.
func TestBodyWhoseCloseDoesNotInterruptRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    func(release <-chan struct{}) io.Reader
		want    error
		timeout time.Duration // WithTimeout
		ctx     time.Duration // the call's context
	}{
		{"a Read that blocks, attempt timeout first", blockedUntil, context.DeadlineExceeded, 200 * time.Millisecond, time.Minute},
		{"a Read that blocks, context first", blockedUntil, context.DeadlineExceeded, time.Minute, 300 * time.Millisecond},
		{"(0, nil) forever", func(<-chan struct{}) io.Reader { return noProgress{} }, io.ErrNoProgress, time.Minute, time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			t.Cleanup(func() { close(release) }) // the abandoned Read returns, so goleak finds nothing
			rt := roundTripFunc(func(*http.Request) (*http.Response, error) {
				body := io.NopCloser(io.MultiReader(strings.NewReader(`[{"id":1,`), tc.body(release)))
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: body, ContentLength: -1}, nil
			})
			c, err := NewClient(testKey, WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: rt}), WithMaxRetries(0), WithTimeout(tc.timeout))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), tc.ctx)
			defer cancel()
			var pets []Pet
			wait(t, 30*time.Second, func() { pets, err = c.ListPets(ctx, ListPetsParams{}) })
			if pets != nil || !errors.Is(err, tc.want) {
				t.Errorf("ListPets = %v, %v; want an error that matches %v", pets, err, tc.want)
			}
		})
	}
}

// blockedUntil returns a reader whose Read blocks until release is closed.
func blockedUntil(release <-chan struct{}) io.Reader {
	return readerFunc(func([]byte) (int, error) { <-release; return 0, io.EOF })
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// noProgress returns (0, nil) forever, as io.ErrNoProgress describes.
type noProgress struct{}

func (noProgress) Read([]byte) (int, error) { return 0, nil }

// TestBodyOfReadResponseEndsWithTheAttempt: a hand-written RoundTripper
// that reads its response with http.ReadResponse returns a body whose Close
// waits for a blocked Read; a server that stalls mid-body still does not
// hold the call past its attempt's time.
func TestBodyOfReadResponseEndsWithTheAttempt(t *testing.T) {
	t.Parallel()
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n" + `[{"id":1,`
	addr := headThenSilence(t, head)
	rt := readResponseTransport(addr)
	c, err := NewClient(testKey, WithBaseURL("http://"+addr+"/v1"), WithHTTPClient(&http.Client{Transport: rt}),
		WithMaxRetries(0), WithTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var pets []Pet
	wait(t, 30*time.Second, func() { pets, err = c.ListPets(context.Background(), ListPetsParams{}) })
	if pets != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ListPets = %v, %v; want an error that matches context.DeadlineExceeded", pets, err)
	}
}

// headThenSilence answers every request with head and then says nothing,
// until the test ends and closes the connections.
func headThenSilence(t *testing.T, head string) string {
	t.Helper()
	return serveConns(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			io.WriteString(c, head)
		}
	})
}

// serveConns hands every connection of a loopback listener to serve, in a
// goroutine of its own, and closes them all when the test ends.
func serveConns(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	var served sync.WaitGroup
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			served.Add(1)
			go func() { defer served.Done(); serve(c) }()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		served.Wait()
	})
	return l.Addr().String()
}

// TestNeverEndingBodyOfReadResponse: through a RoundTripper that returns
// http.ReadResponse's body, a 2xx body longer than the SDK reads that never
// ends (whose Close drains it to the end) does not hold the call past its
// context.
func TestNeverEndingBodyOfReadResponse(t *testing.T) {
	t.Parallel()
	draining := make(chan struct{})                                                                       // the server has sent well past the cap: the client drains
	addr := endlessBody(t, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n", 40<<20, draining) // 40 MiB: the cap and every socket buffer passed
	rt := readResponseTransport(addr)
	c, err := NewClient(testKey, WithBaseURL("http://"+addr+"/v1"), WithHTTPClient(&http.Client{Transport: rt}), WithMaxRetries(0), WithTimeout(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-draining:
			cancel()
		case <-ctx.Done(): // the call returned first (as on Go 1.23, whose Close returned at once here)
		}
	}()
	var pets []Pet
	wait(t, 30*time.Second, func() { pets, err = c.ListPets(ctx, ListPetsParams{}) })
	if pets != nil || err == nil {
		t.Errorf("ListPets = %v, %v; want an error", pets, err)
	}
	t.Logf("ListPets: %v", err)
}

// endlessBody answers every request with head and then a body of spaces
// without end, closing signal once it has sent more than after bytes of it,
// until the test ends and closes the connections.
func endlessBody(t *testing.T, head string, after int, signal chan<- struct{}) string {
	t.Helper()
	var once sync.Once
	return serveConns(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		io.WriteString(c, head)
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for sent := 0; ; sent += len(chunk) {
			if sent > after {
				once.Do(func() { close(signal) })
			}
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	})
}

// readResponseTransport is a hand-written RoundTripper, as a recording
// transport is: it writes each request on a new connection to addr and reads
// the answer with http.ReadResponse, whose body's Close waits for a blocked
// Read and drains what is left.
func readResponseTransport(addr string) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			return nil, err
		}
		if err := req.Write(conn); err != nil {
			conn.Close()
			return nil, err
		}
		return http.ReadResponse(bufio.NewReader(conn), req)
	})
}
