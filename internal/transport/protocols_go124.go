//go:build go1.24

package transport

import "net/http"

// plainHTTP2 reports whether t sends http:// requests as unencrypted
// HTTP/2: its Protocols (Go 1.24) include UnencryptedHTTP2 and not HTTP1.
func plainHTTP2(t *http.Transport) bool {
	p := t.Protocols
	return p != nil && p.UnencryptedHTTP2() && !p.HTTP1()
}
