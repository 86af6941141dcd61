// Package petstoretest provides an in-memory fake of the Pet Store API for
// tests, in the manner of net/http/httptest.
//
// It implements a simplified form of the service, suitable for unit tests: the
// three operations of interface version 1.0.0, bearer authentication and the
// documented Error bodies. It may behave differently from the real service
// where the interface is silent (see [Server]).
//
//	srv := petstoretest.NewServer()
//	defer srv.Close()
//	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL))
//
// A test steers the fake while it runs: [Server.InjectFault] makes the next
// requests fail as a real network or service may (an error status, a stall,
// a dropped connection, a body cut short, a proxy's HTML page);
// [Server.Received] tells what the code under test sent, request by request;
// [Server.SetPets], [Server.ClearFaults] and [Server.Reset] set up the next
// step.
//
// The journal is bounded, so that a fake can run for a day under load: it
// keeps the newest 10,000 requests, within 32 MiB of what they keep
// (bodies, up to their first 64 KiB, paths, queries and headers, each
// header value with its overhead), and drops the oldest first
// ([Server.MaxJournalEntries] and [Server.MaxJournalBytes] set other
// bounds). A refused body is read up to 1 MiB and not kept beyond 64 KiB.
// The bound counts memory, not bytes of text: a query a&a&a... or
// thousands of empty header values cost what they keep, and no entry
// holds on to its request line.
//
// # Error codes
//
// Every answer that is not a success, whatever the path or method, is an
// Error body, {"code": ..., "message": ..., "status": ...}, whose status is
// the HTTP status. Its code is one of:
//
//	unauthorized          401  no Authorization header, or not "Bearer <APIKey>"
//	invalid_parameter     400  limit, status or petId is not a value the interface allows
//	invalid_body          400  the POST /pets body is not a valid NewPet (or is over 1 MiB)
//	not_found             404  no animal has that id, or the path is not exactly one of
//	                           the interface's (/v1//pets, /v1/./pets and /v1/pets/ are not)
//	method_not_allowed    405  a method the path does not take (with an Allow header)
//	ids_exhausted         507  POST /pets after an animal with id 9223372036854775807
//	                           (math.MaxInt64): ids never wrap, nothing is created
//	server_closed         503  Close ended a request a Fault was stalling
//
// and, for a [Fault] with a Status, the status's text in snake case:
// too_many_requests (429), internal_server_error (500), bad_gateway (502),
// service_unavailable (503), gateway_timeout (504) and so on, or "fault"
// for a status that has no text (such as 599).
//
// The package has no global state and does not import testing, so it also
// works in Example functions and programs.
package petstoretest

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/fakehook"
)

// Header values sent by the deprecated GetPet operation. The interface gives
// the removal date (5 December 2030) but not the date the operation was
// deprecated: the fake uses 1 January 2025 00:00:00 UTC.
const (
	deprecationHeader = "@1735689600" // RFC 9745: 2025-01-01T00:00:00Z
	sunsetHeader      = "Thu, 05 Dec 2030 00:00:00 GMT"
)

// Server is an in-memory Pet Store listening on a loopback address (or on
// the Listener set before [Server.Start]). It is safe for concurrent use.
//
// Where the interface is silent, the fake chooses: ids start at 1 and grow
// by one, up to math.MaxInt64 and never past it (a create after an animal
// with that id answers 507 ids_exhausted); GET /pets returns animals in id order; an animal created without a
// status keeps none; an empty name is refused like a missing one; unknown
// JSON fields are ignored; the deprecated GET /pets/{petId} sends
// Deprecation: @1735689600 (1 January 2025) and Sunset: Thu, 05 Dec 2030
// 00:00:00 GMT; a non-integer petId, limit or status filter answers 400; a
// path that is not exactly one of the interface's answers 404 and a method
// the path does not take 405, both with an Error body. Every response
// carries an X-Request-Id header, req-1, req-2, ... counting every request
// since the server started (Reset does not start it again).
type Server struct {
	// URL is the base URL of the API, including the version segment, such
	// as "http://127.0.0.1:40123/v1". Pass it to petstore.WithBaseURL.
	URL string
	// APIKey is the only API key the server accepts, random for each
	// Server. It may be changed after NewUnstartedServer and before Start.
	APIKey string
	// Listener is where the server accepts connections: a listener on a
	// random loopback port made by NewUnstartedServer (or NewServer). To
	// serve elsewhere, such as at a fixed address, set it after
	// NewUnstartedServer and before Start; Start then closes the first one.
	Listener net.Listener
	// Config is the HTTP server that serves the fake; its Handler is the
	// fake's handler. It may be changed after NewUnstartedServer and before
	// Start, for example to wrap the Handler with one that logs requests.
	Config *http.Server
	// MaxJournalEntries and MaxJournalBytes bound the journal
	// ([Server.Received]): once a new request takes it past either, the
	// oldest entries are dropped until it is within both (the newest stays,
	// even alone over MaxJournalBytes). MaxJournalBytes counts the memory
	// an entry keeps: its kept body (its first 64 KiB), its method, path
	// and query as text (the query is kept as received and parsed when
	// read), its header's names and values as text, and 20 bytes more a
	// header value, 128 a header name and 1 KiB for the rest.
	// NewUnstartedServer sets them to 10,000 entries and 32 MiB; a
	// MaxJournalEntries of 0 keeps no entry at all. They may be changed
	// after NewUnstartedServer and before Start.
	MaxJournalEntries int
	MaxJournalBytes   int

	hs        *httptest.Server
	closing   chan struct{} // closed by Close: releases stalled requests
	closeOnce sync.Once

	mu       sync.Mutex
	pets     []petstore.Pet // in id order
	created  []petstore.Pet // through POST, in order
	lastID   int64          // the largest id given; the next is lastID+1
	requests int            // since the start or the last Reset
	received int            // since the start: numbers the X-Request-Id
	journal  []journalEntry // oldest first, their Status set as they are answered
	kept     int            // the sizes of the journal's entries, added up
	faults   []*Fault       // copies, their Count decremented as they fire
}

// NewServer starts and returns a new, empty [Server].
// The caller should call Close when finished, to shut it down.
func NewServer() *Server {
	s := NewUnstartedServer()
	s.Start()
	return s
}

// NewUnstartedServer returns a new, empty [Server] but doesn't start it, in
// the manner of httptest.NewUnstartedServer. After changing its APIKey,
// Listener or Config, and adding animals and faults, the caller should call
// Start or StartTLS, then Close when finished. Until then, URL is empty and
// nothing is served.
func NewUnstartedServer() *Server {
	var key [16]byte
	if _, err := rand.Read(key[:]); err != nil {
		panic("petstoretest: " + err.Error())
	}
	s := &Server{
		APIKey:            "pst_" + hex.EncodeToString(key[:]),
		MaxJournalEntries: defaultJournalEntries,
		MaxJournalBytes:   defaultJournalBytes,
		closing:           make(chan struct{}),
	}
	s.hs = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	// OPTIONS * reaches the handler, and is answered like any other path.
	s.hs.Config.DisableGeneralOptionsHandler = true
	s.Listener = s.hs.Listener
	s.Config = s.hs.Config
	return s
}

// Start starts a server from NewUnstartedServer on its Listener and sets
// URL. Start panics if the server was already started or APIKey is empty.
func (s *Server) Start() { s.start(false) }

// StartTLS is like Start, but serves HTTPS with httptest's certificate (for
// 127.0.0.1, ::1 and example.com), speaking HTTP/2 to clients that offer it
// and HTTP/1.1 to others. Call the API with [Server.Client], which trusts
// the certificate and speaks HTTP/2:
//
//	srv := petstoretest.NewUnstartedServer()
//	srv.StartTLS()
//	defer srv.Close()
//	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL),
//		petstore.WithHTTPClient(srv.Client()))
func (s *Server) StartTLS() { s.start(true) }

func (s *Server) start(tls bool) {
	if s.URL != "" {
		panic("petstoretest: Start: server already started")
	}
	if s.APIKey == "" {
		panic("petstoretest: Start: empty APIKey")
	}
	if s.Listener != s.hs.Listener {
		s.hs.Listener.Close()
		s.hs.Listener = s.Listener
	}
	s.hs.Config = s.Config
	if tls {
		s.hs.EnableHTTP2 = true
		s.hs.StartTLS()
	} else {
		s.hs.Start()
	}
	s.URL = s.hs.URL + basePath
}

// Client returns the server's HTTP client (the same one each time), for
// petstore.WithHTTPClient: after StartTLS, it trusts the server's
// certificate and speaks HTTP/2. Close closes its idle connections.
func (s *Server) Client() *http.Client { return s.hs.Client() }

// basePath is the version segment the server serves under.
const basePath = "/v1"

// Close shuts the server down, ending stalled requests at once (with a 503),
// and blocks until all outstanding requests have completed. Calling it again does
// nothing. On a server that was never started, it closes the Listener.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		if s.Listener != s.hs.Listener { // set, and never started
			s.Listener.Close()
		}
		s.hs.Close()
	})
}

// Reset takes the server back to the start: no animals, none created, no
// faults, an empty journal, ids from 1 and Requests() 0. Requests being
// served when it is called may still add to the new state.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pets, s.created, s.faults, s.journal = nil, nil, nil, nil
	s.lastID, s.requests, s.kept = 0, 0, 0
}

// Requests returns how many HTTP requests the server has received since it
// started or since Reset, whatever their outcome (faults and authentication
// failures included): with a single client it is the number of attempts,
// retries included.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// serve is the server's handler: it records the request in the journal,
// applies a pending fault, checks the key, then routes. A request whose
// context carries a fakehook.Walk (only cmd/petstore-fake can make one) is
// not an API request: it hands over the journal, and is neither answered
// nor recorded.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if walk := fakehook.WalkFromContext(r.Context()); walk != nil {
		s.walkJournal(walk)
		return
	}
	op, handle := s.route(r)
	authorized := s.authorized(r)
	entry, body := newRequest(r, op, authorized && op == "CreatePet")
	e := entry.req
	e.Authorized = authorized
	o := fakehook.FromContext(r.Context())
	if o == nil {
		o = new(fakehook.Outcome)
	}

	s.mu.Lock()
	s.requests++
	s.received++
	e.RequestID = "req-" + strconv.Itoa(s.received)
	s.record(entry)
	f := s.takeFault(op)
	e.Fault = f != nil
	s.mu.Unlock()

	*o = fakehook.Outcome{RequestID: e.RequestID, Fault: f != nil}
	aw := &answerWriter{ResponseWriter: w, s: s, e: e, o: o, cut: f != nil && f.CutBody}
	aw.Header().Set("X-Request-Id", e.RequestID)
	if op == "GetPet" {
		aw.Header().Set("Deprecation", deprecationHeader)
		aw.Header().Set("Sunset", sunsetHeader)
	}
	if f != nil && s.applyFault(aw, r, f) {
		return
	}
	if !e.Authorized {
		aw.Header().Set("WWW-Authenticate", `Bearer realm="petstore"`)
		msg := "invalid API key"
		if r.Header.Get("Authorization") == "" {
			msg = "missing API key: send Authorization: Bearer <key>"
		}
		writeError(aw, http.StatusUnauthorized, "unauthorized", msg)
		return
	}
	handle(aw, r, body)
}

// handler answers a request whose body has been read.
type handler func(w http.ResponseWriter, r *http.Request, body []byte)

// route returns the operation r asks for and its handler. Only the paths of
// the interface, exactly as written (escaped), have an operation: any other
// path, or a method the path does not take, gets "" and a handler that
// answers with an Error body.
func (s *Server) route(r *http.Request) (string, handler) {
	path := r.URL.EscapedPath()
	if path == basePath+"/pets" {
		switch r.Method {
		case http.MethodGet:
			return "ListPets", s.listPets
		case http.MethodPost:
			return "CreatePet", s.createPet
		}
		return "", methodNotAllowed("GET, POST")
	}
	if id, ok := strings.CutPrefix(path, basePath+"/pets/"); ok && id != "" && !strings.Contains(id, "/") {
		if r.Method == http.MethodGet {
			return "GetPet", s.getPet
		}
		return "", methodNotAllowed("GET")
	}
	return "", notFound
}

// authorized reports whether r carries "Authorization: Bearer <s.APIKey>"
// (the scheme is case-insensitive).
func (s *Server) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") &&
		subtle.ConstantTimeCompare([]byte(token), []byte(s.APIKey)) == 1
}

func methodNotAllowed(allow string) handler {
	return func(w http.ResponseWriter, r *http.Request, _ []byte) {
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed on "+r.URL.EscapedPath())
	}
}

func notFound(w http.ResponseWriter, r *http.Request, _ []byte) {
	path := r.URL.EscapedPath()
	if path == "" { // CONNECT host:port
		path = r.RequestURI
	}
	writeError(w, http.StatusNotFound, "not_found", "no such path: "+path)
}
