package check

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/leakcheck"
	"github.com/petstore/petstore-go/petstoretest"
)

// TestMain fails the package if a test leaves a goroutine behind (a
// server, or a connection of a Run's transport).
func TestMain(m *testing.M) { os.Exit(leakcheck.Run(m, os.Stderr)) }

// wrapper makes a broken fake: it wraps the handler of srv, the fake.
type wrapper func(srv *petstoretest.Server, next http.Handler) http.Handler

// startFake starts a fake with n animals (statuses available, pending,
// sold in turn; categories 1 to 3), its handler wrapped by wrap if not nil.
func startFake(t *testing.T, n int, wrap wrapper) *petstoretest.Server {
	t.Helper()
	srv := petstoretest.NewUnstartedServer()
	t.Cleanup(srv.Close)
	if wrap != nil {
		srv.Config.Handler = wrap(srv, srv.Config.Handler)
	}
	statuses := []petstore.PetStatus{petstore.PetStatusAvailable, petstore.PetStatusPending, petstore.PetStatusSold}
	pets := make([]petstore.Pet, n)
	for i := range pets {
		pets[i] = petstore.Pet{Name: "pet " + strconv.Itoa(i+1), CategoryID: int64(i%3 + 1), Status: statuses[i%3]}
	}
	srv.SetPets(pets)
	srv.Start()
	return srv
}

// testOptions are the options of a Run against url in a test: no retry, so
// that a fault answers at once.
func testOptions(url string) []petstore.Option {
	return []petstore.Option{petstore.WithBaseURL(url), petstore.WithMaxRetries(0)}
}

// runChecks runs every check, with Write, against srv and returns the
// results.
func runChecks(t *testing.T, srv *petstoretest.Server) []Result {
	t.Helper()
	var got []Result
	cfg := Config{APIKey: srv.APIKey, Options: testOptions(srv.URL), Write: true}
	fails, err := Run(context.Background(), cfg, func(r Result) { got = append(got, r) })
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n := count(got, Fail); fails != n {
		t.Errorf("Run returned %d fails, reported %d", fails, n)
	}
	return got
}

// verdicts returns each result's verdict by name.
func verdicts(results []Result) map[string]Verdict {
	m := make(map[string]Verdict, len(results))
	for _, r := range results {
		m[r.Name] = r.Verdict
	}
	return m
}

// count returns how many results have verdict v.
func count(results []Result, v Verdict) int {
	n := 0
	for _, r := range results {
		if r.Verdict == v {
			n++
		}
	}
	return n
}

// The requests of the interface, as a wrapper matches them.
func isList(r *http.Request) bool   { return r.Method == http.MethodGet && r.URL.Path == "/v1/pets" }
func isCreate(r *http.Request) bool { return r.Method == http.MethodPost && r.URL.Path == "/v1/pets" }
func isGet(id string) func(*http.Request) bool {
	return func(r *http.Request) bool { return r.Method == http.MethodGet && r.URL.Path == "/v1/pets/"+id }
}

// isLimit returns a matcher of the lists with limit n and no status filter.
func isLimit(n string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		q := r.URL.Query()
		return isList(r) && q.Get("limit") == n && !q.Has("status")
	}
}

// withStatus matches the lists with a status filter.
func withStatus(r *http.Request) bool { return isList(r) && r.URL.Query().Has("status") }

// unauthorized returns a matcher of the requests without srv's key.
func unauthorized(srv *petstoretest.Server) func(*http.Request) bool {
	return func(r *http.Request) bool { return r.Header.Get("Authorization") != "Bearer "+srv.APIKey }
}

// onRequest returns a wrapper that changes the requests match matches
// before the fake sees them.
func onRequest(match func(*http.Request) bool, change func(srv *petstoretest.Server, r *http.Request)) wrapper {
	return func(srv *petstoretest.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) {
				change(srv, r)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// onResponse returns a wrapper that changes the fake's answer to the
// requests match matches: its status and body.
func onResponse(match func(*http.Request) bool, change func(status int, body []byte) (int, []byte)) wrapper {
	return func(srv *petstoretest.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			status, body := change(rec.Code, rec.Body.Bytes())
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(status)
			w.Write(body)
		})
	}
}

// answer returns a wrapper that answers the requests match matches itself,
// with status, a Content-Type and body.
func answer(match func(*http.Request) bool, status int, contentType, body string) wrapper {
	return func(srv *petstoretest.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			io.WriteString(w, body)
		})
	}
}

// setQuery returns a request change that sets the query parameter k to v,
// or removes it when v is "".
func setQuery(k, v string) func(*petstoretest.Server, *http.Request) {
	return func(_ *petstoretest.Server, r *http.Request) {
		q := r.URL.Query()
		if v == "" {
			q.Del(k)
		} else {
			q.Set(k, v)
		}
		r.URL.RawQuery = q.Encode()
	}
}

// replace returns a response change that replaces old with new in a body.
func replace(old, new string) func(int, []byte) (int, []byte) {
	return func(status int, body []byte) (int, []byte) {
		return status, bytes.ReplaceAll(body, []byte(old), []byte(new))
	}
}

// ok2xx returns a response change that makes change to a 2xx response
// only.
func ok2xx(change func(int, []byte) (int, []byte)) func(int, []byte) (int, []byte) {
	return func(status int, body []byte) (int, []byte) {
		if status < 200 || status > 299 {
			return status, body
		}
		return change(status, body)
	}
}

// addName is a request change: a POST body without a name gets one.
func addName(_ *petstoretest.Server, r *http.Request) {
	var m map[string]any
	b, _ := io.ReadAll(r.Body)
	if json.Unmarshal(b, &m) == nil {
		if _, ok := m["name"]; !ok {
			m["name"] = "added"
			b, _ = json.Marshal(m)
		}
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
}
