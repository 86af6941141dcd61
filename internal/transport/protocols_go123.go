//go:build !go1.24

package transport

import "net/http"

// plainHTTP2 reports false: before Go 1.24, net/http's *http.Transport
// sends http:// requests over HTTP/1 only.
func plainHTTP2(*http.Transport) bool { return false }
