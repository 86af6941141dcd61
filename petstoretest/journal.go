package petstoretest

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

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
	// Body is the request body as received (its first 64 KiB), even if the
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
// included, as far as the journal keeps them: the newest
// [Server.MaxJournalEntries] (10,000 unless set), within
// [Server.MaxJournalBytes] (32 MiB unless set), the oldest dropped first.
// A request is there, with its Status, before the last byte of its answer
// is sent (or its connection dropped), so a client that has read its
// response finds it. It returns a copy: changing it changes nothing in the
// server.
func (s *Server) Received() []Request {
	s.mu.Lock()
	entries := slices.Clone(s.journal)
	var reqs []Request // nil when empty, as Pets and Created return
	if len(entries) > 0 {
		reqs = make([]Request, len(entries))
	}
	for i, e := range entries {
		reqs[i] = *e.req // its Status read under s.mu
	}
	s.mu.Unlock()
	// The rest never changes once recorded: copied without holding s.mu,
	// so that parsing many large queries does not stall the server.
	for i, e := range entries {
		reqs[i].Query = parseQuery(e.query)
		reqs[i].Header = e.req.Header.Clone()
		reqs[i].Body = slices.Clone(e.req.Body)
	}
	return reqs
}

// Bounds of the journal, and what it counts against MaxJournalBytes: the
// memory an entry holds, so that a request of many small parts (a query
// a&a&a..., thousands of empty header values) costs what it keeps.
const (
	keptBody              = 64 << 10 // what it keeps of a request body
	defaultJournalEntries = 10_000
	defaultJournalBytes   = 32 << 20
	// entryOverhead is what an entry costs beyond its text, values and
	// header names (the Request, the journal's slot, its header map's
	// first group), so that MaxJournalBytes also bounds a journal of many
	// small requests.
	entryOverhead = 1024
	// valueCost is what a header value costs beyond its text: its string
	// header in the array of values (16 bytes), and a quarter more for the
	// allocator's rounding of that array (up to a size class, 8 bytes of
	// malloc header included, or to a page).
	valueCost = 20
	// nameCost is what a header name costs beyond its text: its slot in
	// the map (its string and its slice of values), at the map's loosest.
	nameCost = 128
)

// journalEntry is a request in the journal, with its raw query and the
// bytes it counts against MaxJournalBytes. The query is kept as received,
// a copy of its text, and parsed when read: parsed, a query a&a&a... would
// cost 16 bytes (a string header) for every two bytes of text.
type journalEntry struct {
	req   *Request // its Query nil
	query string
	size  int
}

// parseQuery parses a raw query as http.Request.URL.Query does.
func parseQuery(raw string) url.Values {
	v, _ := url.ParseQuery(raw)
	return v
}

// record adds e to the journal, then drops the oldest entries until the
// journal is within its bounds again; e stays unless MaxJournalEntries is
// below 1. The caller holds s.mu.
func (s *Server) record(e journalEntry) {
	s.journal = append(s.journal, e)
	s.kept += e.size
	for len(s.journal) > max(s.MaxJournalEntries, 0) ||
		len(s.journal) > 1 && s.kept > s.MaxJournalBytes {
		s.kept -= s.journal[0].size
		s.journal[0] = journalEntry{} // the array's first slot no longer holds it
		s.journal = s.journal[1:]
	}
	if len(s.journal) == 0 {
		s.journal = nil // let the array go
	}
}

// walkJournal calls walk with each entry of the journal, oldest first,
// until it returns false, without holding s.mu during a call: the entries
// are those in the journal when it was called. Each Request shares its
// Header and Body with the journal, which never changes them once
// recorded (only Status changes, and is read under s.mu); its Query is
// parsed for the call.
func (s *Server) walkJournal(walk fakehook.Walk) {
	s.mu.Lock()
	entries := slices.Clone(s.journal)
	s.mu.Unlock()
	for _, e := range entries {
		s.mu.Lock()
		r := *e.req
		s.mu.Unlock()
		r.Query = parseQuery(e.query)
		if !walk(r) {
			return
		}
	}
}

// newRequest returns the journal entry of r, with no Authorized,
// RequestID or Status yet, and r's body for the handler. The entry keeps
// the first keptBody bytes of the body, and copies of r's method, path,
// query and header, which hold no part of the request line (a path that
// pointed into a 1 MB line would keep the whole line). With handlerReads (an authorized
// POST /pets), the body returned is read up to one byte more than maxBody,
// so that createPet can tell a body that is too large; otherwise it is the
// kept part, and the rest is read (up to maxBody) and thrown away, so that
// the connection can serve the next request without the server holding a
// large body it refuses.
func newRequest(r *http.Request, op string, handlerReads bool) (journalEntry, []byte) {
	kept, _ := io.ReadAll(io.LimitReader(r.Body, keptBody)) // what arrived, even if cut short
	kept = bytes.Clone(kept)                                // no spare capacity kept in the journal
	body := kept
	if handlerReads && len(kept) == keptBody {
		rest, _ := io.ReadAll(io.LimitReader(r.Body, maxBody+1-keptBody))
		body = append(kept[:len(kept):len(kept)], rest...) // a new array: kept stays as it is
	} else if len(kept) == keptBody {
		io.Copy(io.Discard, io.LimitReader(r.Body, maxBody+1-keptBody))
	}
	e := &Request{
		Operation: op,
		Method:    strings.Clone(r.Method),
		Path:      strings.Clone(r.URL.EscapedPath()),
		Body:      kept,
	}
	var size int
	e.Header, size = packHeader(r.Header)
	query := strings.Clone(r.URL.RawQuery)
	size += entryOverhead + len(e.Body) + len(e.Method) + len(e.Path) + len(query)
	return journalEntry{req: e, query: query, size: size}, body
}

// packHeader returns a copy of h without Authorization, its names and
// values in one string and its values in one array (as Header.Clone
// shares them), and what it costs: its text, valueCost a value and
// nameCost a name.
func packHeader(h http.Header) (http.Header, int) {
	if h == nil {
		return nil, 0
	}
	names := make([]string, 0, len(h))
	text, values := 0, 0
	for k, vs := range h {
		if k == "Authorization" {
			continue
		}
		names = append(names, k)
		text += len(k)
		values += len(vs)
		for _, v := range vs {
			text += len(v)
		}
	}
	var b strings.Builder
	b.Grow(text)
	for _, k := range names {
		b.WriteString(k)
		for _, v := range h[k] {
			b.WriteString(v)
		}
	}
	all, at := b.String(), 0
	cut := func(n int) string { at += n; return all[at-n : at] }
	array := make([]string, values)
	packed := make(http.Header, len(names))
	for _, k := range names {
		name, vs := cut(len(k)), h[k]
		if vs == nil {
			packed[name] = nil
			continue
		}
		for i, v := range vs {
			array[i] = cut(len(v))
		}
		packed[name], array = array[:len(vs):len(vs)], array[len(vs):]
	}
	return packed, text + valueCost*values + nameCost*len(names)
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
