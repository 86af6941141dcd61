package petstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

// End-to-end fuzz tests: a fuzzed base URL through NewClient to the request
// it sends, and a fuzzed response through the whole client path. Their seeds
// (the f.Add calls and testdata/fuzz/<Name>) run in every go test; .ci/run
// also fuzzes each for a bounded time:
//
//	go test -run='^$' -fuzz='^FuzzBaseURL$' -fuzztime=15s .

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// userinfoSpan returns where, in raw, the user info is or may be: after the
// scheme (letters, digits, "+-.", then ":"; the first character a letter)
// and any slashes, up to the last "@" before the next "/", with the query
// and the fragment cut off first. With "//" after the scheme, that is the
// user info url.Parse finds; with one slash or none ("https:/u:p@host",
// "https:u:p@host") it is what a reader takes for user info.
func userinfoSpan(raw string) (start, end int, ok bool) {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	if i := strings.IndexByte(raw, ':'); i > 0 && isScheme(raw[:i]) {
		start = i + 1
	}
	for start < len(raw) && raw[start] == '/' {
		start++
	}
	authority := raw[start:]
	if i := strings.IndexByte(authority, '/'); i >= 0 {
		authority = authority[:i]
	}
	at := strings.LastIndexByte(authority, '@')
	if at <= 0 {
		return 0, 0, false
	}
	return start, start + at, true
}

// isScheme reports whether s is a URL scheme as url.Parse reads one.
func isScheme(s string) bool {
	for i, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// rotate returns s with each ASCII letter and digit replaced by the next one
// of its class, wrapping around: 0-9, a-f, g-z, A-F, G-Z. The classes keep
// hex digits hex, so a URL holding the result parses as one holding s does
// (same validity, same parts), with other letters and digits.
func rotate(s string) string {
	b := []byte(s)
	for i, c := range b {
		for _, r := range []string{"09", "af", "gz", "AF", "GZ"} {
			if r[0] <= c && c <= r[1] {
				if c == r[1] {
					b[i] = r[0]
				} else {
					b[i] = c + 1
				}
				break
			}
		}
	}
	return string(b)
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

var baseURLSeeds = []string{
	ProductionURL, StagingURL, ProductionURL + "/", "https://petstore.example.com", "https://petstore.example.com/",
	"http://127.0.0.1:8080/v1", "http://localhost/v1", "http://LOCALHOST:1/v1/", "http://[::1]:80/v1", "http://127.9.9.9/v1",
	"http://[::ffff:127.0.0.1]/v1", "http://0x7f.0.0.1/v1", "http://127.0.0.1.nip.io/v1", "http://localhost.example.com/v1",
	"http://example.com/v1", "ftp://example.com/v1", "HTTPS://Petstore.Example.com/V1", "https:petstore.example.com/v1",
	"//petstore.example.com/v1", "https:///v1", "https://:443/v1", "https://host:/v1", "https://host:99999/v1",
	"https://user:hunter2-secret@host/v1", "https://hunter2-secret@host/v1", "https://u:p@ss@host/v1", "https://u:hunter2-secret@host:x/v1",
	"https://u:hunter2-secret@host/v1?q", "https://u:hunter2-secret@\x7fhost/v1", "http://u:hunter2-secret@example.com/v1",
	"https://host/v1?x=1", "https://host/v1?", "https://host/v1#frag", "https://host/v1#", "https://host/v1/../v2",
	"https://host//v1//", "https://host/v1/./", "https://host/v%2F1", "https://host/a b", "https://host/%zz", "https://[fe80::1%25en0]/v1",
	" https://host/v1", "https://host/v1\n", "https://host/v1\x00", "", "v1", "/v1", "https://host/pets", "https://host/v1/pets/",
}

// FuzzBaseURL: NewClient with any WithBaseURL never panics and, when it
// accepts the URL, every operation sends to <base path>/pets (the /v1
// segment kept) on the same host, over https or over http to loopback, with
// no user info, query (but ListPets's own) or fragment. A refusal never
// shows the user info, nor anything that may be user info in a URL that does
// not parse as one ("https:/user:password@host").
func FuzzBaseURL(f *testing.F) {
	// Independent of the caller's environment: a blank base URL falls back
	// to ProductionURL, and http is checked without PETSTORE_INSECURE_HTTP,
	// which a CI job may set for all its steps.
	f.Setenv(envBaseURL, "")
	f.Setenv(envInsecureHTTP, "")
	for _, s := range baseURLSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var sent []*url.URL
		hc := &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
			sent = append(sent, req.URL)
			body := `{"id":7,"name":"Rex","categoryId":2}`
			if req.Method == http.MethodGet && !strings.HasSuffix(req.URL.Path, "/7") {
				body = "[" + body + "]"
			}
			return httpmock.NewStringResponse(http.StatusOK, body), nil
		})}
		c, err := NewClient(testKey, WithBaseURL(raw), WithHTTPClient(hc), WithMaxRetries(0))
		if err != nil {
			if c != nil {
				t.Errorf("NewClient returned a Client and an error")
			}
			// The error must not depend on the user info: the same URL with
			// other letters and digits there gives the same error. Looking
			// for the user info's text in the error instead would flag a
			// redacted error that shows the same text from elsewhere (a
			// scheme "secret" with a password "secret").
			if start, end, ok := userinfoSpan(raw); ok {
				u := raw[start:end]
				if other := raw[:start] + rotate(u) + raw[end:]; other != raw {
					_, err2 := NewClient(testKey, WithBaseURL(other), WithHTTPClient(hc), WithMaxRetries(0))
					if err2 == nil || err2.Error() != err.Error() {
						t.Errorf("error %q shows the user info %q: with %q instead, the error is %v", err, u, rotate(u), err2)
					}
				} else if msg := strings.ReplaceAll(err.Error(), "[REDACTED]", ""); strings.Contains(msg, "//"+u+"@") {
					t.Errorf("error %q quotes the user info %q", err, u) // no letter or digit in it to vary
				}
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error %q holds the key", err)
			}
			return
		}
		if strings.TrimSpace(raw) == "" {
			raw = ProductionURL // WithBaseURL("") counts as not given
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("NewClient accepted %q, which url.Parse refuses: %v", raw, err)
		}
		basePath := path.Join("/", u.EscapedPath())
		ctx := context.Background()
		calls := []struct {
			name, path, query string
			call              func() error
		}{
			{"ListPets", "/pets", "limit=5", func() error { _, err := c.ListPets(ctx, ListPetsParams{Limit: 5}); return err }},
			{"CreatePet", "/pets", "", func() error { _, err := c.CreatePet(ctx, NewPet{Name: "Rex", CategoryID: 2}); return err }},
			{"GetPet", "/pets/7", "", func() error { _, err := c.GetPet(ctx, 7); return err }},
		}
		for _, call := range calls {
			sent = sent[:0]
			if err := call.call(); err != nil {
				t.Errorf("base %q: %s: %v", raw, call.name, err)
				continue
			}
			if len(sent) != 1 {
				t.Errorf("base %q: %s sent %d requests; want 1", raw, call.name, len(sent))
				continue
			}
			got := sent[0]
			want := strings.TrimSuffix(basePath, "/") + call.path
			switch {
			case got.Scheme != "https" && !(got.Scheme == "http" && isLoopbackHost(got.Hostname())):
				t.Errorf("base %q: %s went to %s over %s", raw, call.name, got.Host, got.Scheme)
			case got.User != nil || got.Fragment != "" || got.RawFragment != "" || got.RawQuery != call.query || got.ForceQuery:
				t.Errorf("base %q: %s went to %q: user info, fragment or query", raw, call.name, got.Redacted())
			case got.Hostname() != u.Hostname() || got.Port() != u.Port():
				t.Errorf("base %q: %s went to host %q; want %q", raw, call.name, got.Host, u.Host)
			case got.EscapedPath() != want:
				t.Errorf("base %q: %s went to path %q; want %q", raw, call.name, got.EscapedPath(), want)
			}
		}
	})
}

// FuzzResponse: for any status and body, each of the three operations,
// through the whole client path (retries, transport, body reading, decoding,
// errors), never panics and never returns a nil result with a nil error. For
// a 2xx it returns what encoding/json would decode (refDecodePets and
// refDecodePet, the reference decoders of decode_fuzz_test.go), or an error
// (not an *APIError) where encoding/json fails too; for any other status, an
// *APIError with that status, the body's code and message when it is the
// Error shape, and the start of the body.
func FuzzResponse(f *testing.F) {
	pet := `{"id":7,"name":"Rex","categoryId":2,"status":"available"}`
	errBody := `{"code":"not_found","message":"pet 7 not found","status":404}`
	for _, s := range []struct {
		op     uint8
		status int
		body   string
	}{
		{0, 200, "[" + pet + "]"}, {0, 200, "[]"}, {0, 200, "null"}, {0, 200, "[null]"}, {0, 200, "[{}]"}, {0, 200, pet},
		{0, 206, `[{"id":1,"name":"a","categoryId":1,"extra":[1,{"x":null}]}]`}, {0, 200, `[{"ID":1,"NAME":"a","CategoryID":1}]`},
		{1, 201, pet}, {1, 200, `{"id":1,"name":"a","categoryId":1,"status":"lost"}`}, {1, 201, ""}, {1, 204, ""}, {1, 201, "null"},
		{1, 201, `{"id":1.5,"name":"a","categoryId":1}`}, {1, 201, `{"id":9223372036854775808,"name":"a","categoryId":1}`},
		{2, 200, pet}, {2, 200, `{"id":1,"name":null,"categoryId":1}`}, {2, 200, `{"id":1,"name":"\ud800","categoryId":1}`},
		{2, 200, pet + " x"}, {2, 200, `{"id":1,"name":"a","categoryId":1,"name":"b"}`},
		{0, 404, errBody}, {1, 400, `{"code":"bad_request","message":"name is required","status":400}`}, {2, 401, ""},
		{0, 429, `{"code":"rate_limited"}`}, {1, 500, "<html>oops</html>"}, {2, 503, " "}, {0, 302, ""}, {1, 304, ""},
		{2, 100, ""}, {0, 199, "[]"}, {1, 300, pet}, {2, 999, errBody}, {0, 418, `{"code":1}`}, {1, 0, ""}, {2, -404, ""},
	} {
		f.Add(s.op, s.status, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, op uint8, status int, body []byte) {
		if status < 100 || status > 999 {
			// Into 100..999; a status there is left as it is, so that the
			// seeds above mean what they say (a 200 is a 200).
			status = 100 + int(uint(status)%900)
		}
		c, mt := newTestClient(t, WithMaxRetries(0))
		mt.RegisterNoResponder(func(*http.Request) (*http.Response, error) {
			return httpmock.NewBytesResponse(status, body), nil
		})
		ctx := context.Background()
		var (
			got, want any
			gotErr    error
			refErr    error
			name      string
		)
		switch op % 3 {
		case 0:
			name = "ListPets"
			pets, err := c.ListPets(ctx, ListPetsParams{})
			if err == nil && pets == nil {
				t.Fatalf("ListPets(%d, %q) = nil, nil", status, body)
			}
			got, gotErr = pets, err
			if status <= 299 {
				want, refErr = refDecodePets(body)
			}
		case 1:
			name = "CreatePet"
			pet, err := c.CreatePet(ctx, NewPet{Name: "Rex", CategoryID: 2})
			if err == nil && pet == nil {
				t.Fatalf("CreatePet(%d, %q) = nil, nil", status, body)
			}
			got, gotErr = pet, err
			if status <= 299 {
				want, refErr = refDecodePet(body)
			}
		case 2:
			name = "GetPet"
			pet, err := c.GetPet(ctx, 7)
			if err == nil && pet == nil {
				t.Fatalf("GetPet(%d, %q) = nil, nil", status, body)
			}
			got, gotErr = pet, err
			if status <= 299 {
				want, refErr = refDecodePet(body)
			}
		}
		var apiErr *APIError
		isAPI := errors.As(gotErr, &apiErr)
		if status >= 200 && status <= 299 {
			switch {
			case isAPI:
				t.Errorf("%s(%d, %q): *APIError %v for a 2xx", name, status, body, gotErr)
			case (gotErr == nil) != (refErr == nil):
				t.Errorf("%s(%d, %q): error %v; encoding/json: %v", name, status, body, gotErr, refErr)
			case gotErr == nil:
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s(%d, %q) differs from encoding/json (-want +got):\n%s", name, status, body, diff)
				}
			}
			return
		}
		if !isAPI || apiErr.Status != status {
			t.Fatalf("%s(%d, %q) = %v; want an *APIError with Status %d", name, status, body, gotErr, status)
		}
		if apiErr.Error() == "" {
			t.Errorf("empty Error()")
		}
		if bytes.Contains(body, []byte(testKey)) {
			return // redacted: the checks below do not hold
		}
		if wantBody := body[:min(len(body), maxErrorSample)]; !bytes.Equal(apiErr.Body, wantBody) {
			t.Errorf("%s(%d, %q): Body = %q; want %q", name, status, body, apiErr.Body, wantBody)
		}
		var shape struct {
			Code    *string `json:"code"`
			Message *string `json:"message"`
		}
		if json.Unmarshal(body, &shape) == nil && (shape.Code != nil || shape.Message != nil) {
			wantCode, wantMsg := "", ""
			if shape.Code != nil {
				wantCode = *shape.Code
			}
			if shape.Message != nil {
				wantMsg = *shape.Message
			}
			if status == http.StatusNotFound && name != "GetPet" {
				wantMsg = collectionNotFound(wantMsg, apiErr.Path)
			}
			if apiErr.Code != wantCode || apiErr.Message != wantMsg {
				t.Errorf("%s(%d, %q): Code, Message = %q, %q; want %q, %q", name, status, body, apiErr.Code, apiErr.Message, wantCode, wantMsg)
			}
		}
	})
}
