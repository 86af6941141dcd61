package petstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jarcoal/httpmock"
	"github.com/petstore/petstore-go/internal/transport"
)

func TestAPIErrorFromResponses(t *testing.T) {
	t.Parallel()
	bigBody := `{"code":"x","message":"` + strings.Repeat("m", 10000) + `","status":500}`
	tests := []struct {
		name        string
		status      int
		header      http.Header
		body        string
		want        *APIError
		wantString  string
		wantIs      error // nil: none of the three
		wantBodyLen int   // -1: the whole body
	}{
		{
			name: "400 Error body", status: 400,
			body:       `{"code":"invalid_body","message":"name is required","status":400}`,
			want:       &APIError{Status: 400, Code: "invalid_body", Message: "name is required"},
			wantString: "petstore: GET /v1/pets: 400 invalid_body: name is required",
			wantIs:     ErrBadRequest, wantBodyLen: -1,
		},
		{
			name: "401 with request id", status: 401,
			header:     http.Header{"X-Request-Id": {"req-42"}},
			body:       `{"code":"unauthorized","message":"bad key","status":401}`,
			want:       &APIError{Status: 401, Code: "unauthorized", Message: "bad key", RequestID: "req-42"},
			wantString: "petstore: GET /v1/pets: 401 unauthorized: bad key (request id req-42)",
			wantIs:     ErrUnauthorized, wantBodyLen: -1,
		},
		{
			name: "Request-Id header", status: 404,
			header: http.Header{"Request-Id": {"r-7"}},
			body:   `{"code":"not_found","message":"gone","status":404}`,
			want:   &APIError{Status: 404, Code: "not_found", Message: "gone" + collection404("/v1/pets"), RequestID: "r-7"},
			wantIs: ErrNotFound, wantBodyLen: -1,
		},
		{
			name: "HTTP status wins over the body's", status: 404,
			body:   `{"code":"oops","message":"m","status":500}`,
			want:   &APIError{Status: 404, Code: "oops", Message: "m" + collection404("/v1/pets")},
			wantIs: ErrNotFound, wantBodyLen: -1,
		},
		{
			name: "HTML body", status: 502,
			header:      http.Header{"Content-Type": {"text/html; charset=utf-8"}},
			body:        `<html><body>Bad gateway</body></html>`,
			want:        &APIError{Status: 502, Message: "non-JSON body (text/html, 37 bytes)"},
			wantString:  "petstore: GET /v1/pets: 502: non-JSON body (text/html, 37 bytes)",
			wantBodyLen: -1,
		},
		{
			name: "empty body", status: 500,
			want:        &APIError{Status: 500, Message: "empty response body"},
			wantString:  "petstore: GET /v1/pets: 500: empty response body",
			wantBodyLen: 0,
		},
		{
			name: "other JSON", status: 403,
			body:        `{"error":"forbidden"}`,
			want:        &APIError{Status: 403, Message: "JSON body without code or message (21 bytes)"},
			wantBodyLen: -1,
		},
		{
			name: "JSON array", status: 409,
			body:        `["conflict"]`,
			want:        &APIError{Status: 409, Message: "JSON array, not an Error object (12 bytes)"},
			wantBodyLen: -1,
		},
		{
			name: "message only", status: 418,
			body:        `{"message":"I'm a teapot"}`,
			want:        &APIError{Status: 418, Message: "I'm a teapot"},
			wantString:  "petstore: GET /v1/pets: 418: I'm a teapot",
			wantBodyLen: -1,
		},
		{
			name: "Retry-After seconds", status: 429,
			header:      http.Header{"Retry-After": {"3600"}},
			body:        `{"code":"rate_limited","message":"slow down","status":429}`,
			want:        &APIError{Status: 429, Code: "rate_limited", Message: "slow down", RetryAfter: time.Hour},
			wantString:  "petstore: GET /v1/pets: 429 rate_limited: slow down (retry after 1h0m0s)",
			wantBodyLen: -1,
		},
		{
			name: "Retry-After: 30, with a request id", status: 429,
			header:      http.Header{"Retry-After": {"30"}, "X-Request-Id": {"req-7"}},
			body:        `{"code":"too_many_requests","message":"slow down","status":429}`,
			want:        &APIError{Status: 429, Code: "too_many_requests", Message: "slow down", RequestID: "req-7", RetryAfter: 30 * time.Second},
			wantString:  "petstore: GET /v1/pets: 429 too_many_requests: slow down (request id req-7) (retry after 30s)",
			wantBodyLen: -1,
		},
		{
			name: "Retry-After on a 404 is kept", status: 404,
			header:      http.Header{"Retry-After": {"5"}},
			body:        `{"code":"not_found","message":"gone","status":404}`,
			want:        &APIError{Status: 404, Code: "not_found", Message: "gone" + collection404("/v1/pets"), RetryAfter: 5 * time.Second},
			wantIs:      ErrNotFound,
			wantBodyLen: -1,
		},
		{
			name: "long body is cut to 8 KiB", status: 500,
			body:        bigBody,
			want:        &APIError{Status: 500, Code: "x", Message: strings.Repeat("m", 10000)},
			wantBodyLen: 8 << 10,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t, WithMaxRetries(0))
			mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(tc.status, tc.body)
				for k, v := range tc.header {
					resp.Header[k] = v
				}
				return resp, nil
			})
			_, err := c.ListPets(context.Background(), ListPetsParams{})
			var got *APIError
			if !errors.As(err, &got) {
				t.Fatalf("err = %v (%T); want *APIError", err, err)
			}
			wantBody := tc.body
			if tc.wantBodyLen >= 0 {
				wantBody = tc.body[:tc.wantBodyLen]
			}
			if string(got.Body) != wantBody {
				t.Errorf("Body = %d bytes %.40q...; want %d bytes", len(got.Body), got.Body, len(wantBody))
			}
			want := *tc.want
			want.Method, want.Path = "GET", "/v1/pets"
			if diff := cmp.Diff(&want, got, cmpopts.IgnoreFields(APIError{}, "Body")); diff != "" {
				t.Errorf("APIError (-want +got):\n%s", diff)
			}
			if tc.wantString != "" && got.Error() != tc.wantString {
				t.Errorf("Error() = %q; want %q", got.Error(), tc.wantString)
			}
			for _, sentinel := range []error{ErrBadRequest, ErrUnauthorized, ErrNotFound} {
				if is := errors.Is(err, sentinel); is != (sentinel == tc.wantIs) {
					t.Errorf("errors.Is(err, %v) = %v", sentinel, is)
				}
			}
			if errors.Is(err, ErrInvalidParams) {
				t.Error("an APIError matches ErrInvalidParams")
			}
		})
	}
}

// TestAPIErrorNamesRetryAfter: Error() ends with the Retry-After, in whole
// seconds rounded up (an HTTP date leaves a fraction), so that a log line
// says when to come back.
func TestAPIErrorNamesRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		after time.Duration
		want  string
	}{
		{0, "petstore: GET /v1/pets: 429 too_many_requests: slow down"},
		{30 * time.Second, "petstore: GET /v1/pets: 429 too_many_requests: slow down (retry after 30s)"},
		{90 * time.Second, "petstore: GET /v1/pets: 429 too_many_requests: slow down (retry after 1m30s)"},
		{29*time.Second + 300*time.Millisecond, "petstore: GET /v1/pets: 429 too_many_requests: slow down (retry after 30s)"},
		{time.Millisecond, "petstore: GET /v1/pets: 429 too_many_requests: slow down (retry after 1s)"},
	} {
		e := &APIError{Status: 429, Code: "too_many_requests", Message: "slow down", Method: "GET", Path: "/v1/pets", RetryAfter: tc.after}
		if diff := cmp.Diff(tc.want, e.Error()); diff != "" {
			t.Errorf("RetryAfter %v: Error() (-want +got):\n%s", tc.after, diff)
		}
	}
}

func TestAPIErrorErrorIsNilSafe(t *testing.T) {
	t.Parallel()
	var e *APIError
	if got := e.Error(); got != "petstore: <nil *APIError>" {
		t.Errorf("nil Error() = %q", got)
	}
	if e.Is(ErrNotFound) {
		t.Error("nil APIError matches ErrNotFound")
	}
	// An APIError made by hand (no request) still reads well.
	if got := (&APIError{Status: 404}).Error(); got != "petstore: 404 Not Found" {
		t.Errorf("Error() = %q", got)
	}
}

func TestErrorBodyReadIsCapped(t *testing.T) {
	t.Parallel()
	c, mt := newTestClient(t, WithMaxRetries(0))
	r := &countingReader{n: 10 << 20, closeSignal: newCloseSignal()}
	mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 500, Header: http.Header{}, Body: r, ContentLength: -1}, nil
	})
	_, err := c.ListPets(context.Background(), ListPetsParams{})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 500 {
		t.Fatalf("err = %v; want *APIError 500", err)
	}
	if r.read > transport.MaxErrorBody+1 {
		t.Errorf("read %d bytes of an error body; want at most %d", r.read, transport.MaxErrorBody+1)
	}
	r.waitClosed(t)
}

func TestSuccessBodyOver10MiBIsAnError(t *testing.T) {
	t.Parallel()
	c, mt := newTestClient(t) // retries on: the error must not be retried
	r := &countingReader{n: 11 << 20, closeSignal: newCloseSignal()}
	mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: r, ContentLength: -1}, nil
	})
	pets, err := c.ListPets(context.Background(), ListPetsParams{})
	if pets != nil || err == nil || !strings.Contains(err.Error(), "exceeds 10 MiB") {
		t.Fatalf("ListPets = %v, %v; want an error about the size", pets, err)
	}
	if errors.As(err, new(*APIError)) {
		t.Error("size error is an *APIError")
	}
	if n := mt.GetTotalCallCount(); n != 1 {
		t.Errorf("attempts = %d; want 1 (not retried)", n)
	}
	if r.read > transport.MaxSuccessBody+1 {
		t.Errorf("read %d bytes; want at most %d", r.read, transport.MaxSuccessBody+1)
	}
	r.waitClosed(t)
}

// countingReader is a body of n bytes of JSON-ish filler that counts what
// is read and says when it is closed.
type countingReader struct {
	n, read int
	*closeSignal
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.read >= r.n {
		return 0, io.EOF
	}
	k := min(len(p), r.n-r.read)
	for i := range p[:k] {
		p[i] = ' '
	}
	r.read += k
	return k, nil
}

// closeSignal is the Close of a test's body, which says when it is called.
type closeSignal struct {
	once   sync.Once
	closed chan struct{}
}

func newCloseSignal() *closeSignal { return &closeSignal{closed: make(chan struct{})} }

func (s *closeSignal) Close() error { s.once.Do(func() { close(s.closed) }); return nil }

// waitClosed fails t unless the body is closed within 10 s (a bound for a
// broken build): a body read up to its cap is closed apart from the call.
func (s *closeSignal) waitClosed(t *testing.T) {
	t.Helper()
	wait(t, 10*time.Second, func() { <-s.closed })
}

func TestBodiesAreClosed(t *testing.T) {
	t.Parallel()
	spaces := func(n int64) func() io.Reader {
		return func() io.Reader { return io.LimitReader(spaceReader{}, n) }
	}
	tests := []struct {
		name   string
		status int
		body   string
		reader func() io.Reader // the body, when not body: read without a Content-Length
		header http.Header
	}{
		{"success", 200, `[]`, nil, nil},
		{"API error", 404, `{"code":"not_found","message":"m","status":404}`, nil, nil},
		{"bad body", 200, `{`, nil, nil},
		{"retried then given up", 503, ``, nil, nil},
		{"transport error after the headers", 200, "", func() io.Reader {
			return io.MultiReader(strings.NewReader(`[{"id":1,`), iotest.ErrReader(syscall.ECONNRESET))
		}, nil},
		{"success body over 10 MiB", 200, "", spaces(transport.MaxSuccessBody + 1), nil},
		{"error body over 64 KiB", 500, "", spaces(transport.MaxErrorBody + 1), nil},
		{"redirect refused", 302, "moved", nil, http.Header{"Location": {"https://elsewhere.test/v1/pets"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t)
			var bodies []*closeRecorder
			mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
				resp := &http.Response{StatusCode: tc.status, Header: http.Header{}, ContentLength: int64(len(tc.body))}
				b := &closeRecorder{Reader: strings.NewReader(tc.body), closeSignal: newCloseSignal()}
				if tc.reader != nil {
					b.Reader, resp.ContentLength = tc.reader(), -1
				}
				for k, v := range tc.header {
					resp.Header[k] = v
				}
				bodies = append(bodies, b)
				resp.Body = b
				return resp, nil
			})
			if _, err := c.ListPets(context.Background(), ListPetsParams{}); err == nil && tc.status != 200 {
				t.Errorf("no error for %d", tc.status)
			}
			if len(bodies) == 0 {
				t.Fatal("no request made")
			}
			for _, b := range bodies {
				b.waitClosed(t)
			}
		})
	}
}

type closeRecorder struct {
	io.Reader
	*closeSignal
}

// spaceReader reads spaces, for ever.
type spaceReader struct{}

func (spaceReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestTransportErrorsAreWrapped(t *testing.T) {
	t.Parallel()
	c, mt := newTestClient(t, WithMaxRetries(0))
	cause := errors.New("connection reset by peer")
	mt.RegisterResponder("GET", testPets, httpmock.NewErrorResponder(cause))
	_, err := c.ListPets(context.Background(), ListPetsParams{})
	if err == nil || errors.As(err, new(*APIError)) {
		t.Fatalf("err = %v; want a transport error, not *APIError", err)
	}
	if !errors.Is(err, cause) || !errors.As(err, new(*url.Error)) {
		t.Errorf("err = %v; want it to wrap the cause and the *url.Error", err)
	}
	if want := "petstore: GET /v1/pets: connection reset by peer"; err.Error() != want {
		t.Errorf("Error() = %q; want %q", err, want)
	}
}

func TestErrorsNameThePathWithoutABasePath(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("GET", "https://h.test/pets", jsonResponder(404, `{"code":"not_found","message":"m","status":404}`))
	c, err := NewClient(testKey, WithBaseURL("https://h.test"), WithHTTPClient(&http.Client{Transport: mt}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListPets(context.Background(), ListPetsParams{})
	if want := "petstore: GET /pets: 404 not_found: m" + collection404("/pets"); err == nil || err.Error() != want {
		t.Errorf("err = %v; want %q", err, want)
	}
}

func TestOddTransportsDoNotPanic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		rt      roundTripFunc
		wantErr string // "": success
		wantAPI int
	}{
		{"nil body on a 404", func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 404, Header: http.Header{}}, nil
		}, "", 404},
		{"nil body on a 200", func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{}}, nil
		}, "unexpected response body", 0},
		{"no response and no error", func(*http.Request) (*http.Response, error) { return nil, nil }, "no response and no error", 0},
		{"response and error", func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Body: http.NoBody}, errors.New("boom")
		}, "boom", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewClient(testKey, WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: tc.rt}), WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			pets, err := c.ListPets(context.Background(), ListPetsParams{})
			var apiErr *APIError
			switch {
			case tc.wantAPI != 0:
				if !errors.As(err, &apiErr) || apiErr.Status != tc.wantAPI {
					t.Errorf("ListPets = %v, %v; want *APIError %d", pets, err, tc.wantAPI)
				}
			case err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.As(err, &apiErr):
				t.Errorf("ListPets = %v, %v; want an error containing %q, not *APIError", pets, err, tc.wantErr)
			}
		})
	}
}

// TestCutErrorBodyKeepsItsStatus: a non-2xx answer whose body breaks off is
// still that answer, and its message says the body was cut short; a 429 to
// CreatePet is still retried.
func TestCutErrorBodyKeepsItsStatus(t *testing.T) {
	t.Parallel()
	cut := func(status int) httpmock.Responder {
		return func(*http.Request) (*http.Response, error) {
			body := io.MultiReader(strings.NewReader(`{"code":"x","mess`), iotest.ErrReader(io.ErrUnexpectedEOF))
			return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(body), ContentLength: 100}, nil
		}
	}
	c, mt := newTestClient(t)
	mt.RegisterResponder("GET", testPets+"/7", cut(404))
	mt.RegisterResponder("POST", testPets, sequence(cut(429), jsonResponder(201, `{"id":3,"name":"Rex","categoryId":1}`)))
	_, err := c.GetPet(context.Background(), 7)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("GetPet = %v; want an *APIError with Status 404", err)
	}
	if want := "response body cut short after 17 bytes"; apiErr.Message != want {
		t.Errorf("Message = %q; want %q", apiErr.Message, want)
	}
	if pet, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1}); err != nil || pet.ID != 3 {
		t.Errorf("CreatePet = %v, %v; want the pet created by the retry after the 429", pet, err)
	}
	if n := mt.GetTotalCallCount(); n != 3 {
		t.Errorf("requests = %d; want 3 (404 not retried, 429 retried once)", n)
	}
}

// TestCreatePetBodyCutByContext: a CreatePet whose status arrived but whose
// body the context cut fails with an error that matches the context's. A
// 400 or 503 is the server's answer: the outcome is known, not
// ErrOutcomeUnknown. A 201 created the animal, which the caller cannot see:
// ErrOutcomeUnknown says to list before creating again.
func TestCreatePetBodyCutByContext(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status  int
		unknown bool
	}{{400, false}, {503, false}, {201, true}} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			t.Cleanup(func() { close(release) }) // the abandoned Read returns, so goleak finds nothing
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rt := roundTripFunc(func(*http.Request) (*http.Response, error) {
				stall := readerFunc(func([]byte) (int, error) { cancel(); <-release; return 0, io.EOF })
				body := io.NopCloser(io.MultiReader(strings.NewReader(`{"code":`), stall))
				return &http.Response{StatusCode: tc.status, Header: http.Header{"Content-Type": {"application/json"}}, Body: body, ContentLength: -1}, nil
			})
			c, err := NewClient(testKey, WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: rt}), WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			wait(t, 30*time.Second, func() { _, err = c.CreatePet(ctx, NewPet{Name: "Rex", CategoryID: 1}) })
			if !errors.Is(err, context.Canceled) || errors.Is(err, ErrOutcomeUnknown) != tc.unknown {
				t.Errorf("CreatePet: %v; want an error that matches context.Canceled, and ErrOutcomeUnknown: %v", err, tc.unknown)
			}
		})
	}
}

// TestErrorBodyNearlyTheErrorShape: an error body that is JSON but not
// quite the Error shape keeps what can be kept (a string message, a
// string code) and describes the rest truthfully, not as
// "non-JSON"; so does an Error body over the 64 KiB the SDK reads of it.
func TestErrorBodyNearlyTheErrorShape(t *testing.T) {
	t.Parallel()
	const max = transport.MaxErrorBody
	pad := func(n int) string { return strings.Repeat("x", n) }
	// long returns body, made max+1000 bytes long by padding it at its
	// "%s", so that the SDK reads only its first max bytes.
	long := func(body string) string {
		return fmt.Sprintf(body, pad(max+1000-len(body)+2))
	}
	// cutIn returns head, then digits enough to cross the 64 KiB cut.
	cutIn := func(head string) string { return head + strings.Repeat("7", max+10-len(head)) + `}` }
	tests := []struct {
		name       string
		body       string
		wantCode   string
		wantMsg    string
		wantString string // "": not checked
	}{
		{
			name: "numeric code", body: `{"code":400,"message":"name is required"}`,
			wantMsg:    "name is required",
			wantString: "petstore: GET /v1/pets: 400: name is required",
		},
		{name: "numeric code only", body: `{"code":400}`, wantMsg: `JSON body whose "code" is a number (12 bytes)`},
		{name: "empty code only", body: `{"code":""}`, wantString: "petstore: GET /v1/pets: 400 Bad Request"},
		{name: "numeric code, null message", body: `{"code":400,"message":null}`, wantMsg: `JSON body whose "code" is a number (27 bytes)`},
		{name: "code of another type is dropped", body: `{"code":true,"message":"m"}`, wantMsg: "m"},
		{name: "code an array, no message", body: `{"code":["a"]}`, wantMsg: `JSON body whose "code" is an array (14 bytes)`},
		{
			name: "message an array", body: `{"code":"invalid_body","message":["name is required"]}`,
			wantCode: "invalid_body", wantMsg: `JSON body whose "message" is an array (54 bytes)`,
			wantString: `petstore: GET /v1/pets: 400 invalid_body: JSON body whose "message" is an array (54 bytes)`,
		},
		{name: "message an object", body: `{"message":{"text":"m"}}`, wantMsg: `JSON body whose "message" is an object (24 bytes)`},
		{name: "message a number", body: `{"code":"c","message":42}`, wantCode: "c", wantMsg: `JSON body whose "message" is a number (25 bytes)`},
		{name: "message a boolean", body: `{"message":false}`, wantMsg: `JSON body whose "message" is a boolean (17 bytes)`},
		{name: "the last message wins", body: `{"message":["a"],"MESSAGE":"b"}`, wantMsg: "b"},
		{name: "the last message wins, an array", body: `{"message":"a","message":[]}`, wantMsg: `JSON body whose "message" is an array (28 bytes)`},
		{name: "top-level array", body: `["conflict"]`, wantMsg: "JSON array, not an Error object (12 bytes)"},
		{name: "top-level string", body: `"oops"`, wantMsg: "JSON string, not an Error object (6 bytes)"},
		{name: "top-level number", body: ` 42 `, wantMsg: "JSON number, not an Error object (4 bytes)"},
		{name: "top-level boolean", body: `true`, wantMsg: "JSON boolean, not an Error object (4 bytes)"},
		{name: "top-level null", body: `null`, wantMsg: "JSON null, not an Error object (4 bytes)"},
		{name: "invalid JSON stays non-JSON", body: `{"code":400,"message":"m"`, wantMsg: "non-JSON body (application/json, 25 bytes)"},
		{
			name: "over 64 KiB, code and message before the cut", body: long(`{"code":"too_large","message":"request too large","detail":"%s"}`),
			wantCode: "too_large", wantMsg: "request too large",
		},
		{
			name: "over 64 KiB, message after the cut", body: long(`{"code":"c","detail":"%s","message":"m"}`),
			wantCode: "c", wantMsg: `JSON body cut at 64 KiB with no "message" before the cut (65536 bytes)`,
		},
		{
			name: "over 64 KiB, cut inside the message", body: long(`{"code":"400","message":"%s"}`),
			wantCode: "400", wantMsg: `JSON body cut at 64 KiB inside its "message", a string (65536 bytes)`,
		},
		{
			name: "over 64 KiB, cut inside an array message", body: long(`{"message":["%s"],"code":"c"}`),
			wantMsg: `JSON body cut at 64 KiB inside its "message", an array (65536 bytes)`,
		},
		{name: "over 64 KiB, cut inside a numeric code", body: cutIn(`{"message":"m","code":`), wantMsg: "m"},
		{name: "over 64 KiB, cut inside a number message", body: cutIn(`{"message":`), wantMsg: `JSON body cut at 64 KiB inside its "message", a number (65536 bytes)`},
		{name: "over 64 KiB, top-level array", body: long(`["%s"]`), wantMsg: "JSON array, not an Error object, cut at 64 KiB (65536 bytes)"},
		{name: "over 64 KiB, invalid JSON before the cut", body: long(`{"code":"c",,"message":"%s"}`), wantMsg: "non-JSON body (application/json, 65536 bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t, WithMaxRetries(0))
			mt.RegisterResponder("GET", testPets, jsonResponder(http.StatusBadRequest, tc.body))
			_, err := c.ListPets(context.Background(), ListPetsParams{})
			var got *APIError
			if !errors.As(err, &got) {
				t.Fatalf("err = %v (%T); want *APIError", err, err)
			}
			want := &APIError{Status: 400, Code: tc.wantCode, Message: tc.wantMsg, Method: "GET", Path: "/v1/pets"}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(APIError{}, "Body")); diff != "" {
				t.Errorf("APIError (-want +got):\n%s", diff)
			}
			if tc.wantString != "" {
				if diff := cmp.Diff(tc.wantString, got.Error()); diff != "" {
					t.Errorf("Error() (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestEscapedKeyInErrorBodyIsRedacted(t *testing.T) {
	t.Parallel()
	// The key with its first letter escaped, so that the raw body does not
	// hold it but the decoded message does.
	escaped := `\u00` + fmt.Sprintf("%02x", testKey[0]) + testKey[1:]
	c, mt := newTestClient(t, WithMaxRetries(0))
	mt.RegisterResponder("GET", testPets, jsonResponder(401, `{"code":"`+escaped+`","message":"bad key `+escaped+`","status":401}`))
	_, err := c.ListPets(context.Background(), ListPetsParams{})
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v; want *APIError", err)
	}
	for _, s := range []string{err.Error(), apiErr.Code, apiErr.Message, fmt.Sprintf("%+v", *apiErr)} {
		if strings.Contains(s, testKey) {
			t.Errorf("the key shows in %q", s)
		}
	}
	if apiErr.Message != "bad key [REDACTED]" {
		t.Errorf("Message = %q; want %q", apiErr.Message, "bad key [REDACTED]")
	}
}

func TestKeyInTransportErrorIsRedactedThroughout(t *testing.T) {
	t.Parallel()
	cause := errors.New(`malformed MIME header: missing colon: "Bearer ` + testKey + `"`)
	c, mt := newTestClient(t, WithMaxRetries(0))
	mt.RegisterResponder("GET", testPets, httpmock.NewErrorResponder(cause))
	_, err := c.ListPets(context.Background(), ListPetsParams{})
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v; want a *url.Error inside", err)
	}
	if !errors.Is(err, cause) {
		t.Errorf("err = %v; want the chain kept to its cause", err)
	}
	// The SDK's errors show no key; the cause, past them, is the
	// transport's own.
	for e := error(err); e != nil && e != cause; e = errors.Unwrap(e) {
		for _, verb := range printVerbs {
			if s := fmt.Sprintf(verb, e); strings.Contains(s, testKey) {
				t.Errorf("%T in the chain printed with %s shows the key: %s", e, verb, s)
			}
		}
	}
	if !strings.Contains(err.Error(), "Bearer [REDACTED]") || !strings.Contains(ue.Error(), "Bearer [REDACTED]") {
		t.Errorf("err = %v, its *url.Error %v; want the redacted text", err, ue)
	}
}

// TestRedactedTimeoutKeepsItsChain: with a short key that the text of a
// timeout holds, a WithTimeout timeout still matches
// context.DeadlineExceeded, as error and as the observer's Attempt.Err, and
// no marker is redacted again. The key "t" stands in words only, which a
// short key never eats; "timed" stands alone in "attempt timed out" and is
// redacted.
func TestRedactedTimeoutKeepsItsChain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key      string
		redacted bool
	}{{"t", false}, {"timed", true}} {
		t.Run(tc.key, func(t *testing.T) {
			t.Parallel()
			err, attemptErr := timeoutWithKey(t, tc.key)
			for name, e := range map[string]error{"error": err, "Attempt.Err": attemptErr} {
				if !errors.Is(e, context.DeadlineExceeded) {
					t.Errorf("%s = %v; want it to match context.DeadlineExceeded", name, e)
				}
				var ue *url.Error
				if !errors.As(e, &ue) || !ue.Timeout() {
					t.Errorf("%s = %v; want a *url.Error inside whose Timeout() is true", name, e)
				}
				if e == nil || strings.Contains(e.Error(), "[REDACTED]") != tc.redacted {
					t.Errorf("%s = %v; want [REDACTED] in it: %v", name, e, tc.redacted)
					continue
				}
				for _, verb := range printVerbs[:5] {
					s := fmt.Sprintf(verb, e)
					if strings.Contains(strings.ReplaceAll(s, "[REDACTED]", ""), "[REDAC") || strings.Contains(strings.ReplaceAll(s, "[REDACTED]", ""), "ED]") {
						t.Errorf("%s printed with %s: %s: a marker inside a marker", name, verb, s)
					}
				}
			}
		})
	}
}

// timeoutWithKey returns the error of a ListPets with the key whose one
// attempt never answers and ends with WithTimeout, and its Attempt.Err.
func timeoutWithKey(t *testing.T, key string) (err, attemptErr error) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := NewClient(key, WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: mt}), WithMaxRetries(0),
		WithTimeout(100*time.Millisecond), // the responder never answers: only the attempt's end matters
		WithObserver(func(_ context.Context, a Attempt) { attemptErr = a.Err }))
	if err != nil {
		t.Fatal(err)
	}
	mt.RegisterResponder("GET", testPets, func(req *http.Request) (*http.Response, error) {
		<-req.Context().Done()
		return nil, req.Context().Err()
	})
	_, err = c.ListPets(context.Background(), ListPetsParams{})
	return err, attemptErr
}

// echoKey holds a "/" (PHP's JSON encoder writes "\/"), a "+" (.NET's
// writes "\u002B") and letters of both cases, and is a valid media type.
const echoKey = "Pk_Live/7f+Q.x~Z9"

// echoClient returns a Client with echoKey that sends through a fresh
// MockTransport, without retries.
func echoClient(t *testing.T, opts ...Option) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := NewClient(echoKey, append([]Option{WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: mt}), WithMaxRetries(0)}, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c, mt
}

// cutBody returns a JSON error body over maxErrorSample bytes whose sample
// (its first maxErrorSample bytes) ends with the first n bytes of form.
func cutBody(form string, n int) string {
	head := `{"message":"cut","pad":"`
	pad := strings.Repeat("x", maxErrorSample-n-len(head)-len(`","echo":"`))
	return head + pad + `","echo":"` + form + `","more":"` + strings.Repeat("y", 100) + `"}`
}

// TestKeyEchoedInAnotherFormIsRedacted: a server echoes the key escaped as
// JSON encoders do, as HTML character references in an HTML page, in
// another letter case, as a media type, or cut off at the end of the body
// sample; no field of the APIError, and no fmt verb of the error, the
// *APIError or the APIError value (fmt.Sprintf("%s", *apiErr) prints Body)
// shows it.
func TestKeyEchoedInAnotherFormIsRedacted(t *testing.T) {
	t.Parallel()
	phpForm := strings.ReplaceAll(echoKey, "/", `\/`)
	netForm := strings.ReplaceAll(echoKey, "+", `\u002B`)
	bothForm := strings.ReplaceAll(phpForm, "+", `\u002B`)
	const html = "text/html; charset=utf-8"
	page := func(echo string) string {
		return "<html><body><h1>401</h1><p>Authorization: Bearer " + echo + "</p></body></html>"
	}
	named := strings.NewReplacer("/", "&sol;", "+", "&plus;", ".", "&period;", "_", "&lowbar;").Replace(echoKey)
	tests := []struct {
		name        string
		contentType string
		requestID   string
		body        string
		wantCut     bool // the Body sample must end with [REDACTED]
	}{
		{name: `PHP: "/" as "\/"`, body: `{"code":"unauthorized","message":"bad key ` + phpForm + `"}`},
		{name: `.NET: "+" as "\u002B"`, body: `{"code":"unauthorized","message":"bad key ` + netForm + `"}`},
		{name: `"+" as "\u002b"`, body: `{"code":"unauthorized","message":"bad key ` + strings.ReplaceAll(echoKey, "+", `\u002b`) + `"}`},
		{name: "every character escaped", body: `{"code":"unauthorized","message":"bad key ` + each(echoKey, `\u%04X`) + `"}`},
		{name: "upper case in the body", body: `{"code":"unauthorized","message":"bad key ` + strings.ToUpper(echoKey) + `"}`},
		{name: "lower case as the code", body: `{"code":"` + strings.ToLower(echoKey) + `","message":"bad key"}`},
		{name: "upper case as the request id", body: `{"code":"unauthorized"}`, requestID: "req-" + strings.ToUpper(echoKey)},
		{name: "escaped as the request id", body: `{"code":"unauthorized"}`, requestID: "req-" + phpForm},
		{name: "as the media type of a non-JSON body", contentType: echoKey + "; charset=utf-8", body: "<html>unauthorized</html>"},
		{name: "cut after 5 characters, upper case", body: cutBody(strings.ToUpper(echoKey), 5), wantCut: true},
		{name: `cut inside "\u002B"`, body: cutBody(bothForm, len(`Pk_Live\/7f\u00`)), wantCut: true},
		{name: `cut after "\/"`, body: cutBody(bothForm, len(`Pk_Live\/`)), wantCut: true},
		{name: "cut after 3 escaped characters", body: cutBody(each(echoKey, `\u%04X`), 18), wantCut: true},
		// A proxy's HTML page (html/template writes "+" as "&#43;").
		{name: "HTML: + as &#43;", contentType: html, body: page(strings.ReplaceAll(echoKey, "+", "&#43;"))},
		{name: "HTML: + as &#x2B;, / as &#x2f;", contentType: html, body: page(strings.NewReplacer("+", "&#x2B;", "/", "&#x2f;").Replace(echoKey))},
		{name: "HTML: &sol; &plus; &period; &lowbar;", contentType: html, body: page(named)},
		{name: "HTML: every character as &#xHH;", contentType: html, body: page(each(echoKey, "&#x%X;"))},
		{name: "HTML: every character as &#DD;, upper case", contentType: html, body: page(each(strings.ToUpper(echoKey), "&#%d;"))},
		{name: "HTML, percent and JSON escapes mixed", contentType: html, body: page(`Pk&#95;Live%2F7f&#43;Q\u002ex~Z9`)},
		{name: "HTML: cut inside &#43;", contentType: html, body: cutBody(strings.ReplaceAll(echoKey, "+", "&#43;"), len("Pk_Live/7f&#4")), wantCut: true},
		{name: "HTML: cut inside &sol;", contentType: html, body: cutBody(named, len("Pk&lowbar;Live&so")), wantCut: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := echoClient(t)
			mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(http.StatusUnauthorized, tc.body)
				resp.Header.Set("Content-Type", "application/json")
				if tc.contentType != "" {
					resp.Header.Set("Content-Type", tc.contentType)
				}
				if tc.requestID != "" {
					resp.Header.Set("X-Request-Id", tc.requestID)
				}
				return resp, nil
			})
			_, err := c.ListPets(context.Background(), ListPetsParams{})
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v; want *APIError", err)
			}
			if tc.wantCut && !strings.HasSuffix(string(apiErr.Body), "[REDACTED]") {
				t.Errorf("Body sample ends with %q; want the start of the key redacted", apiErr.Body[max(0, len(apiErr.Body)-40):])
			}
			if tc.contentType == html && !strings.Contains(string(apiErr.Body), "[REDACTED]") { // a mixed form assertNoKey cannot read
				t.Errorf("Body = %q; want the key redacted", apiErr.Body)
			}
			assertNoKey(t, echoKey, map[string]string{
				"Error()": err.Error(), "Code": apiErr.Code, "Message": apiErr.Message,
				"RequestID": apiErr.RequestID, "Body": string(apiErr.Body),
			}, map[string]any{"error": err, "*APIError": apiErr, "APIError": *apiErr})
		})
	}
}

// percentEscapes are percent-encoded bytes, hex digits in either case.
var percentEscapes = regexp.MustCompile(`%[0-9a-fA-F]{2}`)

// showsPercentKey reports whether s holds key with any of its characters
// percent-encoded, JSON-escaped or in another letter case.
func showsPercentKey(s, key string) bool {
	s = percentEscapes.ReplaceAllStringFunc(s, func(e string) string {
		n, _ := strconv.ParseUint(e[1:], 16, 8)
		return string(rune(n))
	})
	return showsKey(s, key)
}

// TestPercentEncodedKeyIsRedacted: a server echoes the key percent-encoded,
// as a form-encoded error or a link writes it ("/" as %2F, "+" as %2B, "="
// as %3D, hex digits in either case, mixed with JSON escapes); Error() and
// every field of the APIError show "[REDACTED]" instead.
func TestPercentEncodedKeyIsRedacted(t *testing.T) {
	t.Parallel()
	const padded = "Pk_Live/7f+Q=="
	tests := []struct {
		name      string
		key       string // "": echoKey
		body      string
		requestID string
		wantCode  string
		wantMsg   string
		wantCut   bool // the Body sample must end with [REDACTED]
	}{
		{
			name: "query-escaped", body: `{"code":"unauthorized","message":"bad key ` + url.QueryEscape(echoKey) + `"}`,
			wantCode: "unauthorized", wantMsg: "bad key [REDACTED]",
		},
		{
			name: "lower-case hex", body: `{"code":"unauthorized","message":"bad key Pk_Live%2f7f%2bQ.x~Z9"}`,
			wantCode: "unauthorized", wantMsg: "bad key [REDACTED]",
		},
		{
			name: "in a link", body: `{"code":"unauthorized","message":"see https://petstore.test/keys?k=Pk_Live%2F7f%2BQ.x%7EZ9&v=1"}`,
			wantCode: "unauthorized", wantMsg: "see https://petstore.test/keys?k=[REDACTED]&v=1",
		},
		{
			name: "every character encoded, in another case", body: `{"code":"unauthorized","message":"` + each(strings.ToUpper(echoKey), "%%%02X") + `"}`,
			wantCode: "unauthorized", wantMsg: "[REDACTED]",
		},
		{
			name: `mixed with JSON escapes: "\/" and %2B`, body: `{"code":"unauthorized","message":"bad key Pk_Live\/7f%2BQ.x~Z9"}`,
			wantCode: "unauthorized", wantMsg: "bad key [REDACTED]",
		},
		{
			name: "as the code", body: `{"code":"Pk_Live%2F7f%2BQ.x~Z9","message":"bad key"}`,
			wantCode: "[REDACTED]", wantMsg: "bad key",
		},
		{
			name: "as the request id", body: `{"code":"unauthorized"}`, requestID: "req-Pk_Live%2F7f%2BQ.x~Z9",
			wantCode: "unauthorized",
		},
		{
			name: "padding as %3D", key: padded, body: `{"code":"unauthorized","message":"key=Pk_Live%2F7f%2BQ%3D%3d"}`,
			wantCode: "unauthorized", wantMsg: "key=[REDACTED]",
		},
		{
			name: "cut at the sample's end inside %2B", body: cutBody("Pk_Live%2F7f%2BQ.x~Z9", len("Pk_Live%2F7f%2")),
			wantMsg: "cut", wantCut: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			key := tc.key
			if key == "" {
				key = echoKey
			}
			mt := httpmock.NewMockTransport()
			c, err := NewClient(key, WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: mt}), WithMaxRetries(0))
			if err != nil {
				t.Fatalf("NewClient: %v", err)
			}
			mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(http.StatusUnauthorized, tc.body)
				resp.Header.Set("Content-Type", "application/json")
				if tc.requestID != "" {
					resp.Header.Set("X-Request-Id", tc.requestID)
				}
				return resp, nil
			})
			_, err = c.ListPets(context.Background(), ListPetsParams{})
			var got *APIError
			if !errors.As(err, &got) {
				t.Fatalf("err = %v; want *APIError", err)
			}
			want := &APIError{Status: http.StatusUnauthorized, Code: tc.wantCode, Message: tc.wantMsg, Method: "GET", Path: "/v1/pets"}
			if tc.requestID != "" {
				want.RequestID = "req-[REDACTED]"
			}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(APIError{}, "Body")); diff != "" {
				t.Errorf("APIError (-want +got):\n%s", diff)
			}
			if tc.wantCut && !strings.HasSuffix(string(got.Body), "[REDACTED]") {
				t.Errorf("Body sample ends with %q; want the start of the key redacted", got.Body[max(0, len(got.Body)-40):])
			}
			for name, s := range map[string]string{"Error()": err.Error(), "Body": string(got.Body), "%+v": fmt.Sprintf("%+v", got)} {
				if showsPercentKey(s, key) {
					t.Errorf("%s shows the key: %s", name, s)
				}
			}
		})
	}
}

// TestKeyInAnotherFormInTransportErrorIsRedacted: the text of a transport
// error echoes the key in another case; the *url.Error and the cause stay.
func TestKeyInAnotherFormInTransportErrorIsRedacted(t *testing.T) {
	t.Parallel()
	cause := errors.New(`malformed MIME header: missing colon: "BEARER ` + strings.ToUpper(echoKey) + `"`)
	c, mt := echoClient(t)
	mt.RegisterResponder("GET", testPets, httpmock.NewErrorResponder(cause))
	_, err := c.ListPets(context.Background(), ListPetsParams{})
	var ue *url.Error
	if !errors.As(err, &ue) || !errors.Is(err, cause) {
		t.Fatalf("err = %v; want a *url.Error inside, and the cause", err)
	}
	for e := error(err); e != cause; e = errors.Unwrap(e) {
		assertNoKey(t, echoKey, map[string]string{"Error()": e.Error()}, map[string]any{fmt.Sprintf("%T", e): e})
	}
	if !strings.Contains(err.Error(), "BEARER [REDACTED]") {
		t.Errorf("err = %v; want the redacted text", err)
	}
}

// TestKeyInMalformedResponseIsRedacted: a real server (over a loopback
// socket) answers with a status line or header line made of the key, which
// net/http quotes in its error; the error shows no form of it.
func TestKeyInMalformedResponseIsRedacted(t *testing.T) {
	t.Parallel()
	for _, head := range []string{
		"HTTP/1.1 " + echoKey + "\r\n\r\n",                               // malformed HTTP status code "..."
		"HTTP/1.1 200 " + echoKey + "\r\nX-Echo " + echoKey + "\r\n\r\n", // malformed MIME header line
		echoKey + "\r\n\r\n",                                             // malformed HTTP response "..."
		"HTTP/1.1 " + strings.ToLower(echoKey) + "\r\n\r\n",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Errorf("hijack: %v", err)
				return
			}
			io.WriteString(conn, head)
			conn.Close()
		}))
		defer srv.Close()
		c, err := NewClient(echoKey, WithBaseURL(srv.URL+"/v1"), WithMaxRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.ListPets(context.Background(), ListPetsParams{})
		if err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("response %q: err = %v; want net/http's malformed-response error", head, err)
			continue
		}
		if !strings.Contains(err.Error(), "[REDACTED]") {
			t.Errorf("response %q: err = %v; want the key redacted", head, err)
		}
		assertNoKey(t, echoKey, map[string]string{"Error()": err.Error()}, map[string]any{"error": err})
	}
}

// collection404 is what the Message of a 404 from the pets collection at
// path ends with.
func collection404(path string) string {
	return " (the API never answers " + path + " with 404: check the base URL and its /v1 segment)"
}

// TestCollection404PointsAtTheBaseURL: the interface never answers the
// collection with 404, so a 404 there (a base URL without /v1, say) still
// matches ErrNotFound but says to check the base URL; GetPet's does not.
func TestCollection404PointsAtTheBaseURL(t *testing.T) {
	t.Parallel()
	c, mt := newTestClient(t)
	notFound := jsonResponder(404, `{"code":"not_found","message":"no such path","status":404}`)
	mt.RegisterResponder("GET", testPets, notFound)
	mt.RegisterResponder("POST", testPets, notFound)
	mt.RegisterResponder("GET", testPets+"/7", notFound)
	errs := callAll(context.Background(), c)
	for op, wantMessage := range map[string]string{
		"ListPets":  "no such path" + collection404("/v1/pets"),
		"CreatePet": "no such path" + collection404("/v1/pets"),
		"GetPet":    "no such path",
	} {
		var apiErr *APIError
		if !errors.As(errs[op], &apiErr) || !errors.Is(errs[op], ErrNotFound) {
			t.Errorf("%s: %v; want an *APIError that matches ErrNotFound", op, errs[op])
			continue
		}
		if apiErr.Message != wantMessage {
			t.Errorf("%s: Message = %q; want %q", op, apiErr.Message, wantMessage)
		}
	}
}

// TestAPIErrorComparesWithCmp: go-cmp compares two APIErrors with no
// options (no unexported field to make it panic).
func TestAPIErrorComparesWithCmp(t *testing.T) {
	t.Parallel()
	c, mt := newTestClient(t)
	mt.RegisterResponder("GET", testPets+"/7", jsonResponder(404, `{"code":"not_found","message":"pet 7 not found","status":404}`))
	_, err := c.GetPet(context.Background(), 7)
	var got *APIError
	if !errors.As(err, &got) {
		t.Fatalf("GetPet: %v; want *APIError", err)
	}
	want := &APIError{
		Status: 404, Code: "not_found", Message: "pet 7 not found", Method: "GET", Path: "/v1/pets/7",
		Body: []byte(`{"code":"not_found","message":"pet 7 not found","status":404}`),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("APIError (-want +got):\n%s", diff)
	}
	if want := "petstore: GET /v1/pets/7: 404 not_found: pet 7 not found"; got.Error() != want {
		t.Errorf("Error() = %q; want %q", got.Error(), want)
	}
	other := *want
	other.Path = "/v1/pets/8"
	if cmp.Diff(want, &other) == "" {
		t.Error("cmp.Diff sees no difference between two Paths")
	}
}

// TestKeyInCutErrorBodyIsRedacted: an error body the connection cut short
// may end inside an echoed key; the Body sample shows no start of it.
func TestKeyInCutErrorBodyIsRedacted(t *testing.T) {
	t.Parallel()
	c, mt := echoClient(t)
	mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
		body := io.MultiReader(strings.NewReader(`{"code":"unauthorized","message":"bad key `+echoKey[:12]), iotest.ErrReader(io.ErrUnexpectedEOF))
		return &http.Response{StatusCode: http.StatusUnauthorized, Header: http.Header{}, Body: io.NopCloser(body), ContentLength: 200}, nil
	})
	_, err := c.ListPets(context.Background(), ListPetsParams{})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized {
		t.Fatalf("err = %v; want a 401 *APIError", err)
	}
	if !strings.HasSuffix(string(apiErr.Body), "bad key [REDACTED]") {
		t.Errorf("Body = %q; want the start of the key redacted", apiErr.Body)
	}
}
