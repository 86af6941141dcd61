package check

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go/petstoretest"
)

// headerWriter sets the headers of set (deleting those set to "") before the
// status line goes out.
type headerWriter struct {
	http.ResponseWriter
	set map[string]string
}

func (w headerWriter) WriteHeader(code int) {
	for k, v := range w.set {
		if v == "" {
			w.Header().Del(k)
		} else {
			w.Header().Set(k, v)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

// setHeaders returns a wrapper that sets the headers of every answer.
func setHeaders(set map[string]string) wrapper {
	return func(_ *petstoretest.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(headerWriter{w, set}, r)
		})
	}
}

// defaultAvailable is a request change: a POST body without a status gets
// "available".
func defaultAvailable(_ *petstoretest.Server, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	if !bytes.Contains(b, []byte(`"status"`)) {
		b = bytes.Replace(b, []byte(`}`), []byte(`,"status":"available"}`), 1)
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
}

// TestOpenQuestions: where the interface is silent, the checks say what
// they saw, as INFO, whatever it is.
func TestOpenQuestions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		wrap   wrapper
		check  string
		detail string
	}{
		{"limit 101 clamped", onRequest(isLimit("101"), setQuery("limit", "100")),
			"list-limit-101", "GET /pets?limit=101 answered 200 with 25 animals"},
		{"limit 101 dropped", onRequest(isLimit("101"), func(_ *petstoretest.Server, r *http.Request) { panic(http.ErrAbortHandler) }),
			"list-limit-101", "GET /pets?limit=101: petstore: GET /v1/pets: EOF"},
		{"no deprecation headers", setHeaders(map[string]string{"Deprecation": "", "Sunset": ""}),
			"get-pet-deprecation", "GET /pets/{petId} sends no Deprecation or Sunset header"},
		{"another sunset", setHeaders(map[string]string{"Deprecation": "true", "Sunset": "Sat, 01 Jun 2030 00:00:00 GMT"}),
			"get-pet-deprecation", `GET /pets/{petId} sends Deprecation: "true", Sunset: "Sat, 01 Jun 2030 00:00:00 GMT" (not the interface's removal date, 5 December 2030)`},
		{"created available", onRequest(isCreate, defaultAvailable),
			"create-default-status", `an animal created without a status has status "available"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			results := runChecks(t, startFake(t, 25, tt.wrap))
			if diff := cmp.Diff(healthy(), verdicts(results)); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			for _, r := range results {
				if r.Name == tt.check && r.Detail != tt.detail {
					t.Errorf("%s: %q, want %q", r.Name, r.Detail, tt.detail)
				}
			}
		})
	}
}

// TestEveryFailReached: each check that can fail fails against one of the
// broken fakes; the others only ever say INFO.
func TestEveryFailReached(t *testing.T) {
	t.Parallel()
	reached := make(map[string]bool)
	for _, b := range brokenFakes {
		for _, name := range b.fails {
			reached[name] = true
		}
	}
	want, got := make(map[string]bool), make(map[string]bool)
	for name, v := range healthy() {
		want[name], got[name] = v == Pass, reached[name]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checks that fail against a broken fake (-want +got):\n%s", diff)
	}
}
