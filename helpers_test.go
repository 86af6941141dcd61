package petstore

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

const (
	testBase = "https://petstore.test/v1" // a base with a path, so a lost /v1 shows
	testPets = testBase + "/pets"
	testKey  = "sk-test-7f3a9c1e5b"
)

// newTestClient returns a Client that sends through a fresh MockTransport,
// with the test base URL and key and short retry waits; opts come last.
func newTestClient(t *testing.T, opts ...Option) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		t.Errorf("unexpected request %s %s", req.Method, req.URL)
		return httpmock.NewStringResponse(http.StatusTeapot, ""), nil
	})
	all := append([]Option{
		WithBaseURL(testBase),
		WithHTTPClient(&http.Client{Transport: mt}),
		WithRetryWait(time.Millisecond, 2*time.Millisecond),
	}, opts...)
	c, err := NewClient(testKey, all...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c, mt
}

// jsonResponder answers status with body as application/json, every time.
func jsonResponder(status int, body string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	}
}

// sequence answers with the responders in turn, the last one repeating.
func sequence(rs ...httpmock.Responder) httpmock.Responder {
	i := 0
	return func(req *http.Request) (*http.Response, error) {
		r := rs[min(i, len(rs)-1)]
		i++
		return r(req)
	}
}

// capture records the last request a responder saw, with its body.
type capture struct {
	req  *http.Request
	body string
}

func (c *capture) then(r httpmock.Responder) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		c.req = req
		if req.Body != nil {
			b, _ := io.ReadAll(req.Body)
			c.body = string(b)
		}
		return r(req)
	}
}

// callAll runs each operation once and returns their errors by name.
func callAll(ctx context.Context, c *Client) map[string]error {
	_, errList := c.ListPets(ctx, ListPetsParams{})
	_, errCreate := c.CreatePet(ctx, NewPet{Name: "Rex", CategoryID: 1})
	_, errGet := c.GetPet(ctx, 7)
	return map[string]error{"ListPets": errList, "CreatePet": errCreate, "GetPet": errGet}
}

// assertJSONEqual compares two JSON documents, ignoring formatting.
func assertJSONEqual(t *testing.T, want, got string) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON %q: %v", want, err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("body is not JSON: %q: %v", got, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("JSON body mismatch (-want +got):\n%s", diff)
	}
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
