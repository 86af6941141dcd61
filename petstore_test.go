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
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/jarcoal/httpmock"
)

var uaPattern = regexp.MustCompile(`^petstore-go/` + regexp.QuoteMeta(Version) + ` \(go[^;]+; [a-z0-9]+/[a-z0-9]+\)$`)

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, userAgent, wantUAPrefix string
	}{
		{"default user agent", "", ""},
		{"with user agent", "myapp/1.2", "myapp/1.2 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t, WithUserAgent(tc.userAgent))
			var got []http.Header
			record := func(status int, body string) httpmock.Responder {
				return func(req *http.Request) (*http.Response, error) {
					got = append(got, req.Header.Clone())
					return jsonResponder(status, body)(req)
				}
			}
			mt.RegisterResponder("GET", testPets, record(200, "[]"))
			mt.RegisterResponder("POST", testPets, record(201, `{"id":1,"name":"Rex","categoryId":1}`))
			mt.RegisterResponder("GET", testPets+"/7", record(200, `{"id":7,"name":"Rex","categoryId":1}`))
			for name, err := range callAll(context.Background(), c) {
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			if len(got) != 3 {
				t.Fatalf("got %d requests; want 3", len(got))
			}
			for i, h := range got {
				method := []string{"GET", "POST", "GET"}[i]
				if v := h.Get("Authorization"); v != "Bearer "+testKey {
					t.Errorf("%s: Authorization = %q", method, v)
				}
				if v := h.Get("Accept"); v != "application/json" {
					t.Errorf("%s: Accept = %q", method, v)
				}
				ua := h.Get("User-Agent")
				if !strings.HasPrefix(ua, tc.wantUAPrefix) || !uaPattern.MatchString(strings.TrimPrefix(ua, tc.wantUAPrefix)) {
					t.Errorf("%s: User-Agent = %q; want %q + %v", method, ua, tc.wantUAPrefix, uaPattern)
				}
				if !strings.Contains(ua, runtime.Version()) || !strings.Contains(ua, runtime.GOOS+"/"+runtime.GOARCH) {
					t.Errorf("%s: User-Agent %q lacks the Go version or platform", method, ua)
				}
				wantCT := ""
				if method == "POST" {
					wantCT = "application/json"
				}
				if v := h.Get("Content-Type"); v != wantCT {
					t.Errorf("%s: Content-Type = %q; want %q", method, v, wantCT)
				}
			}
		})
	}
}

// TestRedirects: the interface defines no redirect, so none is followed,
// whatever its origin or method: the 3xx is the answer, as an *APIError.
func TestRedirects(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "[]")
	}))
	t.Cleanup(other.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/pets" && r.Method == http.MethodPost:
			http.Redirect(w, r, "/v1/pets-moved", http.StatusSeeOther)
		case r.URL.Path == "/v1/pets":
			http.Redirect(w, r, "/v1/pets-moved", http.StatusTemporaryRedirect)
		case r.URL.Path == "/v1/pets/1":
			http.Redirect(w, r, other.URL+"/v1/pets/1", http.StatusFound)
		default:
			hits.Add(1)
			fmt.Fprint(w, "[]")
		}
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		call       func() error
		wantStatus int
	}{
		{"same origin", func() error { _, err := c.ListPets(ctx, ListPetsParams{}); return err }, http.StatusTemporaryRedirect},
		{"other origin", func() error { _, err := c.GetPet(ctx, 1); return err }, http.StatusFound},
		{"POST to GET", func() error {
			_, err := c.CreatePet(ctx, NewPet{Name: "Rex", CategoryID: 2})
			return err
		}, http.StatusSeeOther},
	} {
		var apiErr *APIError
		if err := tc.call(); !errors.As(err, &apiErr) || apiErr.Status != tc.wantStatus {
			t.Errorf("%s: err = %v; want *APIError with Status %d", tc.name, err, tc.wantStatus)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d redirects were followed; want none", n)
	}
}

// TestNewRequestMatchesRetryablehttp checks that newCall, which builds
// requests without formatting and parsing URL strings, builds the request
// retryablehttp.NewRequestWithContext builds from the URL string.
func TestNewRequestMatchesRetryablehttp(t *testing.T) {
	t.Parallel()
	bases := []string{
		"https://petstore.example.com/v1", "https://petstore.example.com/v1/", "https://petstore.example.com",
		"http://127.0.0.1:8080/v1", "http://127.0.0.1:/v1", "http://[::1]:9000/api/v1", "http://[::1]/v1",
		"https://h.example/a%2Fb/v1", "https://h.example/sp%20ace/v1", "https://h.example/%7Euser/v1",
		"https://H.Example:443/V1",
	}
	type call struct {
		o      op
		method string
		id     int64
		query  string
		body   []byte
	}
	calls := []call{
		{opListPets, http.MethodGet, 0, "", nil},
		{opListPets, http.MethodGet, 0, "limit=100", nil},
		{opListPets, http.MethodGet, 0, "limit=5&status=sold", nil},
		{opCreatePet, http.MethodPost, 0, "", []byte(`{"name":"n","categoryId":1}`)},
		{opGetPet, http.MethodGet, 42, "", nil},
		{opGetPet, http.MethodGet, -7, "", nil},
		{opGetPet, http.MethodGet, 0, "", nil},
		{opGetPet, http.MethodGet, 9223372036854775807, "", nil},
		{opGetPet, http.MethodGet, -9223372036854775808, "", nil},
	}
	ctx := context.WithValue(context.Background(), ctxKey{}, "x")
	for _, base := range bases {
		c, err := NewClient("k", WithBaseURL(base), WithInsecureHTTP())
		if err != nil {
			t.Fatalf("NewClient(%q): %v", base, err)
		}
		for _, tc := range calls {
			u, err := url.Parse(base)
			if err != nil {
				t.Fatal(err)
			}
			raw := u.JoinPath("pets").String() // the URL string the SDK used to parse per call
			if tc.o == opGetPet {
				raw += "/" + strconv.FormatInt(tc.id, 10)
			}
			if tc.query != "" {
				raw += "?" + tc.query
			}
			var body any
			if tc.body != nil {
				body = tc.body
			}
			want, err := retryablehttp.NewRequestWithContext(ctx, tc.method, raw, body)
			if err != nil {
				t.Fatal(err)
			}
			// The transport sets the headers on each attempt's request.
			wantHeader := http.Header{"Authorization": {"Bearer k"}, "Accept": jsonMediaType, "User-Agent": {userAgent("")}}
			if tc.body != nil {
				wantHeader["Content-Type"] = jsonMediaType
			}
			if diff := cmp.Diff(wantHeader, c.transport.Header(tc.body != nil)); diff != "" {
				t.Errorf("%s %s: headers (-want +got):\n%s", tc.method, raw, diff)
			}
			cl := c.newCall(ctx, tc.o, tc.id, tc.query, tc.body)
			got := &cl.rr
			// The call's request has no body: the transport gives each
			// attempt's a body of its own, of the call's bytes.
			gotSummary := summary(t, got)
			if tc.body != nil {
				gotSummary.Body, gotSummary.GetBody, gotSummary.ContentLength = string(cl.body), string(cl.body), int64(len(cl.body))
			}
			if diff := cmp.Diff(summary(t, want), gotSummary, cmpopts.IgnoreUnexported(url.URL{})); diff != "" {
				t.Errorf("%s %s (-retryablehttp +newCall):\n%s", tc.method, raw, diff)
			}
			// The path errors, logs and observers show.
			if p := c.path(cl); p != want.URL.EscapedPath() || !strings.HasPrefix(p, "/") {
				t.Errorf("%s %s: path = %q; want %q", tc.method, raw, p, want.URL.EscapedPath())
			}
			if got.Context() != ctx {
				t.Errorf("%s %s: context not kept", tc.method, raw)
			}
		}
	}
}

// ctxKey is a context key of the caller's.
type ctxKey struct{}

type reqSummary struct {
	Method, Proto, Host    string
	ProtoMajor, ProtoMinor int
	URL                    url.URL
	URLString              string
	Header                 http.Header
	ContentLength          int64
	Body, GetBody          string
}

// sentHost returns the host net/http sends for r: its Host, else its URL's.
func sentHost(r *http.Request) string {
	if r.Host != "" {
		return r.Host
	}
	return r.URL.Host
}

func summary(t *testing.T, r *retryablehttp.Request) reqSummary {
	s := reqSummary{
		Method: r.Method, Proto: r.Proto, Host: sentHost(r.Request), ProtoMajor: r.ProtoMajor, ProtoMinor: r.ProtoMinor,
		URL: *r.URL, URLString: r.URL.String(), Header: r.Header, ContentLength: r.ContentLength,
	}
	// What each attempt sends: retryablehttp's body, or else a body from
	// GetBody.
	b, err := r.BodyBytes()
	if err != nil {
		t.Fatal(err)
	}
	if b == nil && r.Body == nil && r.GetBody != nil {
		rc, err := r.GetBody()
		if err != nil {
			t.Fatal(err)
		}
		b, _ = io.ReadAll(rc)
	}
	s.Body = string(b)
	if r.GetBody != nil {
		rc, err := r.GetBody()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		s.GetBody = string(b)
	}
	return s
}

// TestCallSize: a call, with the 8-byte header the runtime gives an object
// over 512 bytes, fits the 1024-byte size class (its own response took it
// past the 896-byte class); a field that took it past would cost every
// call 128 bytes (a size class up).
func TestCallSize(t *testing.T) {
	t.Parallel()
	if size := unsafe.Sizeof(call{}); size+8 > 1024 {
		t.Errorf("a call is %d bytes; want at most 1016, so that it stays in the 1024-byte size class", size)
	}
}

// TestCallHandsItsOwnResponse: what a call's RoundTrip hands
// go-retryablehttp and http.Client is a response of the call's own, with
// the attempt's real status and header, so that go-retryablehttp's default
// policy, were it to act, would decide on the truth (it reads a status of
// 0 as "retry"); two calls never share one. A redirect whose Location
// http.Client cannot parse is still the server's answer.
func TestCallHandsItsOwnResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status    int
		location  string
		wantRetry bool // go-retryablehttp's DefaultRetryPolicy
	}{
		{201, "", false},
		{404, "", false},
		{503, "", true},
		{302, "%zz", false},
	}
	for _, tc := range tests {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t, WithMaxRetries(0))
			mt.RegisterResponder("POST", testPets, func(*http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(tc.status, `{"id":1,"name":"Rex","categoryId":1}`)
				resp.Header.Set("X-Request-Id", "req-1")
				if tc.location != "" {
					resp.Header.Set("Location", tc.location)
				}
				return resp, nil
			})
			ctx := context.Background()
			var resps []*http.Response
			for range 2 {
				cl := c.newCall(ctx, opCreatePet, 0, "", []byte(`{"name":"Rex","categoryId":1}`))
				resp, err := cl.RoundTrip(&cl.req)
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != tc.status || resp.Header.Get("X-Request-Id") != "req-1" || resp.Request != &cl.req {
					t.Errorf("RoundTrip = status %d, request id %q, request %p; want %d, req-1, %p",
						resp.StatusCode, resp.Header.Get("X-Request-Id"), resp.Request, tc.status, &cl.req)
				}
				if retry, _ := retryablehttp.DefaultRetryPolicy(ctx, resp, nil); retry != tc.wantRetry {
					t.Errorf("go-retryablehttp's DefaultRetryPolicy on it: retry = %v; want %v", retry, tc.wantRetry)
				}
				resps = append(resps, resp)
			}
			if resps[0] == resps[1] {
				t.Errorf("two calls handed the same response, %p", resps[0])
			}
			pet, err := c.CreatePet(ctx, NewPet{Name: "Rex", CategoryID: 1})
			var apiErr *APIError
			switch {
			case tc.status == 201 && (err != nil || pet == nil || pet.ID != 1):
				t.Errorf("CreatePet = %v, %v; want the pet", pet, err)
			case tc.status != 201 && (!errors.As(err, &apiErr) || apiErr.Status != tc.status):
				t.Errorf("CreatePet = %v, %v; want an *APIError with Status %d", pet, err, tc.status)
			}
		})
	}
}

// idleCloser is a RoundTripper that counts the calls of its
// CloseIdleConnections, as http.Client.CloseIdleConnections makes them.
type idleCloser struct {
	http.RoundTripper
	closed atomic.Int32
}

func (c *idleCloser) CloseIdleConnections() { c.closed.Add(1) }

// TestCloseIdleConnectionsOfWithHTTPClient: CloseIdleConnections reaches
// the transport of the WithHTTPClient client, looked up when it is called.
// (Over the shared transport, cmd/petstore-fake's TestCloseIdleConnections
// checks it with goleak against the fake as a process.)
func TestCloseIdleConnectionsOfWithHTTPClient(t *testing.T) {
	t.Parallel()
	hc := &http.Client{Transport: httpmock.NewMockTransport()}
	c, err := NewClient("k", WithBaseURL(testBase), WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	rt := &idleCloser{RoundTripper: hc.Transport}
	hc.Transport = rt // after NewClient: the transport is looked up each time
	c.CloseIdleConnections()
	if got := rt.closed.Load(); got != 1 {
		t.Errorf("CloseIdleConnections reached the client's transport %d times, want 1", got)
	}
}
