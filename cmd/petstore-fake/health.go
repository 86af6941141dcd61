package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// healthURL returns the URL that -healthcheck probes: that of GET
// /_fake/health at the URL given as its argument (the fake's root or its
// base URL, .../v1), or, with none, at addr (given as from: -addr or
// PETSTORE_FAKE_ADDR), an unspecified host (0.0.0.0, ::, none) probed on
// loopback.
func healthURL(args []string, addr, from string) (string, error) {
	switch len(args) {
	case 0:
		host, port, err := splitAddr(addr, from)
		if err != nil {
			return "", err
		}
		if port == "0" {
			return "", fmt.Errorf("-healthcheck: %s %q has no fixed port: give the fake's URL, petstore-fake -healthcheck http://HOST:PORT", from, addr)
		}
		if host == "" {
			host = "0.0.0.0"
		}
		return localURL("http://"+net.JoinHostPort(host, port), addr) + healthPath, nil
	case 1:
		u, err := url.Parse(args[0])
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return "", fmt.Errorf("-healthcheck %q: want the fake's URL, such as http://127.0.0.1:8080 or its base URL, http://127.0.0.1:8080/v1", args[0])
		}
		switch strings.TrimSuffix(u.Path, "/") {
		case "", "/v1", healthPath:
		default:
			return "", fmt.Errorf("-healthcheck %q: want the fake's URL, such as http://127.0.0.1:8080 or its base URL, http://127.0.0.1:8080/v1, not a path under it", args[0])
		}
		u.Path, u.RawPath = healthPath, ""
		return u.String(), nil
	}
	return "", fmt.Errorf("-healthcheck takes one URL at most, got %q", args)
}

// asksHealthcheck reports whether args, which fs refused, hold
// -healthcheck (or --healthcheck, or -healthcheck=VALUE unless VALUE is
// false) among the flags, as fs reads them: before the first argument that
// is neither a flag nor the value of one, or "--". So a health check with
// a bad flag ("-healthcheck -journal=x") still exits 1.
func asksHealthcheck(fs *flag.FlagSet, args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			return false
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name == "healthcheck" {
			b, err := strconv.ParseBool(value)
			return !hasValue || err != nil || b
		}
		if f := fs.Lookup(name); f != nil && !hasValue && !isBoolFlag(f) {
			i++ // its value
		}
	}
	return false
}

// isBoolFlag reports whether f is a flag that takes no value, as the flag
// package tells.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// healthTimeout bounds a -healthcheck probe. A container runtime gives a
// health check its own timeout (Docker's is 30s by default) and counts an
// exit past it as a failure: a fake that does not answer in healthTimeout
// is not healthy either.
const healthTimeout = 10 * time.Second

// healthcheck probes GET /_fake/health at u, directly (no proxy, no
// redirect), and returns the exit status: 0 when it answers 200
// {"status":"ok"}, with a line on stdout; 1 otherwise, with why on stderr.
func healthcheck(u string, stdout, stderr io.Writer) int {
	client := &http.Client{
		Timeout:   healthTimeout,
		Transport: &http.Transport{DisableKeepAlives: true}, // Proxy nil: straight to the fake
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	err := probe(client, u)
	if err != nil {
		fmt.Fprintf(stderr, "petstore-fake: -healthcheck: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "petstore-fake: %s: ok\n", u)
	return 0
}

// probe sends GET u and checks that it answers 200 {"status":"ok"}.
func probe(client *http.Client, u string) error {
	resp, err := client.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if err != nil {
		return fmt.Errorf("GET %s: reading the answer: %v", u, err)
	}
	var health struct {
		Status string `json:"status"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &health) != nil || health.Status != "ok" {
		return fmt.Errorf("GET %s: %s %.200q, want 200 {\"status\":\"ok\"}", u, resp.Status, body)
	}
	return nil
}
