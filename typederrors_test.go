package petstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParamError: every parameter the SDK refuses is a *ParamError that
// matches ErrInvalidParams, names the field, keeps the value as given
// (unquoted) and a reason, and reads as the error of version 0.3.0 did,
// word for word.
func TestParamError(t *testing.T) {
	t.Parallel()
	list := func(p ListPetsParams) func(*Client) error {
		return func(c *Client) error { _, err := c.ListPets(context.Background(), p); return err }
	}
	create := func(p NewPet) func(*Client) error {
		return func(c *Client) error { _, err := c.CreatePet(context.Background(), p); return err }
	}
	tests := []struct {
		name     string
		call     func(*Client) error
		want     ParamError
		wantText string
	}{
		{"limit -1", list(ListPetsParams{Limit: -1}),
			ParamError{"ListPetsParams.Limit", "-1", "want 1..100, or 0 for the server's default"},
			"petstore: invalid parameters: ListPetsParams.Limit is -1; want 1..100, or 0 for the server's default"},
		{"limit 101", list(ListPetsParams{Limit: 101}),
			ParamError{"ListPetsParams.Limit", "101", "want 1..100, or 0 for the server's default"},
			"petstore: invalid parameters: ListPetsParams.Limit is 101; want 1..100, or 0 for the server's default"},
		{"list status", list(ListPetsParams{Status: "lost"}),
			ParamError{"ListPetsParams.Status", "lost", "want available, pending, sold or empty"},
			`petstore: invalid parameters: ListPetsParams.Status is "lost"; want available, pending, sold or empty`},
		{"list status quoted", list(ListPetsParams{Status: "a \"b\"\n"}),
			ParamError{"ListPetsParams.Status", "a \"b\"\n", "want available, pending, sold or empty"},
			`petstore: invalid parameters: ListPetsParams.Status is "a \"b\"\n"; want available, pending, sold or empty`},
		{"empty name", create(NewPet{CategoryID: 1}),
			ParamError{"NewPet.Name", "", "is empty"},
			"petstore: invalid parameters: NewPet.Name is empty"},
		{"new pet status", create(NewPet{Name: "Rex", CategoryID: 1, Status: "adopted"}),
			ParamError{"NewPet.Status", "adopted", "want available, pending, sold or empty"},
			`petstore: invalid parameters: NewPet.Status is "adopted"; want available, pending, sold or empty`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t)
			err := tc.call(c)
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v (%T); want a *ParamError", err, err)
			}
			if diff := cmp.Diff(tc.want, *pe); diff != "" {
				t.Errorf("ParamError mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantText, err.Error()); diff != "" {
				t.Errorf("text mismatch (-want +got):\n%s", diff)
			}
			if !errors.Is(err, ErrInvalidParams) || Retryable(err) {
				t.Errorf("errors.Is(err, ErrInvalidParams) = false or Retryable(err) = true for %v", err)
			}
			if n := mt.GetTotalCallCount(); n != 0 {
				t.Errorf("%d requests sent; want none", n)
			}
		})
	}
}

// configCase is a configuration NewClient (and With) refuses.
type configCase struct {
	name     string
	key      string
	opts     []Option
	want     ConfigError
	wantText string
}

var configCases = []configCase{
	{"nil http client", testKey, []Option{WithHTTPClient(nil)},
		ConfigError{Option: "WithHTTPClient", Reason: "nil *http.Client"},
		"petstore: WithHTTPClient: nil *http.Client"},
	{"negative retries", testKey, []Option{WithMaxRetries(-1)},
		ConfigError{Option: "WithMaxRetries", Reason: "-1 is negative"},
		"petstore: WithMaxRetries: -1 is negative"},
	{"min over max", testKey, []Option{WithRetryWait(2*time.Second, time.Second)},
		ConfigError{Option: "WithRetryWait", Reason: "want 0 <= min <= max, got min 2s, max 1s"},
		"petstore: WithRetryWait: want 0 <= min <= max, got min 2s, max 1s"},
	{"negative min", testKey, []Option{WithRetryWait(-time.Second, time.Second)},
		ConfigError{Option: "WithRetryWait", Reason: "want 0 <= min <= max, got min -1s, max 1s"},
		"petstore: WithRetryWait: want 0 <= min <= max, got min -1s, max 1s"},
	{"negative timeout", testKey, []Option{WithTimeout(-time.Second)},
		ConfigError{Option: "WithTimeout", Reason: "-1s is negative"},
		"petstore: WithTimeout: -1s is negative"},
	{"control character in user agent", testKey, []Option{WithUserAgent("app\r\nX-Evil: 1")},
		ConfigError{Option: "WithUserAgent", Reason: "contains a control character"},
		"petstore: WithUserAgent: contains a control character"},
	{"base URL scheme", testKey, []Option{WithBaseURL("ftp://petstore.example.com/v1")},
		ConfigError{Option: "WithBaseURL", Reason: `URL "ftp://petstore.example.com/v1": scheme must be https or http`},
		`petstore: WithBaseURL: URL "ftp://petstore.example.com/v1": scheme must be https or http`},
	{"base URL in clear", testKey, []Option{WithBaseURL("http://10.0.0.1/v1")},
		ConfigError{Option: "WithBaseURL", Reason: `URL "http://10.0.0.1/v1": http to a host that is not loopback would send the API key in clear text; use https, or WithInsecureHTTP (PETSTORE_INSECURE_HTTP=1)`},
		`petstore: WithBaseURL: URL "http://10.0.0.1/v1": http to a host that is not loopback would send the API key in clear text; use https, or WithInsecureHTTP (PETSTORE_INSECURE_HTTP=1)`},
	{"base URL with a query", testKey, []Option{WithBaseURL("https://petstore.example.com/v1?api_key=hunter2")},
		ConfigError{Option: "WithBaseURL", Reason: `URL "https://petstore.example.com/v1?[REDACTED]" must not contain a query`},
		`petstore: WithBaseURL: URL "https://petstore.example.com/v1?[REDACTED]" must not contain a query`},
	{"key with a space", "sk test", nil,
		ConfigError{Option: "apiKey", Reason: "character 3 is a space (stray whitespace?); a bearer token holds only ASCII letters, digits and -._~+/, then optional = padding"},
		"petstore: API key: character 3 is a space (stray whitespace?); a bearer token holds only ASCII letters, digits and -._~+/, then optional = padding"},
}

// TestConfigError: every option NewClient refuses is a *ConfigError that
// names it, with the text of version 0.3.0, word for word.
func TestConfigError(t *testing.T) {
	t.Parallel()
	for _, tc := range configCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewClient(tc.key, append([]Option{WithBaseURL(testBase)}, tc.opts...)...)
			checkConfigError(t, c, err, tc)
		})
	}
}

// checkConfigError checks that c, err, what NewClient or With returned, are
// nil and tc's error.
func checkConfigError(t *testing.T, c *Client, err error, tc configCase) {
	t.Helper()
	var ce *ConfigError
	if c != nil || !errors.As(err, &ce) {
		t.Fatalf("got %v, %v (%T); want nil and a *ConfigError", c, err, err)
	}
	if diff := cmp.Diff(tc.want, *ce); diff != "" {
		t.Errorf("ConfigError mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(tc.wantText, err.Error()); diff != "" {
		t.Errorf("text mismatch (-want +got):\n%s", diff)
	}
	if Retryable(err) || errors.Is(err, ErrMissingAPIKey) {
		t.Errorf("Retryable(err) or errors.Is(err, ErrMissingAPIKey) holds for %v", err)
	}
}

// TestConfigErrorFromEnvironment: a variable NewClient refuses is a
// *ConfigError that names the option it stands for and the variable, with
// the text of version 0.3.0.
func TestConfigErrorFromEnvironment(t *testing.T) {
	// Not parallel: t.Setenv.
	tests := []struct {
		configCase
		env, value string
	}{
		{configCase{"base URL", testKey, nil,
			ConfigError{Option: "WithBaseURL", Env: "PETSTORE_BASE_URL", Reason: `URL "http://petstore.example.com/v1": http to a host that is not loopback would send the API key in clear text; use https, or WithInsecureHTTP (PETSTORE_INSECURE_HTTP=1)`},
			`petstore: PETSTORE_BASE_URL: URL "http://petstore.example.com/v1": http to a host that is not loopback would send the API key in clear text; use https, or WithInsecureHTTP (PETSTORE_INSECURE_HTTP=1)`},
			"PETSTORE_BASE_URL", "http://petstore.example.com/v1"},
		{configCase{"insecure HTTP", testKey, []Option{WithBaseURL(testBase)},
			ConfigError{Option: "WithInsecureHTTP", Env: "PETSTORE_INSECURE_HTTP", Reason: "want 1, true, 0 or false (as strconv.ParseBool reads it), or unset"},
			"petstore: PETSTORE_INSECURE_HTTP: want 1, true, 0 or false (as strconv.ParseBool reads it), or unset"},
			"PETSTORE_INSECURE_HTTP", "yes"},
		{configCase{"key", "", []Option{WithBaseURL(testBase)},
			ConfigError{Option: "apiKey", Env: "PETSTORE_API_KEY", Reason: "character 1 is a quote (copied with its quotes?); a bearer token holds only ASCII letters, digits and -._~+/, then optional = padding"},
			"petstore: API key from PETSTORE_API_KEY: character 1 is a quote (copied with its quotes?); a bearer token holds only ASCII letters, digits and -._~+/, then optional = padding"},
			"PETSTORE_API_KEY", `"sk-test"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			c, err := NewClient(tc.key, tc.opts...)
			checkConfigError(t, c, err, tc.configCase)
		})
	}
}
