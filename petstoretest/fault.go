package petstoretest

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Fault makes the server misbehave for its next requests, as a network or
// a service may, to test retries, timeouts and error handling. Install one
// with [Server.InjectFault].
type Fault struct {
	// Operation limits the fault to one operation: "ListPets", "CreatePet"
	// or "GetPet". Empty matches every request.
	Operation string
	// Count is how many matching requests the fault affects; 0 means 1.
	Count int
	// Delay stalls each affected request before it is answered. The stall
	// ends early when the client gives up or the server is closed.
	Delay time.Duration
	// Status, when not 0, is the status of the answer (400..599, with an
	// Error body) instead of the normal one, such as 503. With Status 0,
	// the request is served normally after Delay.
	Status int
	// RetryAfter, when positive, is sent with Status as a Retry-After
	// header, in whole seconds rounded up.
	RetryAfter time.Duration
	// Disconnect closes the connection without answering (after Delay),
	// as a crashed server or a proxy's reset does; over HTTP/2 it resets
	// the request's stream. It cannot go with Status, Body or CutBody.
	Disconnect bool
	// CutBody answers as usual (or with Status), but closes the connection
	// halfway through the body, whose Content-Length promised all of it;
	// over HTTP/2 it resets the stream there. A CreatePet it cuts has
	// created its animal.
	CutBody bool
	// Body, with Status, is sent instead of the Error JSON (an HTML page
	// from a proxy, say), with the Content-Type that http.DetectContentType
	// gives it.
	Body string
}

// InjectFault makes the next f.Count requests that match f.Operation
// misbehave as f says. Faults apply in the order they were injected, before
// the API key is checked; each request uses at most one. InjectFault panics,
// adding nothing, on a fault that does nothing or cannot be sent: an unknown
// Operation; a negative Count, Delay or RetryAfter; a Status outside
// 400..599 (other than 0); RetryAfter or Body without Status; Disconnect
// with Status, Body or CutBody; or no Status, Delay, Disconnect or CutBody.
func (s *Server) InjectFault(f Fault) {
	if err := f.check(); err != "" {
		panic("petstoretest: InjectFault: " + err)
	}
	if f.Count == 0 {
		f.Count = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// check returns why InjectFault refuses f, or "".
func (f *Fault) check() string {
	switch f.Operation {
	case "", "ListPets", "CreatePet", "GetPet":
	default:
		return "unknown Operation " + strconv.Quote(f.Operation) + "; want ListPets, CreatePet, GetPet or empty"
	}
	switch {
	case f.Count < 0 || f.Delay < 0 || f.RetryAfter < 0:
		return "negative Count, Delay or RetryAfter"
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return "Status " + strconv.Itoa(f.Status) + " is not an error status (400..599)"
	case f.Status == 0 && f.RetryAfter > 0:
		return "RetryAfter needs a Status"
	case f.Status == 0 && f.Body != "":
		return "Body needs a Status"
	case f.Disconnect && (f.Status != 0 || f.Body != "" || f.CutBody):
		return "Disconnect sends nothing: it cannot go with Status, Body or CutBody"
	case f.Status == 0 && f.Delay == 0 && !f.Disconnect && !f.CutBody:
		return "a Fault needs a Status, a Delay, Disconnect or CutBody"
	}
	return ""
}

// ClearFaults drops the faults that have not been used up yet. A request
// that one is stalling goes on.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// takeFault returns the first pending fault that matches operation (which is
// "" for a request to no operation) and uses it up once; s.mu must be held.
func (s *Server) takeFault(operation string) *Fault {
	for i, f := range s.faults {
		if f.Operation != "" && f.Operation != operation {
			continue
		}
		taken := *f
		if f.Count--; f.Count == 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		return &taken
	}
	return nil
}

// applyFault stalls for f.Delay, then drops the connection or answers
// f.Status if f says so. It reports whether it answered, or the client or
// the connection went away; a CutBody fault is carried out by w.
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, f *Fault) bool {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return true
		case <-s.closing:
			writeError(w, http.StatusServiceUnavailable, "server_closed", "the petstoretest server was closed")
			return true
		}
	}
	if f.Disconnect {
		panic(http.ErrAbortHandler) // net/http drops the connection (or resets the stream), quietly
	}
	if f.Status == 0 {
		return false
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(ceilSeconds(f.RetryAfter), 10))
	}
	if f.Body != "" {
		writeBody(w, f.Status, http.DetectContentType([]byte(f.Body)), []byte(f.Body))
		return true
	}
	writeError(w, f.Status, faultCode(f.Status), "fault injected by petstoretest")
	return true
}

// faultCode returns the Error code of a fault's status: its text in snake
// case ("I'm a teapot" gives i_m_a_teapot), or "fault" when it has none.
func faultCode(status int) string {
	text := http.StatusText(status)
	if text == "" {
		return "fault"
	}
	var b strings.Builder
	for _, word := range strings.FieldsFunc(strings.ToLower(text), func(c rune) bool {
		return !('a' <= c && c <= 'z' || '0' <= c && c <= '9')
	}) {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(word)
	}
	return b.String()
}

// ceilSeconds returns d in whole seconds, rounded up, without overflowing
// for a d within a second of the largest Duration.
func ceilSeconds(d time.Duration) int64 {
	secs := int64(d / time.Second)
	if d%time.Second != 0 {
		secs++
	}
	return secs
}
