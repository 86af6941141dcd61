//go:build go1.24

package petstore

import (
	"net/http"
	"testing"
)

// net/http's own h2c (Go 1.24 Protocols), bare and behind a RoundTripper.
func init() {
	vias = append(vias,
		via{name: "net/http h2c (Protocols)", servers: []string{overH2C}, rt: func(t *testing.T, r *rig) http.RoundTripper {
			return h2cTransport(t, r)
		}},
		via{name: "net/http h2c (Protocols) in a RoundTripper", servers: []string{overH2C}, rt: func(t *testing.T, r *rig) http.RoundTripper {
			return roundTripFunc(h2cTransport(t, r).RoundTrip)
		}},
	)
}

// h2cTransport is an *http.Transport that speaks HTTP/2 without TLS only,
// over r's connections.
func h2cTransport(t *testing.T, r *rig) *http.Transport {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &p, DialContext: r.dial}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}
