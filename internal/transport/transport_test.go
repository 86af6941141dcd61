package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

// get runs one attempt of a GET through t to base.
func get(ctx context.Context, t *Transport, base string) Result {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/pets", nil)
	if err != nil {
		panic(err)
	}
	return t.Send(req, nil, 1)
}

// wait runs f and fails the test if it has not returned within limit: a
// liveness guard for calls that must not block, not a speed assertion.
func wait(t *testing.T, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("call still blocked after %v", limit)
	}
}

const upgradeHead = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x-stall\r\nConnection: Upgrade\r\n\r\n"

// TestNoRedirects: a 3xx is the answer of its attempt, and NoRedirects
// keeps http.Client from following it.
func TestNoRedirects(t *testing.T) {
	t.Parallel()
	var hops int
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		hops++
		return &http.Response{StatusCode: 302, Header: http.Header{"Location": {"https://elsewhere.test/v1/pets"}}, Body: http.NoBody}, nil
	})
	r := get(context.Background(), &Transport{User: &http.Client{Transport: rt}}, "https://petstore.test")
	if r.Err != nil || r.Status != 302 || hops != 1 {
		t.Errorf("Send = %d, %v after %d requests; want the 302 after 1", r.Status, r.Err, hops)
	}
	if err := NoRedirects(nil, nil); err != http.ErrUseLastResponse {
		t.Errorf("NoRedirects = %v; want http.ErrUseLastResponse", err)
	}
}

// TestShared: one transport for every Transport without a user's client,
// a clone of http.DefaultTransport with a pool sized for concurrent use.
func TestShared(t *testing.T) {
	t.Parallel()
	a, b := (&Transport{}).Base(), (&Transport{Timeout: time.Second}).Base()
	if a != b || a != Shared() {
		t.Error("two Transports without a user's client use different transports")
	}
	if a == http.DefaultTransport {
		t.Error("the shared transport is http.DefaultTransport itself; want a clone")
	}
	if s := Shared(); s.MaxIdleConnsPerHost < 64 || s.Proxy == nil {
		t.Errorf("shared transport: MaxIdleConnsPerHost %d, Proxy set %v; want >= 64 and the environment's proxy", s.MaxIdleConnsPerHost, s.Proxy != nil)
	}
}

// TestHeaderShared: through a RoundTripper other than net/http's
// *http.Transport (which gets the shared map itself: it never writes to a
// request), each attempt's request carries a copy of the Header map, so
// that one that writes to it changes neither the map nor the next request.
func TestHeaderShared(t *testing.T) {
	t.Parallel()
	shared := http.Header{"Accept": {"application/json"}}
	header := func(bool) http.Header { return shared }
	var seen []http.Header
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.Header["X-Written"] != nil {
			t.Error("a request carries what the RoundTripper wrote to an earlier one")
		}
		seen = append(seen, req.Header)
		req.Header["X-Written"] = []string{"1"} // against RoundTripper's contract
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	})
	tr := &Transport{User: &http.Client{Transport: rt}, Header: header}
	for range 2 {
		if r := get(context.Background(), tr, "https://petstore.test"); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	if len(shared) != 1 || len(seen) != 2 || seen[0]["Accept"][0] != "application/json" {
		t.Errorf("shared header %v, requests' headers %v; want the shared one unchanged, copied into each", shared, seen)
	}

	// A user's own *http.Transport only reads the request: it is handed the
	// shared map, as Shared is (its Proxy function sees the same map).
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	var proxied []http.Header
	reading := &http.Transport{Proxy: func(req *http.Request) (*url.URL, error) {
		proxied = append(proxied, req.Header)
		return nil, nil
	}}
	defer reading.CloseIdleConnections()
	tr = &Transport{User: &http.Client{Transport: reading}, Header: header}
	if r := get(context.Background(), tr, srv.URL); r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(proxied) != 1 || fmt.Sprintf("%p", proxied[0]) != fmt.Sprintf("%p", shared) {
		t.Errorf("a user's *http.Transport was handed headers %p, want the shared map %p", proxied, shared)
	}
}
