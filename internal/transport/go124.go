//go:build go1.24

package transport

import (
	"net/http"
	"time"
)

// The shared transport's HTTP/2 health check: a connection that has
// received nothing for PingAfter gets a PING and is closed if no answer
// comes within PingWait, so one a load balancer or NAT dropped silently
// costs at most 15 s, not every attempt's limit (golang/go #36026). 5 s is
// 16x the slowest answer measured from a loaded nginx; 10 s keeps the 15 s
// at half the default attempt limit (docs/reliability.md, "HTTP/2 health").
const (
	PingAfter = 10 * time.Second
	PingWait  = 5 * time.Second
)

// health sets the check on t (http.HTTP2Config), keeping its other settings.
func health(t *http.Transport) {
	c := http.HTTP2Config{}
	if t.HTTP2 != nil {
		c = *t.HTTP2
	}
	c.SendPingTimeout, c.PingTimeout = PingAfter, PingWait
	t.HTTP2 = &c
}

// plainHTTP2 reports whether t sends http:// requests as unencrypted
// HTTP/2: its Protocols (Go 1.24) include UnencryptedHTTP2 and not HTTP1.
func plainHTTP2(t *http.Transport) bool {
	p := t.Protocols
	return p != nil && p.UnencryptedHTTP2() && !p.HTTP1()
}
