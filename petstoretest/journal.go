package petstoretest

import (
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/petstore/petstore-go/internal/fakehook"
)

// Request is one API request the server received, as [Server.Received]
// returns it.
type Request struct {
	// Operation is the operation of the request's route, "ListPets",
	// "CreatePet" or "GetPet", whether or not the request was authorized
	// or valid; "" when no route matched (an unknown path, or a method the
	// path does not take).
	Operation string
	Method    string
	// Path is the path as received, escaped, without the query.
	Path  string
	Query url.Values
	// Header is the request's header as received, without Authorization.
	Header http.Header
	// Authorized reports whether the request carried the server's APIKey
	// as a bearer token.
	Authorized bool
	// Body is the request body as received (its first 1 MiB), even if the
	// server refused it.
	Body []byte
	// Status is the status line the server sent: the answer's status even
	// when a CutBody fault cut its body short; 0 when no answer was sent
	// (a Disconnect fault, or a client that gave up during a Delay).
	Status int
	// Fault reports whether a [Fault] applied to the request: it answered,
	// stalled, dropped or cut it.
	Fault bool
	// RequestID is the X-Request-Id the server sent back.
	RequestID string
}

// Received returns every API request the server has received since it
// started or since Reset, oldest first, faults and refused requests
// included. A request is there, with its Status, before the last byte of
// its answer is sent (or its connection dropped), so a client that has read
// its response finds it. It returns a copy: changing it changes nothing in
// the server.
//
// The journal keeps each request until Reset, bodies included: a server
// that runs for long under load should be reset now and then.
func (s *Server) Received() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var reqs []Request // nil when empty, as Pets and Created return
	if len(s.journal) > 0 {
		reqs = make([]Request, len(s.journal))
	}
	for i, e := range s.journal {
		reqs[i] = *e
		reqs[i].Query = cloneValues(e.Query)
		reqs[i].Header = e.Header.Clone()
		reqs[i].Body = slices.Clone(e.Body[:min(len(e.Body), maxBody)])
	}
	return reqs
}

// newRequest returns the journal entry of r, with no RequestID and no
// Status yet. It reads r's body, up to one byte more than maxBody so that
// createPet can tell a body that is too large (Received returns maxBody
// bytes at most).
func newRequest(r *http.Request, op string, authorized bool) *Request {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody+1)) // what arrived, even if cut short
	h := r.Header.Clone()
	h.Del("Authorization")
	return &Request{
		Operation:  op,
		Method:     r.Method,
		Path:       r.URL.EscapedPath(),
		Query:      r.URL.Query(),
		Header:     h,
		Authorized: authorized,
		Body:       body,
	}
}

func cloneValues(v url.Values) url.Values {
	c := maps.Clone(v)
	for k, vs := range c {
		c[k] = slices.Clone(vs)
	}
	return c
}

// answerWriter is the ResponseWriter of a request: it records the status in
// the request's journal entry (and in the Outcome a wrapping handler may
// read) before the status line is sent, and cuts the body short for a
// CutBody fault.
type answerWriter struct {
	http.ResponseWriter
	s      *Server
	e      *Request
	o      *fakehook.Outcome
	cut    bool // send half of the body, then drop the connection
	status int
}

func (w *answerWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	w.s.mu.Lock()
	w.e.Status = code
	w.s.mu.Unlock()
	w.o.Status = code
	w.ResponseWriter.WriteHeader(code)
}

// Write sends b, or for a CutBody fault the first half of b, then drops the
// connection (over HTTP/2, resets the stream) by panicking with
// http.ErrAbortHandler, which net/http handles without a log line. Every
// answer of the fake is one Write of a body whose Content-Length is set.
func (w *answerWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if !w.cut {
		return w.ResponseWriter.Write(b)
	}
	w.ResponseWriter.Write(b[:len(b)/2])
	http.NewResponseController(w.ResponseWriter).Flush()
	panic(http.ErrAbortHandler)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
