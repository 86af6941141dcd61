//go:build go1.24

package transport

import (
	"net/http"
	"time"
)

// The HTTP/2 health check of the shared transport: a connection on which
// nothing has arrived for PingAfter gets a PING, and is closed when no
// answer comes within PingWait. A load balancer that fails over, or a NAT
// that forgets the connection, drops it silently (no FIN, no RST): without
// the check, net/http keeps sending on it until the attempt's time runs
// out, and keeps it after a cancelled stream (golang/go #36026), so that a
// call's every attempt could go to it. With it, a dead connection costs at
// most PingAfter+PingWait (15 s) from its last frame: a request on it then
// fails with "client connection lost" and is retried on a new one, and a
// request sent after that time gets a new connection and never knows.
//
// The values were chosen by measurement (go1.26.8 on a loaded 2-core
// machine, see the README): a PING's answer through nginx under 64
// goroutines' load came within a few milliseconds, its worst some hundred;
// PingWait, 5 s, is far above that, so a slow but healthy connection is
// never closed with requests in flight (that would fail a CreatePet with
// ErrOutcomeUnknown). PingAfter, 10 s, keeps PingAfter+PingWait at half the
// default attempt limit (30 s), so that a call's first attempt on a dead
// connection fails by the check and not by its time limit, and costs an
// idle connection one 17-byte frame and its answer every 10 s (an idle
// connection is closed after 90 s). They are Azure's SDK's values too.
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
