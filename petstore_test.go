package petstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

// sentTo returns the URL and Authorization header of the one ListPets
// request a Client made with opts sends.
func sentTo(t *testing.T, key string, opts ...Option) (string, string) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	var gotURL, gotAuth string
	mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		gotURL, gotAuth = req.URL.String(), req.Header.Get("Authorization")
		return httpmock.NewStringResponse(200, "[]"), nil
	})
	c, err := NewClient(key, append([]Option{WithHTTPClient(&http.Client{Transport: mt}), WithMaxRetries(0)}, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	if _, err := c.ListPets(context.Background(), ListPetsParams{}); err != nil {
		t.Fatalf("ListPets: %v", err)
	}
	return gotURL, gotAuth
}

func TestNewClientAPIKey(t *testing.T) {
	tests := []struct {
		name     string
		arg, env string
		wantAuth string
		wantErr  error
	}{
		{"argument", "k-arg", "", "Bearer k-arg", nil},
		{"argument wins over env", "k-arg", "k-env", "Bearer k-arg", nil},
		{"env when argument empty", "", "k-env", "Bearer k-env", nil},
		{"neither", "", "", "", ErrMissingAPIKey},
		{"blank env counts as unset", "", "  ", "", ErrMissingAPIKey},
		{"blank argument falls back to env", " ", "k-env", "Bearer k-env", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envAPIKey, tc.env)
			if tc.wantErr != nil {
				_, err := NewClient(tc.arg, WithBaseURL(testBase))
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("NewClient error = %v; want %v", err, tc.wantErr)
				}
				return
			}
			_, auth := sentTo(t, tc.arg, WithBaseURL(testBase))
			if auth != tc.wantAuth {
				t.Errorf("Authorization = %q; want %q", auth, tc.wantAuth)
			}
		})
	}
}

func TestNewClientRefusesControlCharactersInKey(t *testing.T) {
	for _, key := range []string{"abc\n", "a\rb", "a\x00b", "a\x7fb", "tab\there"} {
		t.Run(fmt.Sprintf("%q", key), func(t *testing.T) {
			t.Setenv(envAPIKey, "")
			_, err := NewClient(key, WithBaseURL(testBase))
			if err == nil {
				t.Fatal("NewClient accepted a key with a control character")
			}
			if strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "abc") {
				t.Errorf("error %q shows the key", err)
			}
			if strings.Contains(key, "\x00") {
				return // the environment cannot hold a NUL
			}
			t.Setenv(envAPIKey, key)
			if _, err := NewClient("", WithBaseURL(testBase)); err == nil {
				t.Error("NewClient accepted such a key from the environment")
			}
		})
	}
}

func TestNewClientReadsEnvironmentOnce(t *testing.T) {
	t.Setenv(envAPIKey, "k-first")
	t.Setenv(envBaseURL, "https://first.test/v1")
	mt := httpmock.NewMockTransport()
	var got []string
	mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		got = append(got, req.URL.String()+" "+req.Header.Get("Authorization"))
		return httpmock.NewStringResponse(200, "[]"), nil
	})
	c, err := NewClient("", WithHTTPClient(&http.Client{Transport: mt}))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(envAPIKey, "k-second")
	t.Setenv(envBaseURL, "https://second.test/v1")
	if _, err := c.ListPets(context.Background(), ListPetsParams{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"https://first.test/v1/pets Bearer k-first"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestNewClientBaseURL(t *testing.T) {
	tests := []struct {
		name    string
		env     string
		opts    []Option
		wantURL string
	}{
		{"default is production", "", nil, "https://petstore.example.com/v1/pets"},
		{"staging", "", []Option{WithBaseURL(StagingURL)}, "https://staging.petstore.example.com/v1/pets"},
		{"trailing slash", "", []Option{WithBaseURL("https://h.test/v1/")}, "https://h.test/v1/pets"},
		{"deeper path", "", []Option{WithBaseURL("https://h.test/api/v1")}, "https://h.test/api/v1/pets"},
		{"port", "", []Option{WithBaseURL("https://h.test:8443/v1")}, "https://h.test:8443/v1/pets"},
		{"no path", "", []Option{WithBaseURL("https://h.test")}, "https://h.test/pets"},
		{"env", "https://env.test/v1", nil, "https://env.test/v1/pets"},
		{"option wins over env", "https://env.test/v1", []Option{WithBaseURL("https://opt.test/v1")}, "https://opt.test/v1/pets"},
		{"later option wins", "", []Option{WithBaseURL("https://a.test/v1"), WithBaseURL("https://b.test/v1")}, "https://b.test/v1/pets"},
		{"http to localhost", "", []Option{WithBaseURL("http://localhost:8080/v1")}, "http://localhost:8080/v1/pets"},
		{"http to 127.0.0.0/8", "", []Option{WithBaseURL("http://127.1.2.3:8080/v1")}, "http://127.1.2.3:8080/v1/pets"},
		{"http to ::1", "", []Option{WithBaseURL("http://[::1]:8080/v1")}, "http://[::1]:8080/v1/pets"},
		{"http anywhere with WithInsecureHTTP", "", []Option{WithBaseURL("http://pets.internal/v1"), WithInsecureHTTP()}, "http://pets.internal/v1/pets"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envBaseURL, tc.env)
			got, _ := sentTo(t, testKey, tc.opts...)
			if got != tc.wantURL {
				t.Errorf("request went to %q; want %q", got, tc.wantURL)
			}
		})
	}
}

func TestNewClientRefusesBadBaseURL(t *testing.T) {
	tests := []struct {
		url        string
		wantInErr  string
		hideInErrs string // must not appear in the error
	}{
		{"", "scheme", ""},
		{"petstore.example.com/v1", "scheme", ""},
		{"ftp://petstore.example.com/v1", "scheme", ""},
		{"https://", "no host", ""},
		{"https:opaque", "no host", ""},
		{"http://petstore.example.com/v1", "clear text", ""},
		{"http://10.0.0.1/v1", "clear text", ""},
		{"https://user:hunter2@petstore.example.com/v1", "user info", "hunter2"},
		{"https://petstore.example.com/v1?x=1", "query", ""},
		{"https://petstore.example.com/v1?api_key=hunter2", "query", "hunter2"},
		{"https://petstore.example.com/v1#hunter2", "fragment", "hunter2"},
		{"https://petstore.example.com:x/v1?api_key=hunter2", "invalid URL", "hunter2"},
		{"https://petstore.example.com/v1?", "query", ""},
		{"https://petstore.example.com/v1#top", "fragment", ""},
		{"https://petstore.example.com/v1#", "fragment", ""},
		{"https://user:hunter2@[bad/v1", "invalid URL", "hunter2"},
		{"https://petstore.example.com/%zz", "invalid URL", ""},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			_, err := NewClient(testKey, WithBaseURL(tc.url))
			if err == nil {
				t.Fatalf("NewClient(WithBaseURL(%q)) succeeded; want an error", tc.url)
			}
			if !strings.Contains(err.Error(), tc.wantInErr) {
				t.Errorf("error %q does not say %q", err, tc.wantInErr)
			}
			if tc.hideInErrs != "" && strings.Contains(err.Error(), tc.hideInErrs) {
				t.Errorf("error %q shows %q", err, tc.hideInErrs)
			}
		})
	}
	t.Run("from the environment", func(t *testing.T) {
		t.Setenv(envBaseURL, "http://petstore.example.com/v1")
		_, err := NewClient(testKey)
		if err == nil || !strings.Contains(err.Error(), envBaseURL) {
			t.Errorf("NewClient with a bad %s: error %v; want one naming the variable", envBaseURL, err)
		}
	})
}

func TestNewClientRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
	}{
		{"negative retries", WithMaxRetries(-1)},
		{"min over max", WithRetryWait(2*time.Second, time.Second)},
		{"negative min", WithRetryWait(-time.Second, time.Second)},
		{"negative timeout", WithTimeout(-time.Second)},
		{"nil http client", WithHTTPClient(nil)},
		{"newline in user agent", WithUserAgent("app\r\nX-Evil: 1")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClient(testKey, WithBaseURL(testBase), tc.opt)
			if err == nil || c != nil {
				t.Errorf("NewClient = %v, %v; want nil and an error", c, err)
			}
		})
	}
}

func TestNewClientAcceptsEdgeOptions(t *testing.T) {
	opts := []Option{
		nil,
		WithMaxRetries(0),
		WithRetryWait(0, 0),
		WithTimeout(0),
		WithLogger(nil),
		WithUserAgent(""),
	}
	if _, err := NewClient(testKey, append([]Option{WithBaseURL(testBase)}, opts...)...); err != nil {
		t.Errorf("NewClient: %v", err)
	}
}

func TestLaterOptionsOverrideEarlier(t *testing.T) {
	c, mt := newTestClient(t, WithMaxRetries(5), WithMaxRetries(1))
	mt.RegisterResponder("GET", testPets, jsonResponder(503, ""))
	_, err := c.ListPets(context.Background(), ListPetsParams{})
	if !errors.As(err, new(*APIError)) {
		t.Fatalf("err = %v; want *APIError", err)
	}
	if got := mt.GetTotalCallCount(); got != 2 {
		t.Errorf("attempts = %d; want 2 (WithMaxRetries(1) given last)", got)
	}
}

var uaPattern = regexp.MustCompile(`^petstore-go/` + regexp.QuoteMeta(Version) + ` \(go[^;]+; [a-z0-9]+/[a-z0-9]+\)$`)

func TestRequestHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, userAgent, wantUAPrefix string
	}{
		{"default user agent", "", ""},
		{"with user agent", "myapp/1.2", "myapp/1.2 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
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

func TestWithHTTPClientIsNotModified(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("GET", testPets, jsonResponder(200, "[]"))
	redirect := func(*http.Request, []*http.Request) error { return nil }
	hc := &http.Client{Transport: mt, Timeout: 5 * time.Second, CheckRedirect: redirect}
	before := *hc
	c, err := NewClient(testKey, WithBaseURL(testBase), WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListPets(context.Background(), ListPetsParams{}); err != nil {
		t.Fatal(err)
	}
	if hc.Transport != before.Transport || hc.Timeout != before.Timeout || hc.Jar != before.Jar ||
		fmt.Sprintf("%p", hc.CheckRedirect) != fmt.Sprintf("%p", before.CheckRedirect) {
		t.Errorf("the http.Client changed: before %+v, after %+v", before, *hc)
	}
}

// TestHTTPMockActivateNonDefault checks the documented way to mock a
// caller's client, before and after NewClient. It uses httpmock's global
// transport, so it does not run in parallel.
func TestHTTPMockActivateNonDefault(t *testing.T) {
	for _, after := range []bool{false, true} {
		t.Run(fmt.Sprintf("activate after NewClient=%v", after), func(t *testing.T) {
			hc := &http.Client{}
			if !after {
				httpmock.ActivateNonDefault(hc)
			}
			c, err := NewClient(testKey, WithBaseURL(testBase), WithHTTPClient(hc), WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			if after {
				httpmock.ActivateNonDefault(hc)
			}
			t.Cleanup(httpmock.DeactivateAndReset)
			httpmock.RegisterResponder("GET", testPets, httpmock.NewStringResponder(200, `[{"id":1,"name":"Rex","categoryId":2}]`))
			got, err := c.ListPets(context.Background(), ListPetsParams{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]Pet{{ID: 1, Name: "Rex", CategoryID: 2}}, got); diff != "" {
				t.Errorf("ListPets (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaultTransportIsSharedAndPooled(t *testing.T) {
	c1, err1 := NewClient(testKey, WithBaseURL(testBase))
	c2, err2 := NewClient(testKey, WithBaseURL(StagingURL))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	b1 := c1.get.HTTPClient.Transport.(*transport).base()
	b2 := c2.post.HTTPClient.Transport.(*transport).base()
	if b1 != b2 {
		t.Error("two Clients without WithHTTPClient use different transports")
	}
	if b1 == http.DefaultTransport {
		t.Error("the shared transport is http.DefaultTransport itself; want a clone")
	}
	tr, ok := b1.(*http.Transport)
	if !ok {
		t.Fatalf("shared transport is %T", b1)
	}
	if tr.MaxIdleConnsPerHost < 64 || tr.Proxy == nil || tr.DialContext == nil {
		t.Errorf("shared transport: MaxIdleConnsPerHost %d, Proxy set %v, DialContext set %v; want >= 64, true, true",
			tr.MaxIdleConnsPerHost, tr.Proxy != nil, tr.DialContext != nil)
	}
}

// countingServer is an httptest server with the /v1 path that counts the
// connections it accepts.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// netHTTPWriteWait is net/http's maxWriteWaitBeforeConnReuse: when a
// response has been read to its end before the Transport's writer goroutine
// has reported the request written, the reader waits this long for that
// report and then drops the connection rather than reuse it. On a loaded
// machine the writer can be kept off the CPU that long: a connection is
// then closed, and replaced by a new dial, through no fault of the SDK.
const netHTTPWriteWait = 50 * time.Millisecond

// connReuse follows, through httptrace, what becomes of the connection of
// every response to the calls made with a context from it: returned to the
// idle pool, refused by the pool (which is then too small), or dropped.
// A connection whose response was read to the end is returned or refused
// before the read ends; one that is neither was closed because its body was
// not read to the end, or by net/http itself, as netHTTPWriteWait says,
// which keeps the reader waiting at least that long after the response's
// first byte. A drop sooner than that is the SDK's.
type connReuse struct {
	mu sync.Mutex
	n  connCounts
}

// connCounts are the counts of a connReuse.
type connCounts struct {
	responses int      // responses received
	returned  int      // connections back in the idle pool after a response
	refused   []string // why the pool refused a connection back
	dropped   int      // connections dropped sooner than netHTTPWriteWait: the SDK's
	netDrops  int      // connections dropped after netHTTPWriteWait: maybe net/http's
}

// connOfCall is the state of one call's connection: a response whose
// connection is neither returned nor refused yet.
type connOfCall struct {
	r       *connReuse
	pending bool
	first   time.Time // when the pending response's first byte came
}

// call returns a context that traces a call, and a func to call when it has
// returned.
func (r *connReuse) call(parent context.Context) (context.Context, func()) {
	c := &connOfCall{r: r}
	trace := &httptrace.ClientTrace{
		GetConn:              func(string) { c.settle() }, // the next attempt
		GotFirstResponseByte: c.response,
		PutIdleConn:          c.put,
	}
	return httptrace.WithClientTrace(parent, trace), c.settle
}

func (c *connOfCall) response() {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	c.r.n.responses++
	c.pending, c.first = true, time.Now()
}

func (c *connOfCall) put(err error) {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	c.pending = false
	if err != nil {
		c.r.n.refused = append(c.r.n.refused, err.Error())
		return
	}
	c.r.n.returned++
}

// settle counts the pending response's connection as dropped: its attempt
// is over, and a connection is returned or refused before that.
func (c *connOfCall) settle() {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	if !c.pending {
		return
	}
	c.pending = false
	if time.Since(c.first) < netHTTPWriteWait {
		c.r.n.dropped++
	} else {
		c.r.n.netDrops++
	}
}

// take returns the counts so far and starts anew.
func (r *connReuse) take() connCounts {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.n
	r.n = connCounts{}
	return got
}

// check fails the test if the pool refused a connection or the SDK dropped
// one; what tells how many responses.
func (r connCounts) check(t *testing.T, what string) {
	t.Helper()
	if len(r.refused) > 0 {
		t.Errorf("%s: the idle pool refused %d of %d connections: %q", what, len(r.refused), r.responses, r.refused[0])
	}
	if r.dropped > 0 {
		t.Errorf("%s: %d of %d connections were closed at once after their response, not returned to the pool: a body not read to its end?", what, r.dropped, r.responses)
	}
	if r.netDrops > 0 {
		t.Logf("%s: %d of %d connections were dropped after %v or more, as net/http does on a loaded machine", what, r.netDrops, r.responses, netHTTPWriteWait)
	}
}

func TestConnectionsAreReused(t *testing.T) {
	big := `{"code":"not_found","message":"` + strings.Repeat("x", 20000) + `","status":404}`
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/pets":
			fmt.Fprint(w, `[{"id":1,"name":"Rex","categoryId":2}]`)
		case "/v1/pets/1":
			w.WriteHeader(404)
			fmt.Fprint(w, big)
		default:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			fmt.Fprint(w, "<html>oops</html>")
		}
	})
	c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v1"), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	reuse := new(connReuse)
	for i := 0; i < 20; i++ {
		for _, call := range []struct {
			name string
			do   func(ctx context.Context) error
			want func(error) bool
		}{
			{"ListPets", func(ctx context.Context) error { _, err := c.ListPets(ctx, ListPetsParams{}); return err },
				func(err error) bool { return err == nil }},
			{"GetPet(1)", func(ctx context.Context) error { _, err := c.GetPet(ctx, 1); return err },
				func(err error) bool { return errors.Is(err, ErrNotFound) }},
			{"GetPet(2)", func(ctx context.Context) error { _, err := c.GetPet(ctx, 2); return err },
				func(err error) bool { return errors.As(err, new(*APIError)) }},
		} {
			ctx, done := reuse.call(context.Background())
			err := call.do(ctx)
			done()
			if !call.want(err) {
				t.Fatalf("%s: unexpected error %v", call.name, err)
			}
		}
	}
	got := reuse.take()
	got.check(t, "60 sequential calls")
	// One after the other, each call finds the connection of the one
	// before in the pool, unless net/http dropped it: then it dials one
	// (none after the last call).
	if n := conns.Load(); n < int64(max(1, got.netDrops)) || n > int64(1+got.netDrops) {
		t.Errorf("60 sequential calls opened %d connections; want 1, and 1 more per connection net/http dropped (%d) but the last", n, got.netDrops)
	}
}

// TestConcurrentUseSharesConnections runs 64 goroutines on one Client with
// the default transport. A first round holds all 64 requests at the server
// at once, so the pool gets exactly one connection per goroutine (without
// that, net/http may dial a few spares while connections are handed over).
// Then 64 goroutines x 20 calls must return every connection to the pool
// after its response, which must keep it: no churn, without error responses
// and with them (401, 404, 400, 429 with and without retries, 503 and an
// HTML 500 retried, a refused redirect). So no new connection is opened,
// unless net/http dropped one itself on a loaded machine (netHTTPWriteWait):
// the pool is then one short, and net/http dials.
func TestConcurrentUseSharesConnections(t *testing.T) {
	const goroutines, calls = 64, 20
	pet := `{"id":1,"name":"Rex","categoryId":2}`
	type call struct {
		do         func(ctx context.Context, c *Client) error
		wantStatus int // of the *APIError the call must fail with; 0: success
	}
	list := func(p ListPetsParams, want int) call {
		return call{func(ctx context.Context, c *Client) error { _, err := c.ListPets(ctx, p); return err }, want}
	}
	get := func(id int64, want int) call {
		return call{func(ctx context.Context, c *Client) error { _, err := c.GetPet(ctx, id); return err }, want}
	}
	create := func(name string, want int) call {
		return call{func(ctx context.Context, c *Client) error {
			_, err := c.CreatePet(ctx, NewPet{Name: name, CategoryID: 2})
			return err
		}, want}
	}
	for _, tc := range []struct {
		name  string
		calls []call
	}{
		{"without error responses", []call{list(ListPetsParams{Limit: 10}, 0), get(1, 0), create("Rex", 0)}},
		{"with error responses", []call{
			list(ListPetsParams{Limit: 10}, 0),
			list(ListPetsParams{Status: PetStatusSold}, 401),    // JSON Error body
			list(ListPetsParams{Status: PetStatusPending}, 503), // retried, then given up
			list(ListPetsParams{Limit: 13}, 500),                // HTML page, retried
			get(404, 404),                                       // JSON Error body
			get(302, 302),                                       // a redirect to another origin, refused
			get(429, 429),                                       // Retry-After over the max: not retried
			create("Rex", 0),
			create("rate-limited", 429), // POST retried on 429
			create("bad", 400),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The first requests, one per goroutine, are held at the server
			// until all have arrived: the pool then holds one connection
			// per goroutine, without the spare ones net/http may dial when
			// connections are handed over during a warm-up (a dial race).
			var arrived sync.WaitGroup
			arrived.Add(goroutines)
			var held atomic.Int64
			srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
				if held.Add(1) <= goroutines {
					arrived.Done()
					arrived.Wait()
				}
				errorBody := func(status int) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(status)
					fmt.Fprintf(w, `{"code":"c%d","message":"m","status":%d}`, status, status)
				}
				q := r.URL.Query()
				switch {
				case r.Method == http.MethodPost:
					var p NewPet
					json.NewDecoder(r.Body).Decode(&p)
					switch p.Name {
					case "rate-limited":
						errorBody(429)
					case "bad":
						errorBody(400)
					default:
						w.WriteHeader(201)
						fmt.Fprint(w, pet)
					}
				case q.Get("status") == "sold":
					errorBody(401)
				case q.Get("status") == "pending":
					errorBody(503)
				case q.Get("limit") == "13":
					w.Header().Set("Content-Type", "text/html")
					w.WriteHeader(500)
					fmt.Fprint(w, "<html><body>"+strings.Repeat("oops ", 2000)+"</body></html>")
				case r.URL.Path == "/v1/pets/404":
					errorBody(404)
				case r.URL.Path == "/v1/pets/302":
					http.Redirect(w, r, "https://elsewhere.test/v1/pets/302", http.StatusFound)
				case r.URL.Path == "/v1/pets/429":
					w.Header().Set("Retry-After", "3600")
					errorBody(429)
				case r.URL.Path == "/v1/pets/1":
					fmt.Fprint(w, pet)
				default:
					fmt.Fprint(w, "["+pet+"]")
				}
			})
			c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v1"), WithRetryWait(time.Millisecond, time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			reuse := new(connReuse)
			run := func(calls int) {
				var wg sync.WaitGroup
				errs := make(chan error, goroutines*calls)
				for g := 0; g < goroutines; g++ {
					wg.Add(1)
					go func(g int) {
						defer wg.Done()
						for i := 0; i < calls; i++ {
							call := tc.calls[(g+i)%len(tc.calls)]
							ctx, done := reuse.call(context.Background())
							err := call.do(ctx, c)
							done()
							var apiErr *APIError
							switch {
							case call.wantStatus == 0 && err != nil:
								errs <- err
							case call.wantStatus != 0 && (!errors.As(err, &apiErr) || apiErr.Status != call.wantStatus):
								errs <- fmt.Errorf("error %v; want an *APIError with Status %d", err, call.wantStatus)
							}
						}
					}(g)
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			}
			run(1)
			afterWarmUp := conns.Load()
			warmUp := reuse.take()
			warmUp.check(t, "warm-up")
			if afterWarmUp != goroutines && warmUp.netDrops == 0 {
				t.Errorf("warm-up with %d requests in flight opened %d connections; want %d", goroutines, afterWarmUp, goroutines)
			}
			run(calls)
			steady := reuse.take()
			steady.check(t, fmt.Sprintf("%d goroutines x %d calls", goroutines, calls))
			if n := conns.Load(); n != afterWarmUp && steady.netDrops == 0 {
				t.Errorf("%d goroutines x %d calls opened %d new connections; want 0", goroutines, calls, n-afterWarmUp)
			}
			t.Logf("%d goroutines, %d requests: %d connections", goroutines, held.Load(), conns.Load())
		})
	}
}

// TestRedirects: the interface defines no redirect, so none is followed,
// whatever its origin or method: the 3xx is the answer, as an *APIError.
func TestRedirects(t *testing.T) {
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

// TestKeyNeverPrinted prints every value the SDK hands out, in every verb,
// and looks for the key.
func TestKeyNeverPrinted(t *testing.T) {
	mt := httpmock.NewMockTransport()
	// A server that echoes the key in its error body and headers.
	echo := `{"code":"unauthorized","message":"bad key ` + testKey + `","status":401}`
	mt.RegisterResponder("GET", testPets, func(req *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(401, echo)
		resp.Header.Set("X-Request-Id", "req-1")
		resp.Header.Set("WWW-Authenticate", "Bearer "+testKey)
		return resp, nil
	})
	mt.RegisterResponder("POST", testPets, httpmock.NewErrorResponder(errors.New("connection reset")))
	mt.RegisterResponder("GET", testPets+"/7", httpmock.NewStringResponder(200, "not json"))
	c, err := NewClient(testKey, WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: mt}), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	errs := callAll(context.Background(), c)
	values := []any{c, *c, errs["ListPets"], errs["CreatePet"], errs["GetPet"]}
	var apiErr *APIError
	if !errors.As(errs["ListPets"], &apiErr) {
		t.Fatalf("ListPets error %v is not *APIError", errs["ListPets"])
	}
	values = append(values, apiErr, *apiErr, string(apiErr.Body), apiErr.Message)
	_, errBadKey := NewClient(testKey+"\n", WithBaseURL(testBase))
	_, errBadURL := NewClient(testKey, WithBaseURL("http://"+testKey+"@example.com/v1"))
	values = append(values, errBadKey, errBadURL)
	named := map[string]any{}
	for i, v := range values {
		named[fmt.Sprintf("value %d", i)] = v
	}
	assertNoKey(t, testKey, nil, named)
	if !strings.Contains(apiErr.Message, "[REDACTED]") {
		t.Errorf("APIError.Message = %q; want the echoed key redacted", apiErr.Message)
	}
}
