// Package faultserver is a Pet Store served over real loopback sockets, for
// tests only (as net/http/httptest is for net/http), that answers each
// request normally or misbehaves on purpose, as a plan says: 429s, 5xx
// answers, resets before and after the headers, bodies cut short, stalls,
// and over HTTP/2 (on an h2fault.Server) stream resets, GOAWAYs and
// connections closed mid-stream; for the key-leak test, answers that echo
// the API key. It records what it did to each request, per request key and
// per attempt (the AttemptHeader a test's transport sets), and the animals
// CreatePet stored, so that a test can check each call against what the
// server did. The root package's TestFaultInjection and TestKeyNeverLeaks
// use it; what the SDK should make of each fault is theirs to say.
package faultserver

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore-go/internal/h2fault"
)

// AttemptHeader names, in each request, the attempt of a call it belongs
// to, for the server's records (Server.ServedTo): a test's transport sets
// it, and net/http's own replay of a request carries the same value.
const AttemptHeader = "X-Test-Attempt"

// Pet is an animal as the server sends it: the JSON shape of the API's Pet.
type Pet struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status,omitempty"`
}

// newPet is the body of a CreatePet request.
type newPet struct {
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status,omitempty"`
}

// Server is a Pet Store on a loopback socket that answers each request as
// its plan says and records what it did: over HTTP/1.1 (New), or over
// HTTP/2 with TLS (NewH2).
type Server struct {
	URL string
	// Echo makes the server echo the API key in every error answer and
	// header it can. Set it before the first request.
	Echo bool

	close func()
	h2    bool
	t     testing.TB
	key   string        // the API key it expects
	plan  Plan          // the fault of the n-th request for a key
	stall time.Duration // the longest a stall lasts
	conns func() int64  // connections accepted so far

	mu       sync.Mutex
	log      map[string][]Fault // per request key, the faults served in order
	attempts map[string][]Fault // per AttemptHeader value, the faults served in order
	stored   map[string][]Pet   // per name, the animals CreatePet stored
	nextID   int64
	injected [NumKinds]int
	requests int
	cut      map[string]bool // connections a connection-wide fault ended (HTTP/2)
}

// stallFor is how long a stall lasts before the server answers after
// all, as if late: far longer than any attempt's timeout, so that a client
// that times out has long gone even on a machine so loaded that it runs the
// test process seldom. It was 5s, and TestFaultInjection failed twice at a
// load of 10-12 on 2 cores with a 200 after a stall: most likely a process
// kept off the CPU that long, which then ran the client's 0.5s timer and the
// stall's end in one slice, the answer first. A client that ignores its
// timeout still gets the answer, late, and fails the test.
const stallFor = time.Minute

func newServer(t testing.TB, key string, plan Plan, h2 bool) *Server {
	return &Server{t: t, key: key, plan: plan, stall: stallFor, h2: h2,
		log: map[string][]Fault{}, attempts: map[string][]Fault{}, stored: map[string][]Pet{}, nextID: 1 << 40, cut: map[string]bool{}}
}

// New starts a Server over HTTP/1.1 that expects key as the bearer token
// and serves each request as plan says. A t.Cleanup closes it.
func New(t testing.TB, key string, plan Plan) *Server {
	t.Helper()
	s := newServer(t, key, plan, false)
	var conns atomic.Int64
	s.conns = conns.Load
	srv := httptest.NewUnstartedServer(s)
	srv.Config.ConnState = func(_ net.Conn, cs http.ConnState) {
		if cs == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	s.URL, s.close = srv.URL, srv.Close
	t.Cleanup(s.Close)
	return s
}

// NewH2 is New over HTTP/2 with TLS, on an h2fault.Server, whose frames can
// carry the HTTP/2 kinds of fault. Its certificate is httptest's.
func NewH2(t testing.TB, key string, plan Plan) *Server {
	t.Helper()
	s := newServer(t, key, plan, true)
	srv := h2fault.NewServer(t, s)
	s.URL, s.close = srv.URL, srv.Close
	s.conns = srv.Conns
	return s
}

// Close stops the server and waits for its handlers, stalled ones
// included, so that the counts are final. Close is idempotent.
func (s *Server) Close() { s.close() }

// Keys of requests: one per ListPets filter, GetPet id and CreatePet name.

// ListKey is the request key of a ListPets with a limit and a status (0 and
// "" are the server's defaults, not sent).
func ListKey(limit int, status string) string {
	q := make([]string, 0, 2)
	if limit != 0 {
		q = append(q, "limit="+strconv.Itoa(limit))
	}
	if status != "" {
		q = append(q, "status="+status)
	}
	return "list?" + strings.Join(q, "&")
}

// GetKey is the request key of a GetPet of id.
func GetKey(id int64) string { return "get/" + strconv.FormatInt(id, 10) }

// CreateKey is the request key of a CreatePet of an animal named name.
func CreateKey(name string) string { return "create/" + name }

// ListFor is what the server holds for a ListPets filter.
func ListFor(limit int, status string) []Pet {
	if limit == 0 {
		limit = 20
	}
	if status == "" {
		status = "available"
	}
	pets := make([]Pet, limit)
	for i := range pets {
		pets[i] = Pet{ID: int64(i + 1), Name: fmt.Sprintf("%s-%d", status, i+1), CategoryID: int64(i%5 + 1), Status: status}
	}
	return pets
}

// PetFor is what the server holds for GetPet(id).
func PetFor(id int64) *Pet {
	return &Pet{ID: id, Name: "pet-" + strconv.FormatInt(id, 10), CategoryID: id%7 + 1, Status: "sold"}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+s.key {
		s.t.Errorf("%s %s: Authorization header %q is not the key", r.Method, r.URL, r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var key string
	var answer func(stored *Pet) any
	switch id, isGet := strings.CutPrefix(r.URL.Path, "/v1/pets/"); {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/pets":
		q := r.URL.Query()
		limit, _ := strconv.Atoi(q.Get("limit"))
		status := q.Get("status")
		key = ListKey(limit, status)
		if key != "list?"+r.URL.RawQuery {
			s.t.Errorf("unexpected query %q", r.URL.RawQuery)
		}
		answer = func(*Pet) any { return ListFor(limit, status) }
	case r.Method == http.MethodGet && isGet:
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			s.t.Errorf("bad id in %s", r.URL.Path)
		}
		key = GetKey(n)
		answer = func(*Pet) any { return PetFor(n) }
	case r.Method == http.MethodPost && r.URL.Path == "/v1/pets":
		var p newPet
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			// The connection ended under the request (the attempt's time ran
			// out between the headers and the body, which the SDK's own body
			// type sends apart over HTTP/1): it is lost.
			return
		}
		key = CreateKey(p.Name)
		answer = func(stored *Pet) any {
			if stored == nil {
				s.t.Errorf("POST %q answered without storing", p.Name)
			}
			return stored
		}
		var f Fault
		var stored *Pet
		act := func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			n := len(s.log[key])
			f = s.plan(key, n)
			if f.Stores() {
				s.nextID++
				pet := Pet{ID: s.nextID, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status}
				if pet.Status == "" {
					pet.Status = "available"
				}
				s.stored[p.Name] = append(s.stored[p.Name], pet)
				stored = &pet
			}
			f.Conn = r.RemoteAddr
			s.record(key, r.Header.Get(AttemptHeader), f)
		}
		if actOn(w, act) {
			s.answer(w, r, f, http.StatusCreated, func() any { return answer(stored) })
		}
		return
	default:
		s.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		w.WriteHeader(http.StatusNotFound)
		return
	}
	var f Fault
	if actOn(w, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		f = s.plan(key, len(s.log[key]))
		f.Conn = r.RemoteAddr
		s.record(key, r.Header.Get(AttemptHeader), f)
	}) {
		s.answer(w, r, f, http.StatusOK, func() any { return answer(nil) })
	}
}

// actOn runs act, what the server does for a request (plan its fault,
// record it, store an animal), and reports whether it did: over HTTP/2, not
// when a GOAWAY served to another stream has excluded this one, which is
// then not processed, as the GOAWAY told the client.
func actOn(w http.ResponseWriter, act func()) bool {
	if ctl, ok := w.(h2fault.Control); ok {
		return ctl.Act(act)
	}
	act()
	return true
}

// record notes that the server met f for key, in a request whose
// AttemptHeader is tag (if any); s.mu is held.
func (s *Server) record(key, tag string, f Fault) {
	if f.Kind.ConnectionWide() {
		s.cut[f.Conn] = true
	}
	s.log[key] = append(s.log[key], f)
	if tag != "" {
		s.attempts[tag] = append(s.attempts[tag], f)
	}
	s.injected[f.Kind]++
	s.requests++
}

// ServedTo returns the faults served so far to the requests whose
// AttemptHeader is tag: one per request, net/http's replays included.
func (s *Server) ServedTo(tag string) []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Fault(nil), s.attempts[tag]...)
}

// Attempts returns, per AttemptHeader value, the faults served so far to
// its requests.
func (s *Server) Attempts() map[string][]Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string][]Fault, len(s.attempts))
	for tag, fs := range s.attempts {
		m[tag] = append([]Fault(nil), fs...)
	}
	return m
}

// WasCut reports whether a connection-wide fault ended the connection f
// was served on: any request in flight on it may have failed, whatever it
// was served.
func (s *Server) WasCut(f Fault) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cut[f.Conn]
}

// AnyCut reports whether a connection-wide fault has ended one of conns
// (clients' addresses).
func (s *Server) AnyCut(conns []string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range conns {
		if s.cut[c] {
			return true
		}
	}
	return false
}

// StoredAs returns the animals CreatePet stored under name.
func (s *Server) StoredAs(name string) []Pet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Pet(nil), s.stored[name]...)
}

// Stored returns, per name, the animals CreatePet stored.
func (s *Server) Stored() map[string][]Pet {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string][]Pet, len(s.stored))
	for name, pets := range s.stored {
		m[name] = append([]Pet(nil), pets...)
	}
	return m
}

// Requests is the number of requests the server has served.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Injected returns, per kind, the number of requests served with it.
func (s *Server) Injected() [NumKinds]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.injected
}

// Conns is the number of connections accepted so far.
func (s *Server) Conns() int64 { return s.conns() }
