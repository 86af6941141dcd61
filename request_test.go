package petstore

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/go-retryablehttp"
)

// TestNewRequestMatchesRetryablehttp checks that newCall, which builds
// requests without formatting and parsing URL strings, builds the request
// retryablehttp.NewRequestWithContext builds from the URL string.
func TestNewRequestMatchesRetryablehttp(t *testing.T) {
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
			_, auth := c.cred()
			want.Header["Authorization"] = auth
			want.Header["Accept"] = jsonMediaType
			want.Header["User-Agent"] = c.userAgent
			if tc.body != nil {
				want.Header["Content-Type"] = jsonMediaType
			}
			cl, err := c.newCall(ctx, tc.o, tc.id, tc.query, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			got := &cl.rr
			if diff := cmp.Diff(summary(t, want), summary(t, got), cmpopts.IgnoreUnexported(url.URL{})); diff != "" {
				t.Errorf("%s %s (-retryablehttp +newCall):\n%s", tc.method, raw, diff)
			}
			if got.Context() != cl || cl.Context != ctx || got.Context().Value(ctxKey{}) != "x" {
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

func summary(t *testing.T, r *retryablehttp.Request) reqSummary {
	s := reqSummary{
		Method: r.Method, Proto: r.Proto, Host: r.Host, ProtoMajor: r.ProtoMajor, ProtoMinor: r.ProtoMinor,
		URL: *r.URL, URLString: r.URL.String(), Header: r.Header, ContentLength: r.ContentLength,
	}
	b, err := r.BodyBytes()
	if err != nil {
		t.Fatal(err)
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
