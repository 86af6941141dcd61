//go:build !go1.24

package transport

import "net/http"

// health leaves t as it is: before Go 1.24 net/http has no setting for
// HTTP/2 health pings (http.HTTP2Config), and the SDK adds no dependency to
// get them (see health_go124.go).
func health(*http.Transport) {}
