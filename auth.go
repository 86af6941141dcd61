package petstore

import (
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/petstore/petstore-go/internal/transport"
)

// envAPIKey is the environment variable NewClient reads when it is given no key.
const envAPIKey = "PETSTORE_API_KEY"

// credential returns the API key and the Authorization header value made
// from it ({"Bearer <key>"}, shared by every request). It is a function, not
// a struct, because fmt never prints what a function holds: a Client printed
// with any verb, even a bad one such as %s or %d, shows an address there.
type credential func() (key string, header []string)

// resolveAPIKey returns the key to use: apiKey, else $PETSTORE_API_KEY.
// Empty or blank values count as unset. The key must be one a bearer token
// can hold (see checkKey).
func resolveAPIKey(apiKey string) (credential, error) {
	key, env := apiKey, ""
	if strings.TrimSpace(key) == "" {
		key, env = os.Getenv(envAPIKey), envAPIKey
	}
	if strings.TrimSpace(key) == "" {
		return nil, ErrMissingAPIKey
	}
	if err := checkKey(key); err != nil {
		return nil, &ConfigError{Option: "apiKey", Env: env, Reason: err.Error()}
	}
	header := []string{"Bearer " + key}
	return func() (string, []string) { return key, header }, nil
}

// checkKey reports whether key is an RFC 6750 b64token, the only form a
// bearer token takes: ASCII letters, digits and "-._~+/", then optional "="
// padding. So no space (net/http would trim it from the header it sends,
// and the server would echo a key that is not the one given), no quote or
// backslash (quoting would change it), no control or non-ASCII byte. The
// error names the position of the first byte that does not fit, and its
// class when the class says nothing of the key's characters; never the key
// nor the byte.
func checkKey(key string) error {
	padding := false
	for i := 0; i < len(key); i++ {
		c := key[i]
		var what string
		switch {
		case c == '=' && i > 0:
			padding = true
			continue
		case padding || c == '=':
			what = "a character where only = padding may be (padding goes last, after at least one other character)"
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
			continue
		case c == ' ':
			what = "a space (stray whitespace?)"
		case c < 0x20 || c == 0x7f:
			what = "a control character (a stray newline?)"
		case c >= 0x80:
			what = "a non-ASCII byte"
		case c == '"' || c == '\'':
			what = "a quote (copied with its quotes?)"
		case c == '\\':
			what = "a backslash"
		default:
			what = "a punctuation character a bearer token cannot hold"
		}
		return fmt.Errorf("character %d is %s; a bearer token holds only ASCII letters, digits and -._~+/, then optional = padding", i+1, what)
	}
	return nil
}

// newSends makes the headers of c's requests, which hold the key, and the
// two transports that send them (see Client.sends), from c.cfg.
func (c *Client) newSends() {
	cfg := &c.cfg
	_, auth := c.cred()
	headers := newHeaders(auth, []string{userAgent(cfg.userAgent)})
	timeout, source := cfg.attemptTimeout()
	t := transport.Transport{User: cfg.httpClient, Timeout: timeout, Source: source, Logger: cfg.logger, Redactor: c.red, Header: headers}
	c.sends[0] = transport.New(t)
	t.Timed = true // for an observer
	c.sends[1] = transport.New(t)
}

// newHeaders returns the headers of every request of a Client (see
// transport.Transport.Header), made once: one map for requests without a
// body, one for those with. Nothing writes to them. It returns a function,
// whose maps fmt never prints: they hold the key (auth).
func newHeaders(auth, userAgent []string) func(body bool) http.Header {
	get := http.Header{"Authorization": auth, "Accept": jsonMediaType, "User-Agent": userAgent}
	post := http.Header{"Authorization": auth, "Accept": jsonMediaType, "User-Agent": userAgent, "Content-Type": jsonMediaType}
	return func(body bool) http.Header {
		if body {
			return post
		}
		return get
	}
}

var jsonMediaType = []string{"application/json"}
