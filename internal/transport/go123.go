//go:build !go1.24

package transport

import "net/http"

// health leaves t as it is: net/http has no HTTP/2 health pings before Go
// 1.24, and the SDK adds no dependency for them (see go124.go).
func health(*http.Transport) {}

// plainHTTP2 reports false: before Go 1.24, net/http's *http.Transport
// sends http:// requests over HTTP/1 only.
func plainHTTP2(*http.Transport) bool { return false }
