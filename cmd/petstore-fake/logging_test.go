package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go/internal/fakehook"
)

// answering returns a handler that answers as the fake would have: it fills
// in the request's Outcome with o and, when o.Status is set, sends it; with
// drop, it then ends the request as the fake drops a connection.
func answering(o fakehook.Outcome, drop bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		*fakehook.FromContext(r.Context()) = o
		if o.Status != 0 {
			w.WriteHeader(o.Status)
		}
		if drop {
			panic(http.ErrAbortHandler)
		}
	}
}

// serveLogged serves r with h wrapped by logRequests, and returns what the
// log of form got, and what the request panicked with, if anything.
func serveLogged(t *testing.T, form, key string, h http.Handler, r *http.Request) (logged string, panicked any) {
	t.Helper()
	var buf bytes.Buffer
	defer func() { panicked = recover(); logged = buf.String() }()
	logRequests(h, newEventLog(form, &buf, key)).ServeHTTP(httptest.NewRecorder(), r)
	return "", nil
}

func TestLogText(t *testing.T) {
	t.Parallel()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name      string
		handler   http.HandlerFunc
		target    string
		ctx       context.Context
		want      string // a regexp of the line, without its time and newline
		wantPanic any
	}{
		{"a status", answering(fakehook.Outcome{Status: 404}, false), "/v1/pets/7", context.Background(), `GET /v1/pets/7 404 \d\S*s`, nil},
		{"no query", answering(fakehook.Outcome{Status: 200}, false), "/v1/pets?limit=1&status=sold", context.Background(), `GET /v1/pets 200 \d\S*s`, nil},
		{"an escaped path", answering(fakehook.Outcome{Status: 404}, false), "/v1/a%0Ab", context.Background(), `GET /v1/a%0Ab 404 \d\S*s`, nil},
		{"the client went away", answering(fakehook.Outcome{Fault: true}, false), "/v1/pets", canceled, `GET /v1/pets - \(client gone\) \d\S*s`, nil},
		{"dropped", answering(fakehook.Outcome{Fault: true}, true), "/v1/pets", context.Background(), `GET /v1/pets - \(dropped\) \d\S*s`, http.ErrAbortHandler},
		{"cut short", answering(fakehook.Outcome{Status: 200, Fault: true}, true), "/v1/pets", context.Background(), `GET /v1/pets 200 \d\S*s`, http.ErrAbortHandler},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", tc.target, nil).WithContext(tc.ctx)
			got, panicked := serveLogged(t, "text", "pst_secret", tc.handler, r)
			if want := `\A\d\d:\d\d:\d\d\.\d{6} ` + tc.want + `\n\z`; !regexp.MustCompile(want).MatchString(got) {
				t.Errorf("logged %q, want one line matching %q", got, want)
			}
			if panicked != tc.wantPanic {
				t.Errorf("the request panicked with %v, want %v", panicked, tc.wantPanic)
			}
		})
	}
}

// TestHealthChecksNotLogged: a health check that passed (GET
// /_fake/health answered 200) writes nothing, in either form, so that a
// container's probe every few seconds does not bury the requests; any
// other answer on that path is logged.
func TestHealthChecksNotLogged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, target string
		status               int
		lines                int
	}{
		{"passed", "GET", "/_fake/health", 200, 0},
		{"failed", "GET", "/_fake/health", 503, 1},
		{"another method", "POST", "/_fake/health", 405, 1},
		{"a query", "GET", "/_fake/health?x=1", 400, 1},
		{"another path", "GET", "/_fake/healthz", 404, 1},
		{"the API", "GET", "/v1/pets", 200, 1},
	}
	for _, form := range []string{"text", "json"} {
		for _, tc := range tests {
			t.Run(form+" "+tc.name, func(t *testing.T) {
				t.Parallel()
				r := httptest.NewRequest(tc.method, tc.target, nil)
				got, _ := serveLogged(t, form, "pst_secret", answering(fakehook.Outcome{Status: tc.status}, false), r)
				if lines := strings.Count(got, "\n"); lines != tc.lines {
					t.Errorf("%s %s answered %d: logged %q, want %d lines", tc.method, tc.target, tc.status, got, tc.lines)
				}
			})
		}
	}
}

// requestKeys are the keys of a request's record in json, in order.
var requestKeys = []string{"time", "level", "msg", "method", "path", "query", "status", "duration", "request_id", "fault"}

func TestLogJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		target  string
		want    map[string]any // the record without time and duration
	}{
		{"a status", answering(fakehook.Outcome{Status: 200, RequestID: "req-7"}, false), "/v1/pets?limit=1&status=sold",
			map[string]any{"level": "INFO", "msg": "request", "method": "GET", "path": "/v1/pets", "query": "limit=1&status=sold", "status": 200.0, "request_id": "req-7", "fault": false}},
		{"a fault", answering(fakehook.Outcome{Status: 503, RequestID: "req-8", Fault: true}, false), "/v1/pets/%41",
			map[string]any{"level": "INFO", "msg": "request", "method": "GET", "path": "/v1/pets/%41", "query": "", "status": 503.0, "request_id": "req-8", "fault": true}},
		{"dropped", answering(fakehook.Outcome{RequestID: "req-9", Fault: true}, true), "/v1/pets",
			map[string]any{"level": "INFO", "msg": "request", "method": "GET", "path": "/v1/pets", "query": "", "status": 0.0, "request_id": "req-9", "fault": true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, _ := serveLogged(t, "json", "pst_secret", tc.handler, httptest.NewRequest("GET", tc.target, nil))
			keys, rec := parseRecord(t, got)
			if diff := cmp.Diff(requestKeys, keys); diff != "" {
				t.Errorf("keys of %s mismatch (-want +got):\n%s", got, diff)
			}
			if d, ok := rec["duration"].(float64); !ok || d < 0 {
				t.Errorf("duration %v, want nanoseconds", rec["duration"])
			}
			if _, ok := rec["time"].(string); !ok {
				t.Errorf("time %v, want a string", rec["time"])
			}
			delete(rec, "time")
			delete(rec, "duration")
			if diff := cmp.Diff(tc.want, rec); diff != "" {
				t.Errorf("record mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// parseRecord parses a json log line, a single object, and returns its keys
// in order and its values.
func parseRecord(t *testing.T, line string) ([]string, map[string]any) {
	t.Helper()
	if !strings.HasSuffix(line, "}\n") || strings.Count(line, "\n") != 1 {
		t.Fatalf("log %q: want one line holding one object", line)
	}
	dec := json.NewDecoder(strings.NewReader(line))
	var keys []string
	rec := map[string]any{}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("log %q: not a JSON object (%v)", line, err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("log %q: %v", line, err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("log %q: %v", line, err)
		}
		keys = append(keys, tok.(string))
		rec[tok.(string)] = v
	}
	if _, err := dec.Token(); err != nil {
		t.Fatalf("log %q: %v", line, err)
	}
	return keys, rec
}

func TestLogMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		form string
		want string // a regexp of both lines
	}{
		{"text", `\A\d\d:\d\d:\d\d\.\d{6} serving 3 animals\n\d\d:\d\d:\d\d\.\d{6} http: Accept error\n\z`},
		{"json", `\A\{"time":"[^"]+","level":"INFO","msg":"serving 3 animals"\}\n\{"time":"[^"]+","level":"ERROR","msg":"http: Accept error"\}\n\z`},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		l := newEventLog(tc.form, &buf, "pst_secret")
		l.Printf("serving %d animals", 3)
		l.errorLog().Printf("http: Accept error")
		if !regexp.MustCompile(tc.want).MatchString(buf.String()) {
			t.Errorf("-log %s: logged %q, want a match of %q", tc.form, buf.String(), tc.want)
		}
	}
}

// TestLogNeverHoldsTheKey: whatever form a client gives the key in, in a
// path, a query or a header, neither form of the log holds it; nor does a
// message.
func TestLogNeverHoldsTheKey(t *testing.T) {
	t.Parallel()
	const key = "sk/Live/Secret-Key_123"
	forms := []string{key, "sk%2FLive%2FSecret-Key_123", "sk%2flive%2fsecret-key_123", "SK/LIVE/SECRET-KEY_123", `sk\/Live\/Secret-Key_123`}
	targets := []string{
		"/v1/pets/sk%2FLive%2FSecret-Key_123", // the issue's
		"/v1/pets/sk%2flive%2fSECRET-KEY_123",
		"/v1/pets/" + key,
		"/v1/pets/%73k%2FLive%2FSecret%2DKey_123",
		"/v1/pets?token=" + key,
		"/v1/pets?token=sk%2FLive%2FSecret-Key_123&limit=1",
	}
	for _, form := range []string{"text", "json"} {
		for _, target := range targets {
			r := httptest.NewRequest("GET", target, nil)
			r.Header.Set("Authorization", "Bearer "+key)
			r.Header.Set("X-Echo", key)
			got, _ := serveLogged(t, form, key, answering(fakehook.Outcome{Status: 401, RequestID: "req-1"}, false), r)
			var buf bytes.Buffer
			l := newEventLog(form, &buf, key)
			l.Printf("a message with the key: %s", key)
			l.errorLog().Printf("an error with the key: %s", "sk%2fLive%2fSecret-Key_123")
			got += buf.String()
			for _, k := range forms {
				if strings.Contains(got, k) {
					t.Errorf("-log %s, request %s: the log holds the key as %q:\n%s", form, target, k, got)
				}
			}
			if strings.Contains(got, "Bearer") || strings.Contains(got, "X-Echo") {
				t.Errorf("-log %s, request %s: the log holds a header:\n%s", form, target, got)
			}
			want := 3 // once per line: the request's, the message's, the error's
			if form == "text" && strings.HasPrefix(target, "/v1/pets?") {
				want = 2 // text leaves out the query
			}
			if n := strings.Count(got, "[REDACTED]"); n != want {
				t.Errorf("-log %s, request %s: [REDACTED] %d times, want %d:\n%s", form, target, n, want, got)
			}
			if form == "json" {
				lines := strings.SplitAfter(got, "\n") // the last one empty
				for _, line := range lines[:len(lines)-1] {
					parseRecord(t, line) // still JSON
				}
			}
		}
	}
}

// TestLogShortKeyAfterEquals: with -log json, a short key (under 8
// characters) in a query right after "=" is redacted (in a b64token "="
// is only padding at its end: a token starts after it); the key "1" leaves
// ids and digits inside longer tokens alone, and, the trade-off the README
// states, shows "limit=1" as "limit=[REDACTED]".
func TestLogShortKeyAfterEquals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key, target, want string
	}{
		{"api_key=", "sk_7Qx", "/v1/pets?api_key=sk_7Qx", "/v1/pets?api_key=[REDACTED]"},
		{"access_token=", "sk_7Qx", "/v1/pets?access_token=sk_7Qx&limit=2", "/v1/pets?access_token=[REDACTED]&limit=2"},
		{"key=...&", "sk_7Qx", "/v1/pets?key=sk_7Qx&", "/v1/pets?key=[REDACTED]&"},
		{"the key with padding after it is another token", "sk_7Qx", "/v1/pets?key=sk_7Qx=", "/v1/pets?key=sk_7Qx="},
		{"ids with the key 1", "1", "/v1/pets/10?x=21", "/v1/pets/10?x=21"},
		{"the trade-off: a value that is the key", "1", "/v1/pets?limit=1", "/v1/pets?limit=[REDACTED]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "http://127.0.0.1:8080"+tc.target, nil)
			logged, _ := serveLogged(t, "json", tc.key, answering(fakehook.Outcome{Status: 401, RequestID: "req-1"}, false), r)
			_, rec := parseRecord(t, logged)
			got := fmt.Sprintf("%v?%v", rec["path"], rec["query"])
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("path?query logged mismatch (-want +got):\n%s\nlog: %s", diff, logged)
			}
		})
	}
}

// testJSONLog: with -log json every line on stderr is a JSON record, a
// request's with exactly requestKeys; a key sent in a path (escaped or not)
// or a query is in none of them.
func testJSONLog(t *testing.T, bin string) {
	const key = "sk/Live/Secret-Key_123"
	f := startFake(t, bin, "-addr", "127.0.0.1:0", "-log", "json", "-key", key)
	baseURL, _ := f.exports(t)
	var statuses []int
	for _, target := range []string{"/pets/sk%2FLive%2FSecret-Key_123", "/pets/" + key, "/pets?token=sk%2flive%2fsecret-key_123"} {
		resp, err := http.Get(baseURL + target) // no key: 401
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
	}
	f.stop(t)

	var paths []string
	for _, line := range f.stderr.Lines() {
		keys, rec := parseRecord(t, line+"\n")
		if rec["msg"] != "request" {
			if diff := cmp.Diff(requestKeys[:3], keys); diff != "" {
				t.Errorf("keys of %s mismatch (-want +got):\n%s", line, diff)
			}
			continue
		}
		if diff := cmp.Diff(requestKeys, keys); diff != "" {
			t.Errorf("keys of %s mismatch (-want +got):\n%s", line, diff)
		}
		paths = append(paths, fmt.Sprintf("%v %v?%v %v", rec["method"], rec["path"], rec["query"], rec["status"]))
	}
	want := []string{"GET /v1/pets/[REDACTED]? 401", "GET /v1/pets/[REDACTED]? 401", "GET /v1/pets?token=[REDACTED] 401"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("requests logged mismatch (-want +got):\n%s\nstderr:\n%s", diff, f.stderr.String())
	}
	if diff := cmp.Diff([]int{401, 401, 401}, statuses); diff != "" {
		t.Errorf("statuses mismatch (-want +got):\n%s", diff)
	}
	for _, k := range []string{key, "sk%2FLive", "sk%2flive", "Secret-Key"} {
		if strings.Contains(f.stderr.String(), k) {
			t.Errorf("stderr holds the key as %q:\n%s", k, f.stderr.String())
		}
	}
}
