package petstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

func TestNewClientBaseURL(t *testing.T) {
	// Not parallel, nor its subtests: t.Setenv. PETSTORE_INSECURE_HTTP is
	// cleared: a job's =1 would let every http URL through, and the cases
	// below that pass only for loopback could not fail.
	t.Setenv(envInsecureHTTP, "")
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
		{"empty option counts as not given", "", []Option{WithBaseURL("")}, "https://petstore.example.com/v1/pets"},
		{"empty option: env", "https://env.test/v1", []Option{WithBaseURL("")}, "https://env.test/v1/pets"},
		{"blank option counts as not given", "https://env.test/v1", []Option{WithBaseURL("  ")}, "https://env.test/v1/pets"},
		{"a later empty option unsets", "", []Option{WithBaseURL("https://a.test/v1"), WithBaseURL("")}, "https://petstore.example.com/v1/pets"},
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
	// Not parallel: it and its last subtest use t.Setenv (the table's
	// subtests are, which t.Setenv in their parent allows: they run once it
	// has returned, before its cleanup restores the variable). The http
	// cases are refused only without PETSTORE_INSECURE_HTTP, which a CI
	// job may set for all its steps.
	t.Setenv(envInsecureHTTP, "")
	tests := []struct {
		url        string
		wantInErr  string
		hideInErrs string // must not appear in the error
	}{
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
		// Only "//" starts user info, but a reader takes these for it.
		{"https:/admin:hunter2@petstore.example.com/v1", "no host", "hunter2"},
		{"https:admin:hunter2@petstore.example.com/v1", "no host", "hunter2"},
		{"https:/admin:hunter2@petstore.example.com/v1", "no host", "admin"},
		{"admin:hunter2@petstore.example.com/v1", "scheme", "admin"},
		{"hunter2://admin:hunter2@petstore.example.com/v1", "scheme", "hunter2"},
		{"https://admin:hunter2@petstore.example.com/v1@x", "user info", "hunter2"},
		{"http://admin:hunter2@[::1]:x/v1", "invalid URL", "hunter2"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			t.Parallel()
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
	t.Parallel()
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
			t.Parallel()
			c, err := NewClient(testKey, WithBaseURL(testBase), tc.opt)
			if err == nil || c != nil {
				t.Errorf("NewClient = %v, %v; want nil and an error", c, err)
			}
		})
	}
}

func TestNewClientAcceptsEdgeOptions(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

func TestWithHTTPClientIsNotModified(t *testing.T) {
	t.Parallel()
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
	// Not parallel: httpmock.ActivateNonDefault swaps http.DefaultTransport.
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

func TestNewClientInsecureHTTPFromEnvironment(t *testing.T) {
	// Not parallel, nor its subtests: t.Setenv.
	const farHTTP = "http://petstore-fake:8080/v1"
	tests := []struct {
		name    string
		env     string
		opts    []Option
		wantErr string // "" : NewClient succeeds and the request goes to farHTTP
	}{
		{"1", "1", nil, ""},
		{"true", "true", nil, ""},
		{"TRUE", "TRUE", nil, ""},
		{"t", "t", nil, ""},
		{"0", "0", nil, "clear text"},
		{"false", "false", nil, "clear text"},
		{"empty", "", nil, "clear text"},
		{"0 leaves WithInsecureHTTP on", "0", []Option{WithInsecureHTTP()}, ""},
		{"empty leaves WithInsecureHTTP on", "", []Option{WithInsecureHTTP()}, ""},
		{"not a boolean", "yes", nil, envInsecureHTTP},
		{"not a boolean, even with WithInsecureHTTP", "on", []Option{WithInsecureHTTP()}, envInsecureHTTP},
		{"space around", " 1", nil, envInsecureHTTP},
		{"a secret in the wrong variable", "sk-live-Secret", nil, envInsecureHTTP},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envInsecureHTTP, tc.env)
			opts := append([]Option{WithBaseURL(farHTTP)}, tc.opts...)
			if tc.wantErr != "" {
				_, err := NewClient(testKey, opts...)
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("NewClient with %s=%q: error %v; want one saying %q", envInsecureHTTP, tc.env, err, tc.wantErr)
				}
				if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "Secret") {
					t.Errorf("error %q shows the key or the variable's value", err)
				}
				return
			}
			if got, _ := sentTo(t, testKey, opts...); got != farHTTP+"/pets" {
				t.Errorf("request went to %q; want %q", got, farHTTP+"/pets")
			}
		})
	}
	t.Run("with an https or loopback base URL, a bad value is still refused", func(t *testing.T) {
		t.Setenv(envInsecureHTTP, "maybe")
		for _, u := range []string{"https://petstore.example.com/v1", "http://127.0.0.1:8080/v1"} {
			if _, err := NewClient(testKey, WithBaseURL(u)); err == nil || !strings.Contains(err.Error(), envInsecureHTTP) {
				t.Errorf("NewClient(WithBaseURL(%q)) with %s=maybe: error %v; want one naming the variable", u, envInsecureHTTP, err)
			}
		}
	})
	t.Run("read once, in NewClient", func(t *testing.T) {
		t.Setenv(envInsecureHTTP, "1")
		mt := httpmock.NewMockTransport()
		mt.RegisterNoResponder(httpmock.NewStringResponder(200, "[]"))
		c, err := NewClient(testKey, WithBaseURL(farHTTP), WithHTTPClient(&http.Client{Transport: mt}))
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv(envInsecureHTTP, "0")
		if _, err := c.ListPets(context.Background(), ListPetsParams{}); err != nil {
			t.Errorf("ListPets after %s changed: %v", envInsecureHTTP, err)
		}
	})
}

// TestAttemptTimeoutSource: the error of an attempt that ran out of time
// says where its limit came from; the default's names no option, so that a
// program built on the SDK (cmd/petstore) shows it as it is.
func TestAttemptTimeoutSource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"default", nil, "the default limit per attempt"},
		{"WithTimeout", []Option{WithTimeout(time.Second)}, "WithTimeout"},
		{"WithHTTPClient's Timeout", []Option{WithHTTPClient(&http.Client{Timeout: time.Second})}, "the WithHTTPClient client's Timeout"},
	}
	for _, tc := range tests {
		cfg := newConfig(tc.opts)
		if _, got := cfg.attemptTimeout(); got != tc.want {
			t.Errorf("%s: the limit's source is %q; want %q", tc.name, got, tc.want)
		}
	}
}
