package petstore

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

	"github.com/petstore/petstore-go/internal/transport"
	"golang.org/x/net/http2"
)

// The fault server: a Pet Store served over real loopback sockets that, per
// request, answers normally or misbehaves on purpose, as a seeded plan says.
// TestFaultInjection (faults_test.go) and TestKeyNeverLeaks use it.

// faultKind is what the fault server does with one request.
type faultKind int

const (
	faultNone               faultKind = iota // answer normally
	fault429                                 // 429 without Retry-After
	fault429RetryAfter                       // 429 with Retry-After: 0 (within the client's max: waited for)
	fault429RetryAfterLong                   // 429 with Retry-After: 120 (over the client's max: not waited for)
	fault5xxJSON                             // 500, 502, 503 or 504 with an Error body
	fault5xxHTML                             // 500, 502, 503 or 504 with an HTML page
	faultResetBeforeHeaders                  // the connection is reset before any byte of the response
	faultResetAfterHeaders                   // 200 and its headers, then a reset
	faultTruncatedBody                       // 200 with a Content-Length larger than the body sent
	faultStall                               // no answer until the client gives up
	// Kinds of HTTP/2 (see h2Control): frames net/http's server never sends.
	faultH2ResetAfterRequest // RST_STREAM(PROTOCOL_ERROR) once the request is read and acted on
	faultH2Refused           // RST_STREAM(REFUSED_STREAM), not acted on
	faultH2ResetMidBody      // 200, half its body, then RST_STREAM(INTERNAL_ERROR)
	faultH2GoAwayBefore      // a GOAWAY whose last stream id excludes the request, not acted on
	faultH2GoAwayAfter       // the same once the request is acted on (a lie)
	faultH2CloseMidStream    // 200, half its body, then the connection closed
	// Kinds for the key-leak test only:
	faultMalformed   // a response head that is not HTTP, echoing the key
	faultErrorStatus // f.status (4xx, 3xx) with an Error body
	faultRedirect    // f.status (3xx) to another origin
	faultOversize    // a 2xx body over the SDK's 10 MiB limit
	faultBadBody     // a 2xx body that is not the documented shape
	numFaultKinds
)

var faultNames = [numFaultKinds]string{
	"none", "429", "429 Retry-After within max", "429 Retry-After over max", "5xx JSON", "5xx HTML",
	"reset before headers", "reset after headers", "truncated body", "stall",
	"RST_STREAM(PROTOCOL_ERROR) after the request", "REFUSED_STREAM", "RST_STREAM(INTERNAL_ERROR) mid-body",
	"GOAWAY before acting", "GOAWAY after acting", "connection closed mid-stream",
	"malformed response", "error status", "redirect", "oversize body", "bad body",
}

func (k faultKind) String() string { return faultNames[k] }

// fault is the plan for one request: a kind and, for 5xx kinds, the status;
// once served, also the connection it was served on.
type fault struct {
	kind   faultKind
	status int
	conn   string // the client's address: one per connection
}

func (f fault) String() string {
	if f.wantStatus() != 0 {
		return f.kind.String() + " " + strconv.Itoa(f.status)
	}
	return f.kind.String()
}

// retryAfterLong is the Retry-After of fault429RetryAfterLong, in seconds.
const retryAfterLong = 120

// wantStatus is the status of the *APIError the fault makes the call fail
// with, or 0 when it makes no APIError.
func (f fault) wantStatus() int {
	switch f.kind {
	case fault429, fault429RetryAfter, fault429RetryAfterLong:
		return http.StatusTooManyRequests
	case fault5xxJSON, fault5xxHTML, faultErrorStatus, faultRedirect:
		return f.status
	}
	return 0
}

// transport reports whether the fault fails the attempt without a response.
func (f fault) transport() bool {
	switch f.kind {
	case faultResetBeforeHeaders, faultResetAfterHeaders, faultTruncatedBody, faultStall, faultMalformed, faultOversize, faultBadBody:
		return true
	}
	return f.kind.http2()
}

// replayable reports whether net/http may send a read again, within its
// attempt, after the fault: when the server cannot have acted on it.
func (f fault) replayable() bool {
	switch f.kind {
	case faultH2Refused, faultResetBeforeHeaders, faultResetAfterHeaders:
		return true // resets: only when nothing was written, which the SDK checks
	}
	return false
}

// http2 reports whether k is one of the HTTP/2 kinds.
func (k faultKind) http2() bool {
	return k >= faultH2ResetAfterRequest && k <= faultH2CloseMidStream
}

// connectionWide reports whether the fault ends the whole connection, so
// that it also fails the other requests in flight on it.
func (k faultKind) connectionWide() bool {
	return k == faultH2GoAwayBefore || k == faultH2GoAwayAfter || k == faultH2CloseMidStream
}

// retryable reports whether the documented policy retries an attempt that
// met the fault: reads on every failure but a 429 asking for more than the
// client's max wait; CreatePet only on a 429 it may wait for.
func (f fault) retryable(post bool) bool {
	switch f.kind {
	case faultNone, fault429RetryAfterLong:
		return false
	case fault429, fault429RetryAfter:
		return true
	}
	return !post
}

// stores reports whether a CreatePet that meets the fault stores the animal:
// every fault but a 429 happens after the server acted, as when it crashes
// or stalls after committing.
func (f fault) stores() bool {
	switch f.kind {
	case fault429, fault429RetryAfter, fault429RetryAfterLong, faultH2Refused, faultH2GoAwayBefore:
		return false
	}
	return true
}

// faultWeights is the share, in percent, of each kind in TestFaultInjection
// over HTTP/1.1; faultWeightsH2 over HTTP/2, where the resets and the body
// cut short are stream resets (see faultServer.answer).
var faultWeights = [numFaultKinds]int{
	faultNone:               60,
	fault429:                4,
	fault429RetryAfter:      4,
	fault429RetryAfterLong:  3,
	fault5xxJSON:            6,
	fault5xxHTML:            5,
	faultResetBeforeHeaders: 5,
	faultResetAfterHeaders:  5,
	faultTruncatedBody:      5,
	faultStall:              3,
}

var faultWeightsH2 = [numFaultKinds]int{
	faultNone:                63,
	fault429:                 3,
	fault429RetryAfter:       3,
	fault429RetryAfterLong:   2,
	fault5xxJSON:             4,
	fault5xxHTML:             3,
	faultResetBeforeHeaders:  2,
	faultResetAfterHeaders:   2,
	faultTruncatedBody:       2,
	faultStall:               2,
	faultH2ResetAfterRequest: 4,
	faultH2Refused:           4,
	faultH2ResetMidBody:      3,
	faultH2GoAwayBefore:      1,
	faultH2GoAwayAfter:       1,
	faultH2CloseMidStream:    1,
}

var serverErrors = []int{500, 502, 503, 504}

// seededPlan returns the fault plan of TestFaultInjection: the fault of the
// n-th request for a key is a function of the seed, the key and n only, so
// a run is reproducible from its seed whatever the order in which requests
// arrive.
func seededPlan(seed uint64, weights *[numFaultKinds]int) func(key string, n int) fault {
	return func(key string, n int) fault {
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
				return fault{kind: faultKind(k), status: serverErrors[(x>>32)%uint64(len(serverErrors))]}
			}
			r -= w
		}
		return fault{}
	}
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// faultServer is a Pet Store on a loopback socket that answers each request
// as its plan says and records what it did: over HTTP/1.1
// (newFaultServer), or over HTTP/2 with TLS (newFaultServerH2).
type faultServer struct {
	URL   string
	Close func() // stops the server; waits for its handlers, so the counts are final
	h2    bool
	t     testing.TB
	key   string                        // the API key it expects
	plan  func(key string, n int) fault // the fault of the n-th request for a key
	echo  bool                          // echo the API key in every error answer and header
	stall time.Duration                 // the longest a stall lasts
	conns func() int64                  // connections accepted so far

	mu       sync.Mutex
	log      map[string][]fault // per request key, the faults served in order
	attempts map[string][]fault // per attemptHeader value, the faults served in order
	stored   map[string][]Pet   // per name, the animals CreatePet stored
	nextID   int64
	injected [numFaultKinds]int
	requests int
	cut      map[string]bool // connections a connection-wide fault ended (HTTP/2)
}

// faultStallFor is how long a stall lasts before the server answers after
// all, as if late: far longer than any attempt's timeout (faultTimeout), so
// that a client that times out has long gone even on a machine so loaded
// that it runs the test process seldom. It was 5s, and TestFaultInjection
// failed twice at a load of 10-12 on 2 cores with a 200 after a stall: most
// likely a process kept off the CPU that long, which then ran the client's
// 0.5s timer and the stall's end in one slice, the answer first. A client
// that ignores its timeout still gets the answer, late, and fails the test.
const faultStallFor = time.Minute

func newFaultServer(t testing.TB, key string, plan func(string, int) fault) *faultServer {
	t.Helper()
	s := &faultServer{t: t, key: key, plan: plan, stall: faultStallFor,
		log: map[string][]fault{}, attempts: map[string][]fault{}, stored: map[string][]Pet{}, nextID: 1 << 40, cut: map[string]bool{}}
	var conns atomic.Int64
	s.conns = conns.Load
	srv := httptest.NewUnstartedServer(s)
	srv.Config.ConnState = func(_ net.Conn, cs http.ConnState) {
		if cs == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	s.URL, s.Close = srv.URL, srv.Close
	t.Cleanup(s.Close)
	return s
}

// newFaultServerH2 is newFaultServer over HTTP/2 with TLS, on an h2Server,
// whose frames can carry the HTTP/2 kinds of fault.
func newFaultServerH2(t testing.TB, key string, plan func(string, int) fault) *faultServer {
	t.Helper()
	s := &faultServer{t: t, key: key, plan: plan, stall: faultStallFor, h2: true,
		log: map[string][]fault{}, attempts: map[string][]fault{}, stored: map[string][]Pet{}, nextID: 1 << 40, cut: map[string]bool{}}
	srv := newH2Server(t, s)
	s.URL, s.Close = srv.URL, srv.Close
	s.conns = srv.Conns
	return s
}

// Keys of requests: one per ListPets filter, GetPet id and CreatePet name.
func listKey(limit int, status PetStatus) string {
	q := make([]string, 0, 2)
	if limit != 0 {
		q = append(q, "limit="+strconv.Itoa(limit))
	}
	if status != "" {
		q = append(q, "status="+string(status))
	}
	return "list?" + strings.Join(q, "&")
}
func getKey(id int64) string       { return "get/" + strconv.FormatInt(id, 10) }
func createKey(name string) string { return "create/" + name }

// listFor is what the server holds for a ListPets filter.
func listFor(limit int, status PetStatus) []Pet {
	if limit == 0 {
		limit = 20
	}
	if status == "" {
		status = PetStatusAvailable
	}
	pets := make([]Pet, limit)
	for i := range pets {
		pets[i] = Pet{ID: int64(i + 1), Name: fmt.Sprintf("%s-%d", status, i+1), CategoryID: int64(i%5 + 1), Status: status}
	}
	return pets
}

// petFor is what the server holds for GetPet(id).
func petFor(id int64) *Pet {
	return &Pet{ID: id, Name: "pet-" + strconv.FormatInt(id, 10), CategoryID: id%7 + 1, Status: PetStatusSold}
}

func (s *faultServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
		status := PetStatus(q.Get("status"))
		key = listKey(limit, status)
		if key != "list?"+r.URL.RawQuery {
			s.t.Errorf("unexpected query %q", r.URL.RawQuery)
		}
		answer = func(*Pet) any { return listFor(limit, status) }
	case r.Method == http.MethodGet && isGet:
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			s.t.Errorf("bad id in %s", r.URL.Path)
		}
		key = getKey(n)
		answer = func(*Pet) any { return petFor(n) }
	case r.Method == http.MethodPost && r.URL.Path == "/v1/pets":
		var p NewPet
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			if s.h2 {
				return // the connection ended under the request: it is lost
			}
			s.t.Errorf("POST body: %v", err)
		}
		key = createKey(p.Name)
		answer = func(stored *Pet) any {
			if stored == nil {
				s.t.Errorf("POST %q answered without storing", p.Name)
			}
			return stored
		}
		s.mu.Lock()
		n := len(s.log[key])
		f := s.plan(key, n)
		var stored *Pet
		if f.stores() {
			s.nextID++
			pet := Pet{ID: s.nextID, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status}
			if pet.Status == "" {
				pet.Status = PetStatusAvailable
			}
			s.stored[p.Name] = append(s.stored[p.Name], pet)
			stored = &pet
		}
		f.conn = r.RemoteAddr
		s.record(key, r.Header.Get(attemptHeader), f)
		s.mu.Unlock()
		s.answer(w, r, f, http.StatusCreated, func() any { return answer(stored) })
		return
	default:
		s.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		w.WriteHeader(http.StatusNotFound)
		return
	}
	s.mu.Lock()
	f := s.plan(key, len(s.log[key]))
	f.conn = r.RemoteAddr
	s.record(key, r.Header.Get(attemptHeader), f)
	s.mu.Unlock()
	s.answer(w, r, f, http.StatusOK, func() any { return answer(nil) })
}

// record notes that the server met f for key, in a request whose
// attemptHeader is tag (if any); s.mu is held.
func (s *faultServer) record(key, tag string, f fault) {
	if f.kind.connectionWide() {
		s.cut[f.conn] = true
	}
	s.log[key] = append(s.log[key], f)
	if tag != "" {
		s.attempts[tag] = append(s.attempts[tag], f)
	}
	s.injected[f.kind]++
	s.requests++
}

// servedTo returns the faults served so far to the requests whose
// attemptHeader is tag: one per request, net/http's replays included.
func (s *faultServer) servedTo(tag string) []fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]fault(nil), s.attempts[tag]...)
}

// wasCut reports whether a connection-wide fault ended the connection f
// was served on: any request in flight on it may have failed, whatever it
// was served.
func (s *faultServer) wasCut(f fault) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cut[f.conn]
}

// anyCut reports whether a connection-wide fault has ended one of conns
// (clients' addresses).
func (s *faultServer) anyCut(conns []string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range conns {
		if s.cut[c] {
			return true
		}
	}
	return false
}

func (s *faultServer) storedAs(name string) []Pet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Pet(nil), s.stored[name]...)
}

// answer writes the response f calls for; ok is the status of a normal answer.
func (s *faultServer) answer(w http.ResponseWriter, r *http.Request, f fault, ok int, body func() any) {
	h := w.Header()
	h.Set("X-Request-Id", "req-"+strconv.Itoa(int(f.kind)))
	if s.echo {
		h.Set("X-Request-Id", "req-"+s.key)
		h.Set("WWW-Authenticate", "Bearer "+s.key)
		h.Set("Location", "https://elsewhere.test/"+s.key)
	}
	errorBody := func(status int, code string) {
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		msg := "injected " + f.kind.String()
		if s.echo {
			msg += " for key " + s.key
		}
		json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg, "status": status})
	}
	if s.h2 && s.answerH2(w, r, f, ok, body) {
		return
	}
	switch f.kind {
	case faultNone:
	case fault429:
		errorBody(http.StatusTooManyRequests, "rate_limited")
		return
	case fault429RetryAfter:
		h.Set("Retry-After", "0")
		errorBody(http.StatusTooManyRequests, "rate_limited")
		return
	case fault429RetryAfterLong:
		h.Set("Retry-After", strconv.Itoa(retryAfterLong))
		errorBody(http.StatusTooManyRequests, "rate_limited")
		return
	case fault5xxJSON:
		errorBody(f.status, "unavailable")
		return
	case fault5xxHTML:
		h.Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(f.status)
		fmt.Fprintf(w, "<html><head><title>%d</title></head><body><h1>Bad gateway</h1><p>%s</p></body></html>\n", f.status, h.Get("X-Request-Id"))
		return
	case faultResetBeforeHeaders:
		s.hijack(w, func(c net.Conn, _ []byte) { reset(c) })
		return
	case faultResetAfterHeaders:
		s.hijack(w, func(c net.Conn, head []byte) {
			c.Write(head)
			reset(c)
		})
		return
	case faultTruncatedBody:
		data, _ := json.Marshal(body())
		s.hijack(w, func(c net.Conn, head []byte) {
			c.Write(append(head, data[:len(data)/2]...))
			c.Close()
		})
		return
	case faultMalformed:
		s.hijack(w, func(c net.Conn, _ []byte) {
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nX-Echo %s\r\n\r\n", s.key)
			c.Close()
		})
		return
	case faultErrorStatus:
		errorBody(f.status, "injected")
		return
	case faultRedirect:
		h.Set("Location", "https://elsewhere.test/v1/pets?key="+s.key)
		errorBody(f.status, "moved")
		return
	case faultOversize:
		h.Set("Content-Type", "application/json")
		w.WriteHeader(ok)
		w.Write(bytes.Repeat([]byte(" "), transport.MaxSuccessBody+1))
		return
	case faultBadBody:
		h.Set("Content-Type", "application/json")
		w.WriteHeader(ok)
		fmt.Fprintf(w, `{"id":%s,"name":"%s","categoryId":"%s","status":%s}`, s.key, s.key, s.key, s.key)
		return
	case faultStall:
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
func (s *faultServer) answerH2(w http.ResponseWriter, r *http.Request, f fault, ok int, body func() any) bool {
	ctl := w.(h2Control)
	halfBody := func(end func()) {
		data, _ := json.Marshal(body())
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(ok)
		w.Write(data[:len(data)/2])
		w.(http.Flusher).Flush()
		end()
	}
	switch f.kind {
	case faultResetBeforeHeaders:
		ctl.ResetStream(http2.ErrCodeInternal)
	case faultResetAfterHeaders:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(ok)
		w.(http.Flusher).Flush()
		ctl.ResetStream(http2.ErrCodeInternal)
	case faultTruncatedBody, faultH2ResetMidBody:
		halfBody(func() { ctl.ResetStream(http2.ErrCodeInternal) })
	case faultH2ResetAfterRequest:
		ctl.ResetStream(http2.ErrCodeProtocol)
	case faultH2Refused:
		ctl.ResetStream(http2.ErrCodeRefusedStream)
	case faultH2GoAwayBefore, faultH2GoAwayAfter:
		ctl.GoAway(ctl.StreamID()-2, http2.ErrCodeNo)
	case faultH2CloseMidStream:
		halfBody(ctl.CloseConn)
	default:
		return false
	}
	return true
}

// hijack takes the connection over and hands it to f with the head of a 200
// response whose Content-Length is larger than any body the server sends.
func (s *faultServer) hijack(w http.ResponseWriter, f func(c net.Conn, head []byte)) {
	c, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		s.t.Errorf("hijack: %v", err)
		return
	}
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n"
	if s.echo {
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
