package main

import (
	"log"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// logRequests returns a handler that serves each request with next, then
// writes one line to l: method, path, status and duration. It never writes
// headers (Authorization holds the key) nor the query, and hides the key
// should a client put it in the path.
func logRequests(next http.Handler, l *log.Logger, key string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		status := "200" // what net/http sends for a handler that writes nothing
		switch {
		case sw.status != 0:
			status = strconv.Itoa(sw.status)
		case r.Context().Err() != nil:
			status = "- (client gone)"
		}
		path := strings.ReplaceAll(r.URL.EscapedPath(), key, "<key>")
		l.Printf("%s %s %s %v", r.Method, path, status, time.Since(start).Round(time.Microsecond))
	})
}

// statusWriter records the status a handler sends.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
