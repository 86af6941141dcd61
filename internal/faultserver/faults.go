package faultserver

import (
	"encoding/binary"
	"hash/fnv"
	"net/http"
	"strconv"
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
