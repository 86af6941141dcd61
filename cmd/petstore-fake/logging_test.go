package main

import (
	"bytes"
	"context"
	"log"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// Handlers for TestLogRequests.

func answer404(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "not found", http.StatusNotFound)
}

func answerBody(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte("[]"))
}

func answerNothing(w http.ResponseWriter, r *http.Request) {}

func TestLogRequests(t *testing.T) {
	t.Parallel()
	const key = "pst_secret"
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		method  string
		target  string
		ctx     context.Context
		want    string // a regexp of the line, without its newline
	}{
		{"a status", answer404, "GET", "/v1/pets/7", context.Background(), `GET /v1/pets/7 404 \S+`},
		{"a body without a status", answerBody, "POST", "/v1/pets", context.Background(), `POST /v1/pets 200 \S+`},
		{"nothing written", answerNothing, "GET", "/v1/pets", context.Background(), `GET /v1/pets 200 \S+`},
		{"the client went away", answerNothing, "GET", "/v1/pets", canceled, `GET /v1/pets - \(client gone\) \S+`},
		{"no query", answerBody, "GET", "/v1/pets?token=" + key + "&limit=1", context.Background(), `GET /v1/pets 200 \S+`},
		{"the key in the path", answer404, "GET", "/v1/pets/" + key, context.Background(), `GET /v1/pets/<key> 404 \S+`},
		{"an escaped path", answer404, "GET", "/v1/a%0Ab", context.Background(), `GET /v1/a%0Ab 404 \S+`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			h := logRequests(tc.handler, log.New(&buf, "", 0), key)
			r := httptest.NewRequest(tc.method, tc.target, nil).WithContext(tc.ctx)
			r.Header.Set("Authorization", "Bearer "+key)
			h.ServeHTTP(httptest.NewRecorder(), r)
			if !regexp.MustCompile(`\A` + tc.want + `\n\z`).MatchString(buf.String()) {
				t.Errorf("logged %q, want one line matching %q", buf.String(), tc.want)
			}
			if strings.Contains(buf.String(), key) || strings.Contains(buf.String(), "Bearer") {
				t.Errorf("logged %q: it holds the key or the Authorization header", buf.String())
			}
		})
	}
}

func TestStatusWriterPassesThrough(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	sw := &statusWriter{ResponseWriter: rec}
	sw.WriteHeader(http.StatusCreated)
	sw.WriteHeader(http.StatusInternalServerError) // superfluous: net/http keeps the first
	sw.Write([]byte("ok"))
	if sw.status != http.StatusCreated || rec.Code != http.StatusCreated || rec.Body.String() != "ok" {
		t.Errorf("status %d, recorded %d %q; want 201, 201 \"ok\"", sw.status, rec.Code, rec.Body.String())
	}
	if err := http.NewResponseController(sw).Flush(); err != nil {
		t.Errorf("Flush through the statusWriter: %v", err)
	}
}
