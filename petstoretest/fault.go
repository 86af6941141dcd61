package petstoretest

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Fault makes the server misbehave for its next requests, to test retries
// and timeouts. Install one with [Server.InjectFault].
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
}

// operation returns the Fault.Operation value of a route pattern of the
// server, or "" for a request that matches no operation.
func operation(pattern string) string {
	switch pattern {
	case "GET " + basePath + "/pets":
		return "ListPets"
	case "POST " + basePath + "/pets":
		return "CreatePet"
	case "GET " + basePath + "/pets/{petId}":
		return "GetPet"
	}
	return ""
}

// InjectFault makes the next f.Count requests that match f.Operation
// misbehave as f says. Faults apply in the order they were injected, before
// the API key is checked; each request uses at most one. InjectFault panics
// on a fault that does nothing or cannot be sent: an unknown Operation, a
// negative Count, Delay or RetryAfter, a Status outside 400..599 (other than
// 0), RetryAfter without Status, or no Status and no Delay.
func (s *Server) InjectFault(f Fault) {
	switch f.Operation {
	case "", "ListPets", "CreatePet", "GetPet":
	default:
		panic("petstoretest: InjectFault: unknown Operation " + strconv.Quote(f.Operation) + "; want ListPets, CreatePet, GetPet or empty")
	}
	switch {
	case f.Count < 0 || f.Delay < 0 || f.RetryAfter < 0:
		panic("petstoretest: InjectFault: negative Count, Delay or RetryAfter")
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		panic("petstoretest: InjectFault: Status " + strconv.Itoa(f.Status) + " is not an error status (400..599)")
	case f.Status == 0 && f.RetryAfter > 0:
		panic("petstoretest: InjectFault: RetryAfter needs a Status")
	case f.Status == 0 && f.Delay == 0:
		panic("petstoretest: InjectFault: a Fault needs a Status or a Delay")
	}
	if f.Count == 0 {
		f.Count = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
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

// applyFault stalls for f.Delay, then answers f.Status if it is set. It
// reports whether it answered, or the client went away.
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
	if f.Status == 0 {
		return false
	}
	if f.RetryAfter > 0 {
		secs := (f.RetryAfter + time.Second - 1) / time.Second
		w.Header().Set("Retry-After", strconv.FormatInt(int64(secs), 10))
	}
	code := "fault"
	if t := http.StatusText(f.Status); t != "" {
		code = strings.ReplaceAll(strings.ToLower(t), " ", "_")
	}
	writeError(w, f.Status, code, "fault injected by petstoretest")
	return true
}
