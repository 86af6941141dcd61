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
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
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
	"github.com/petstore/petstore-go/internal/transport"
	"golang.org/x/net/http2"
)

// Kind is what the server does with one request.
type Kind int

const (
	None                    Kind = iota // answer normally
	Status429                           // 429 without Retry-After
	Status429RetryAfter                 // 429 with Retry-After: 0 (within a client's max: waited for)
	Status429RetryAfterLong             // 429 with Retry-After: RetryAfterLong (over a client's max: not waited for)
	Status5xxJSON                       // Fault.Status (500, 502, 503 or 504 in a SeededPlan) with an Error body
	Status5xxHTML                       // the same with an HTML page
	ResetBeforeHeaders                  // the connection is reset before any byte of the response
	ResetAfterHeaders                   // 200 and its headers, then a reset
	TruncatedBody                       // 200 with a Content-Length larger than the body sent
	Stall                               // no answer until the client gives up
	// Kinds of HTTP/2 (see h2fault.Control): frames net/http's server never sends.
	H2ResetAfterRequest // RST_STREAM(PROTOCOL_ERROR) once the request is read and acted on
	H2Refused           // RST_STREAM(REFUSED_STREAM), not acted on
	H2ResetMidBody      // 200, half its body, then RST_STREAM(INTERNAL_ERROR)
	H2GoAwayBefore      // a GOAWAY whose last stream id excludes the request, not acted on
	H2GoAwayAfter       // once the request is acted on, a GOAWAY that includes it, and the connection closed
	H2CloseMidStream    // 200, half its body, then the connection closed
	// Kinds for the key-leak test only:
	Malformed   // a response head that is not HTTP, echoing the key
	OtherStatus // Fault.Status (4xx, 3xx) with an Error body
	Redirect    // Fault.Status (3xx) to another origin
	Oversize    // a 2xx body over the SDK's 10 MiB limit
	BadBody     // a 2xx body that is not the documented shape
	NumKinds    // the number of kinds
)

var kindNames = [NumKinds]string{
	"none", "429", "429 Retry-After within max", "429 Retry-After over max", "5xx JSON", "5xx HTML",
	"reset before headers", "reset after headers", "truncated body", "stall",
	"RST_STREAM(PROTOCOL_ERROR) after the request", "REFUSED_STREAM", "RST_STREAM(INTERNAL_ERROR) mid-body",
	"GOAWAY before acting", "GOAWAY after acting", "connection closed mid-stream",
	"malformed response", "error status", "redirect", "oversize body", "bad body",
}

func (k Kind) String() string { return kindNames[k] }

// HTTP2 reports whether k is one of the HTTP/2 kinds.
func (k Kind) HTTP2() bool {
	return k >= H2ResetAfterRequest && k <= H2CloseMidStream
}

// ConnectionWide reports whether the fault ends the whole connection, so
// that it also fails the other requests in flight on it.
func (k Kind) ConnectionWide() bool {
	return k == H2GoAwayBefore || k == H2GoAwayAfter || k == H2CloseMidStream
}

// Fault is the plan for one request: a kind and, for the kinds that answer
// with a status of the plan's choosing, the status; once served, also the
// connection it was served on.
type Fault struct {
	Kind   Kind
	Status int
	Conn   string // the client's address: one per connection
}

func (f Fault) String() string {
	if f.ErrorStatus() != 0 {
		return f.Kind.String() + " " + strconv.Itoa(f.Status)
	}
	return f.Kind.String()
}

// RetryAfterLong is the Retry-After of Status429RetryAfterLong, in seconds.
const RetryAfterLong = 120

// ErrorStatus is the status of the error answer (an Error body, an HTML
// page or a redirect) that the fault sends, or 0 when it sends none.
func (f Fault) ErrorStatus() int {
	switch f.Kind {
	case Status429, Status429RetryAfter, Status429RetryAfterLong:
		return http.StatusTooManyRequests
	case Status5xxJSON, Status5xxHTML, OtherStatus, Redirect:
		return f.Status
	}
	return 0
}

// Stores reports whether a CreatePet that meets the fault stores the animal:
// every fault but a 429, a REFUSED_STREAM and a GOAWAY before acting happens
// after the server acted, as when it crashes or stalls after committing.
func (f Fault) Stores() bool {
	switch f.Kind {
	case Status429, Status429RetryAfter, Status429RetryAfterLong, H2Refused, H2GoAwayBefore:
		return false
	}
	return true
}

// Plan gives the fault of the n-th request (from 0) for a request key.
type Plan func(key string, n int) Fault

var serverErrors = []int{500, 502, 503, 504}

// SeededPlan returns a plan that picks each request's kind by weights (the
// share of each kind, in percent; None takes what they leave of 100), and
// the status of a 5xx among 500, 502, 503 and 504. The fault of the n-th
// request for a key is a function of the seed, the key and n only, so a
// run is reproducible from its seed whatever the order in which requests
// arrive.
func SeededPlan(seed uint64, weights *[NumKinds]int) Plan {
	return func(key string, n int) Fault {
		h := fnv.New64a()
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:8], seed)
		binary.LittleEndian.PutUint64(b[8:], uint64(n))
		h.Write(b[:])
		h.Write([]byte(key))
		x := splitmix64(h.Sum64())
		r := int(x % 100)
		for k, w := range weights {
			if r < w {
				return Fault{Kind: Kind(k), Status: serverErrors[(x>>32)%uint64(len(serverErrors))]}
			}
			r -= w
		}
		return Fault{}
	}
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

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
			if s.h2 {
				return // the connection ended under the request: it is lost
			}
			s.t.Errorf("POST body: %v", err)
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

// answer writes the response f calls for; ok is the status of a normal answer.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, f Fault, ok int, body func() any) {
	h := w.Header()
	h.Set("X-Request-Id", "req-"+strconv.Itoa(int(f.Kind)))
	if s.Echo {
		h.Set("X-Request-Id", "req-"+s.key)
		h.Set("WWW-Authenticate", "Bearer "+s.key)
		h.Set("Location", "https://elsewhere.test/"+s.key)
	}
	errorBody := func(status int, code string) {
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		msg := "injected " + f.Kind.String()
		if s.Echo {
			msg += " for key " + s.key
		}
		json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg, "status": status})
	}
	if s.h2 && s.answerH2(w, r, f, ok, body) {
		return
	}
	switch f.Kind {
	case None:
	case Status429:
		errorBody(http.StatusTooManyRequests, "rate_limited")
		return
	case Status429RetryAfter:
		h.Set("Retry-After", "0")
		errorBody(http.StatusTooManyRequests, "rate_limited")
		return
	case Status429RetryAfterLong:
		h.Set("Retry-After", strconv.Itoa(RetryAfterLong))
		errorBody(http.StatusTooManyRequests, "rate_limited")
		return
	case Status5xxJSON:
		errorBody(f.Status, "unavailable")
		return
	case Status5xxHTML:
		h.Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(f.Status)
		fmt.Fprintf(w, "<html><head><title>%d</title></head><body><h1>Bad gateway</h1><p>%s</p></body></html>\n", f.Status, h.Get("X-Request-Id"))
		return
	case ResetBeforeHeaders:
		s.hijack(w, func(c net.Conn, _ []byte) { reset(c) })
		return
	case ResetAfterHeaders:
		s.hijack(w, func(c net.Conn, head []byte) {
			c.Write(head)
			reset(c)
		})
		return
	case TruncatedBody:
		data, _ := json.Marshal(body())
		s.hijack(w, func(c net.Conn, head []byte) {
			c.Write(append(head, data[:len(data)/2]...))
			c.Close()
		})
		return
	case Malformed:
		s.hijack(w, func(c net.Conn, _ []byte) {
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nX-Echo %s\r\n\r\n", s.key)
			c.Close()
		})
		return
	case OtherStatus:
		errorBody(f.Status, "injected")
		return
	case Redirect:
		h.Set("Location", "https://elsewhere.test/v1/pets?key="+s.key)
		errorBody(f.Status, "moved")
		return
	case Oversize:
		h.Set("Content-Type", "application/json")
		w.WriteHeader(ok)
		w.Write(bytes.Repeat([]byte(" "), transport.MaxSuccessBody+1))
		return
	case BadBody:
		h.Set("Content-Type", "application/json")
		w.WriteHeader(ok)
		fmt.Fprintf(w, `{"id":%s,"name":"%s","categoryId":"%s","status":%s}`, s.key, s.key, s.key, s.key)
		return
	case Stall:
		select {
		case <-r.Context().Done():
			return
		case <-time.After(s.stall):
		}
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(ok)
	json.NewEncoder(w).Encode(body())
}

// answerH2 writes what an HTTP/2 fault calls for, and reports false for a
// kind that is answered as over HTTP/1.1. A reset or a body cut short is a
// RST_STREAM (INTERNAL_ERROR) over HTTP/2, where a handler cannot take the
// connection over.
func (s *Server) answerH2(w http.ResponseWriter, r *http.Request, f Fault, ok int, body func() any) bool {
	ctl := w.(h2fault.Control)
	halfBody := func(end func()) {
		data, _ := json.Marshal(body())
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(ok)
		w.Write(data[:len(data)/2])
		w.(http.Flusher).Flush()
		end()
	}
	switch f.Kind {
	case ResetBeforeHeaders:
		ctl.ResetStream(http2.ErrCodeInternal)
	case ResetAfterHeaders:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(ok)
		w.(http.Flusher).Flush()
		ctl.ResetStream(http2.ErrCodeInternal)
	case TruncatedBody, H2ResetMidBody:
		halfBody(func() { ctl.ResetStream(http2.ErrCodeInternal) })
	case H2ResetAfterRequest:
		ctl.ResetStream(http2.ErrCodeProtocol)
	case H2Refused:
		ctl.ResetStream(http2.ErrCodeRefusedStream)
	case H2GoAwayBefore:
		ctl.GoAway(ctl.StreamID()-2, http2.ErrCodeNo)
		if !ctl.Excluded() {
			// A stream above this one had acted already, so the GOAWAY
			// could not exclude this one: refuse it instead.
			ctl.ResetStream(http2.ErrCodeRefusedStream)
		}
	case H2GoAwayAfter:
		// Not ctl.StreamID()-2: a GOAWAY that excluded a request the
		// server acted on would lie (RFC 9113 section 6.8), and a client
		// may send such a request again.
		ctl.GoAway(ctl.StreamID(), http2.ErrCodeNo)
		ctl.CloseConn()
	case H2CloseMidStream:
		halfBody(ctl.CloseConn)
	default:
		return false
	}
	return true
}

// hijack takes the connection over and hands it to f with the head of a 200
// response whose Content-Length is larger than any body the server sends.
func (s *Server) hijack(w http.ResponseWriter, f func(c net.Conn, head []byte)) {
	c, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		s.t.Errorf("hijack: %v", err)
		return
	}
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n"
	if s.Echo {
		head += "X-Request-Id: req-" + s.key + "\r\n"
	}
	f(c, []byte(head+"\r\n"))
}

// reset closes c with a TCP reset (SO_LINGER 0) rather than a FIN.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}
