package petstore

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

// sent is what a mock server saw of one request.
type sent struct {
	URL, UserAgent, Auth string
}

// recordAll makes mt answer every request with status and returns what it
// saw.
func recordAll(mt *httpmock.MockTransport, status int) *[]sent {
	var got []sent
	mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		ua, _, _ := strings.Cut(req.Header.Get("User-Agent"), "petstore-go/") // the prefix WithUserAgent gave
		got = append(got, sent{req.URL.String(), strings.TrimSpace(ua), req.Header.Get("Authorization")})
		return httpmock.NewStringResponse(status, "[]"), nil
	})
	return &got
}

// TestWithKeepsSettingsLaterWin: a Client from With has its parent's
// settings with the options on top, later ones winning; the parent does
// not change; a With of a With builds on the first.
func TestWithKeepsSettingsLaterWin(t *testing.T) {
	t.Parallel()
	c, mt := newTestClient(t, WithUserAgent("app/1"), WithMaxRetries(1))
	got := recordAll(mt, 503)
	child, err := c.With(WithUserAgent("app/2"), nil, WithMaxRetries(3), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	grandchild, err := child.With(WithBaseURL(""), WithTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	moved, err := grandchild.With(WithBaseURL("https://other.test/v2/"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, cl := range []*Client{c, child, grandchild, moved, c} {
		if _, err := cl.ListPets(ctx, ListPetsParams{}); !errors.Is(err, ErrServerError) {
			t.Fatalf("ListPets: %v; want a 503", err)
		}
	}
	auth := "Bearer " + testKey
	want := []sent{
		{testPets, "app/1", auth}, {testPets, "app/1", auth}, // c: one retry
		{testPets, "app/2", auth},                            // child: none
		{testPets, "app/2", auth},                            // grandchild: child's
		{"https://other.test/v2/pets", "app/2", auth},        // moved
		{testPets, "app/1", auth}, {testPets, "app/1", auth}, // c, unchanged
	}
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestWithRefuses: With refuses what NewClient refuses, with the same
// *ConfigError, and c stays usable.
func TestWithRefuses(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t)
	for _, tc := range configCases {
		if tc.key != testKey {
			continue // With takes no key
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			child, err := c.With(tc.opts...)
			checkConfigError(t, child, err, tc)
		})
	}
}

// TestWithInsecureHTTPKept: an http base URL to a host that is not
// loopback is accepted by With when c was made with WithInsecureHTTP, and
// refused otherwise.
func TestWithInsecureHTTPKept(t *testing.T) {
	t.Parallel()
	insecure, _ := newTestClient(t, WithInsecureHTTP())
	secure, _ := newTestClient(t)
	if _, err := insecure.With(WithBaseURL("http://10.0.0.1/v1")); err != nil {
		t.Errorf("With on a WithInsecureHTTP client: %v", err)
	}
	if _, err := secure.With(WithBaseURL("http://10.0.0.1/v1")); err == nil {
		t.Error("With accepted an http base URL to 10.0.0.1 without WithInsecureHTTP")
	}
	if _, err := secure.With(WithInsecureHTTP(), WithBaseURL("http://10.0.0.1/v1")); err != nil {
		t.Errorf("With(WithInsecureHTTP(), ...): %v", err)
	}
}

// TestWithDoesNotReadEnvironment: With keeps what NewClient read from the
// environment (key, base URL, PETSTORE_INSECURE_HTTP) and reads none of it
// again, even when the variables changed or went bad.
func TestWithDoesNotReadEnvironment(t *testing.T) {
	// Not parallel: t.Setenv.
	t.Setenv(envAPIKey, testKey)
	t.Setenv(envBaseURL, testBase)
	t.Setenv(envInsecureHTTP, "1")
	mt := httpmock.NewMockTransport()
	got := recordAll(mt, 200)
	c, err := NewClient("", WithHTTPClient(&http.Client{Transport: mt}))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(envAPIKey, "other-key")
	t.Setenv(envBaseURL, "ftp://bad.test/v1")
	t.Setenv(envInsecureHTTP, "bad")
	if _, err := NewClient(""); err == nil {
		t.Fatal("NewClient accepted the bad variables: the test proves nothing")
	}
	child, err := c.With(WithMaxRetries(0))
	if err != nil {
		t.Fatalf("With: %v", err)
	}
	if _, err := child.ListPets(context.Background(), ListPetsParams{}); err != nil {
		t.Fatal(err)
	}
	want := []sent{{testPets, "", "Bearer " + testKey}}
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if _, err := c.With(WithBaseURL("http://10.0.0.1/v1")); err != nil {
		t.Errorf("With lost PETSTORE_INSECURE_HTTP=1 that NewClient read: %v", err)
	}
}

// TestWithSharesDeprecationWarnings: the GetPet Warn and the Deprecation
// header's Warn happen once across c and the Clients With made from it
// (and from them), whatever their logger.
func TestWithSharesDeprecationWarnings(t *testing.T) {
	t.Parallel()
	logs, other := &recordHandler{}, &recordHandler{}
	c, mt := newTestClient(t, WithLogger(logs.logger()))
	logs.level = slog.LevelWarn
	mt.RegisterResponder("GET", testPets+"/1", jsonResponder(200, `{"id":1,"name":"Rex","categoryId":2}`))
	mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(200, onePet)
		resp.Header.Set("Deprecation", "@1798761600")
		return resp, nil
	})
	noRetry, _ := c.With(WithMaxRetries(0))
	observed, _ := c.With(WithObserver(func(context.Context, Attempt) {}))
	relogged, _ := noRetry.With(WithLogger(other.logger()))
	other.level = slog.LevelWarn
	ctx := context.Background()
	for _, cl := range []*Client{noRetry, observed, relogged, c} {
		if _, err := cl.GetPet(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.ListPets(ctx, ListPetsParams{}); err != nil {
			t.Fatal(err)
		}
	}
	var msgs []string
	for _, r := range append(logs.all(), other.all()...) {
		msgs = append(msgs, r["msg"])
	}
	want := []string{
		"petstore: GetPet is deprecated and will be removed on 5 December 2030; use ListPets with a Status filter",
		"petstore: the server says this endpoint is deprecated",
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("Warn records (-want +got):\n%s", diff)
	}
}

// TestWithSharesTransport: With keeps c's transports (one pool, and the
// SDK's per-Client attempt settings) unless an option they depend on
// changes; an observer picks the timed one of the pair.
func TestWithSharesTransport(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t)
	f := func(context.Context, Attempt) {}
	tests := []struct {
		name string
		opt  Option
		want *Client // whose transports the new Client has; nil: new ones
	}{
		{"WithMaxRetries", WithMaxRetries(0), c},
		{"WithRetryWait", WithRetryWait(0, 0), c},
		{"WithObserver", WithObserver(f), c},
		{"WithBaseURL", WithBaseURL("https://other.test/v1"), c},
		{"WithTimeout", WithTimeout(time.Second), nil},
		{"WithUserAgent", WithUserAgent("x/1"), nil},
		{"WithLogger", WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), nil},
		{"WithHTTPClient", WithHTTPClient(&http.Client{}), nil},
	}
	for _, tc := range tests {
		n, err := c.With(tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.sends == c.sends; got != (tc.want != nil) {
			t.Errorf("%s: transports shared = %v; want %v", tc.name, got, tc.want != nil)
		}
		timed := 0
		if tc.name == "WithObserver" {
			timed = 1
		}
		if n.transport != n.sends[timed] {
			t.Errorf("%s: the Client sends through the wrong one of its transports", tc.name)
		}
	}
}
