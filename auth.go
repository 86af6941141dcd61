package petstore

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
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

// userAgent builds the User-Agent header value.
func userAgent(prefix string) string {
	ua := "petstore-go/" + Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if prefix = strings.TrimSpace(prefix); prefix != "" {
		ua = prefix + " " + ua
	}
	return ua
}

// Where the key may go: a base URL over plain http only to a loopback host,
// unless the caller says otherwise, and never one that names a user.

// allowInsecureHTTP reports whether an http base URL may name any host:
// WithInsecureHTTP, or $PETSTORE_INSECURE_HTTP read as strconv.ParseBool
// reads it, empty meaning false.
func (cfg *config) allowInsecureHTTP() (bool, error) {
	v := os.Getenv(envInsecureHTTP)
	if v == "" {
		return cfg.insecureHTTP, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		// The value is not quoted: whatever it holds, it is no boolean,
		// and it might be a secret set in the wrong variable.
		return false, &ConfigError{Option: "WithInsecureHTTP", Env: envInsecureHTTP, Reason: "want 1, true, 0 or false (as strconv.ParseBool reads it), or unset"}
	}
	return on || cfg.insecureHTTP, nil
}

// parseBaseURL checks a base URL: absolute https, or http to a loopback host
// unless insecure allows any host; no user info, query or fragment.
func parseBaseURL(raw string, insecure bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the URL, which may hold a password: say less.
		return nil, fmt.Errorf("invalid URL %q", redactUserinfo(raw))
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("URL %q: scheme must be https or http", redactUserinfo(raw))
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "",
		strings.Contains(u.Hostname(), ":") && !strings.HasPrefix(u.Host, "["): // "https://::": a colon, not a host
		return nil, fmt.Errorf("URL %q has no host", redactUserinfo(raw))
	case u.User != nil:
		return nil, fmt.Errorf("URL %q must not contain user info", redactUserinfo(raw))
	case u.RawQuery != "" || u.ForceQuery || strings.Contains(raw, "?"):
		return nil, fmt.Errorf("URL %q must not contain a query", redactUserinfo(raw))
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, fmt.Errorf("URL %q must not contain a fragment", redactUserinfo(raw))
	case u.Scheme == "http" && !insecure && !isLoopback(u.Hostname()):
		return nil, fmt.Errorf("URL %q: http to a host that is not loopback would send the API key in clear text; use https, or WithInsecureHTTP (%s=1)", redactUserinfo(raw), envInsecureHTTP)
	}
	return u, nil
}

// redactUserinfo returns raw, a base URL NewClient refuses, as its error may
// quote it: with nothing before its last "@", and nothing after a "?" or "#"
// (a query or fragment may hold a key too, as in "?api_key=..."). What comes
// before an "@" may be user info even where url.Parse finds none: a reader
// takes "https:/admin:secret@host" (one slash) or "https:admin:secret@host"
// for a URL with a password, and the scheme itself may be one.
func redactUserinfo(raw string) string {
	tail := ""
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw, tail = raw[:i], raw[i:i+1]+"[REDACTED]"
	}
	if i := strings.LastIndex(raw, "@"); i >= 0 {
		raw = "[REDACTED]" + raw[i:]
	}
	return raw + tail
}

// isLoopback reports whether host is localhost, in 127.0.0.0/8, or ::1.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
