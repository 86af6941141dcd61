//go:build go1.24

package transport

import (
	"net/http"
	"time"
)

// The shared transport's HTTP/2 health check: a connection that has
// received nothing for PingAfter gets a PING, and is closed if no answer
// comes within PingWait. A connection a load balancer or NAT dropped
// silently (no FIN, no RST) then costs at most 15 s from its last frame,
// not every attempt's time limit (net/http keeps it after a cancelled
// stream, golang/go #36026). Measured (go1.26.8, 2026-11-29, 2 loaded
// cores; go run ./internal/nginxtest/cmd/pingrtt): nginx under 64
// goroutines' load answered a PING in 49 ms (p99), 310 ms at worst under
// -race; PingWait, 5 s, is far above, so a healthy connection is not closed
// with a request in flight. PingAfter, 10 s, keeps the 15 s at half the
// default attempt limit: through a black-holing proxy a ListPets sent at
// the drop succeeded after 15.7 s (16.2 s with a 10 s WithTimeout), and an
// idle connection pays a 17-byte PING every 10 s. Azure's SDK's values.
const (
	PingAfter = 10 * time.Second
	PingWait  = 5 * time.Second
)

// health sets the HTTP/2 health check on t (Go 1.24: http.HTTP2Config),
// keeping its other HTTP/2 settings.
func health(t *http.Transport) {
	c := http.HTTP2Config{}
	if t.HTTP2 != nil {
		c = *t.HTTP2
	}
	c.SendPingTimeout, c.PingTimeout = PingAfter, PingWait
	t.HTTP2 = &c
}
