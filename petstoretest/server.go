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
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/petstore/petstore-go"
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
// by one; GET /pets returns animals in id order; an animal created without a
// status keeps none; an empty name is refused like a missing one; unknown
// JSON fields are ignored; the deprecated GET /pets/{petId} sends
// Deprecation: @1735689600 (1 January 2025) and Sunset: Thu, 05 Dec 2030
// 00:00:00 GMT; a non-integer petId, limit or status filter answers 400; an
// unknown path answers 404 and a wrong method 405, both with an Error body.
// Every response carries an X-Request-Id header.
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

	hs        *httptest.Server
	mux       *http.ServeMux
	closing   chan struct{} // closed by Close: releases stalled requests
	closeOnce sync.Once

	mu       sync.Mutex
	pets     []petstore.Pet // in id order
	created  []petstore.Pet // through POST, in order
	nextID   int64
	requests int
	faults   []*Fault // copies, their Count decremented as they fire
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
// Start, then Close when finished. Until Start, URL is empty and nothing is
// served.
func NewUnstartedServer() *Server {
	var key [16]byte
	if _, err := rand.Read(key[:]); err != nil {
		panic("petstoretest: " + err.Error())
	}
	s := &Server{
		APIKey:  "pst_" + hex.EncodeToString(key[:]),
		closing: make(chan struct{}),
		nextID:  1,
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET "+basePath+"/pets", s.listPets)
	s.mux.HandleFunc("POST "+basePath+"/pets", s.createPet)
	s.mux.HandleFunc("GET "+basePath+"/pets/{petId}", s.getPet)
	s.mux.HandleFunc(basePath+"/pets", methodNotAllowed("GET, POST"))
	s.mux.HandleFunc(basePath+"/pets/{petId}", methodNotAllowed("GET"))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no such path: "+r.URL.Path)
	})
	s.hs = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Listener = s.hs.Listener
	s.Config = s.hs.Config
	return s
}

// Start starts a server from NewUnstartedServer on its Listener and sets
// URL. Start panics if the server was already started or APIKey is empty.
func (s *Server) Start() {
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
	s.hs.Start()
	s.URL = s.hs.URL + basePath
}

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

// AddPet stores an animal as if it had been created, and returns it with its
// new ID. It does not count as a request and does not appear in
// [Server.Created]. AddPet panics if p would be refused by POST /pets (empty
// name or unknown status), which is appropriate for test setup.
func (s *Server) AddPet(p petstore.NewPet) petstore.Pet {
	if p.Name == "" {
		panic("petstoretest: AddPet: empty Name")
	}
	if !validStatus(p.Status) && p.Status != "" {
		panic("petstoretest: AddPet: unknown Status " + strconv.Quote(string(p.Status)))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store(p)
}

// store adds p with the next id; s.mu must be held.
func (s *Server) store(p petstore.NewPet) petstore.Pet {
	pet := petstore.Pet{ID: s.nextID, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status}
	s.nextID++
	s.pets = append(s.pets, pet)
	return pet
}

// Pets returns a copy of every stored animal, seeded or created, in id order.
func (s *Server) Pets() []petstore.Pet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pets)
}

// Created returns a copy of the animals created through POST /pets, in the
// order the server created them.
func (s *Server) Created() []petstore.Pet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.created)
}

// Requests returns how many HTTP requests the server has received, whatever
// their outcome (faults and authentication failures included): with a
// single client it is the number of attempts, retries included.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// serve is the server's handler: it counts the request, applies a pending
// fault, checks the key, then routes.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests++
	n := s.requests
	_, pattern := s.mux.Handler(r)
	f := s.takeFault(operation(pattern))
	s.mu.Unlock()

	w.Header().Set("X-Request-Id", "req-"+strconv.Itoa(n))
	if pattern == "GET "+basePath+"/pets/{petId}" {
		w.Header().Set("Deprecation", deprecationHeader)
		w.Header().Set("Sunset", sunsetHeader)
	}
	if f != nil && s.applyFault(w, r, f) {
		return
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="petstore"`)
		msg := "invalid API key"
		if r.Header.Get("Authorization") == "" {
			msg = "missing API key: send Authorization: Bearer <key>"
		}
		writeError(w, http.StatusUnauthorized, "unauthorized", msg)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// authorized reports whether r carries "Authorization: Bearer <s.APIKey>"
// (the scheme is case-insensitive).
func (s *Server) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") &&
		subtle.ConstantTimeCompare([]byte(token), []byte(s.APIKey)) == 1
}

func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed on "+r.URL.Path)
	}
}
