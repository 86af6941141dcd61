package petstore

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

func TestNewClientAPIKey(t *testing.T) {
	// Not parallel, nor its subtests: t.Setenv.
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

// TestNewClientRefusesKeysABearerTokenCannotHold: a key must be an RFC 6750
// b64token. Any other key is refused, from the argument or the environment,
// with an error that names the position but neither the key nor the
// character.
func TestNewClientRefusesKeysABearerTokenCannotHold(t *testing.T) {
	// Not parallel, nor its subtests: t.Setenv.
	tests := []struct {
		name, key string
		want      string // in the error
	}{
		{"newline at the end", "abcdef\n", "character 7 is a control character"},
		{"carriage return", "abc\rdef", "character 4 is a control character"},
		{"NUL", "abc\x00def", "character 4 is a control character"},
		{"DEL", "abc\x7fdef", "character 4 is a control character"},
		{"tab", "tab\there", "character 4 is a control character"},
		{"trailing space", "abcdef ", "character 7 is a space"},
		{"leading space", " abcdef", "character 1 is a space"},
		{"inner space", "abc def", "character 4 is a space"},
		{"double quote", `abc"def`, "character 4 is a quote"},
		{"single quote", "abc'def", "character 4 is a quote"},
		{"backslash", `abc\def`, "character 4 is a backslash"},
		{"non-ASCII", "abcdéf", "character 5 is a non-ASCII byte"},
		{"non-breaking space", "abcdef\u00a0", "character 7 is a non-ASCII byte"},
		{"comma", "abc,def", "character 4"},
		{"colon", "abc:def", "character 4"},
		{"padding in the middle", "abc=def", "character 5"},
		{"padding only", "==", "character 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envAPIKey, "")
			_, err := NewClient(tc.key, WithBaseURL(testBase))
			assertKeyRefused(t, tc.name, tc.key, tc.want, "the argument", err)
			if strings.Contains(tc.key, "\x00") {
				return // the environment cannot hold a NUL
			}
			t.Setenv(envAPIKey, tc.key)
			_, err = NewClient("", WithBaseURL(testBase))
			assertKeyRefused(t, tc.name, tc.key, tc.want, "PETSTORE_API_KEY", err)
			if err != nil && !strings.Contains(err.Error(), envAPIKey) {
				t.Errorf("error %q does not say the key came from %s", err, envAPIKey)
			}
		})
	}
}

// TestNewClientAcceptsBearerTokenKeys: every character a b64token holds,
// and its padding.
func TestNewClientAcceptsBearerTokenKeys(t *testing.T) {
	t.Parallel()
	for _, key := range []string{
		"k", "sk-test_7f3A.9c~1e+5b/Z", "abc=", "abc==", "/+", "~", "-._~+/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=",
	} {
		if _, auth := sentTo(t, key, WithBaseURL(testBase)); auth != "Bearer "+key {
			t.Errorf("key %q: Authorization = %q; want %q", key, auth, "Bearer "+key)
		}
	}
}

func TestNewClientReadsEnvironmentOnce(t *testing.T) {
	// Not parallel: t.Setenv.
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

// assertKeyRefused checks the error of NewClient given a key with what
// name describes, from where from says: it says want (the position), and
// shows neither the key, nor part of it, nor the refused character.
func assertKeyRefused(t *testing.T, name, key, want, from string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("NewClient accepted a key with %s (from %s)", name, from)
	}
	msg := err.Error()
	if !strings.Contains(msg, want) {
		t.Errorf("error %q (key from %s) does not say %q", msg, from, want)
	}
	for _, part := range []string{key, strings.TrimSpace(key), "abc", "def"} {
		if part != "" && strings.Contains(msg, part) {
			t.Errorf("error %q (key from %s) shows %q", msg, from, part)
		}
	}
	// The character itself, quoted; or at all where the message
	// has no reason to hold it.
	if bad := strings.Trim(key, "abcdefhrt="); bad != "" {
		shown := []string{strconv.Quote(bad), "'" + bad + "'", "`" + bad + "`"}
		if strings.ContainsAny(bad, "\"'\\") || bad[0] < 0x20 || bad[0] >= 0x7f {
			shown = append(shown, bad)
		}
		for _, s := range shown {
			if strings.Contains(msg, s) {
				t.Errorf("error %q (key from %s) shows the character as %s", msg, from, s)
			}
		}
	}
}

// TestMissingKeyErrorNamesTheVariable: ErrMissingAPIKey's message, a
// literal so that go doc shows it whole, names the variable NewClient reads.
func TestMissingKeyErrorNamesTheVariable(t *testing.T) {
	t.Parallel()
	if msg := ErrMissingAPIKey.Error(); !strings.HasSuffix(msg, " "+envAPIKey) {
		t.Errorf("ErrMissingAPIKey = %q; want it to end with %s", msg, envAPIKey)
	}
}
