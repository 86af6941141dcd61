package faultserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/petstore/petstore-go/internal/h2fault"
	"github.com/petstore/petstore-go/internal/transport"
	"golang.org/x/net/http2"
)

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
