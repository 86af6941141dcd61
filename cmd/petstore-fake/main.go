// Petstore-fake serves the in-memory fake Pet Store of package petstoretest
// on a loopback address, for scripts, CI jobs and tools in other languages:
//
//	go run github.com/petstore/petstore-go/cmd/petstore-fake@latest -addr 127.0.0.1:0
//
// Once it accepts connections it prints, on stdout, two lines for a shell to
// eval (export PETSTORE_BASE_URL=... and export PETSTORE_API_KEY=...), then
// logs each request on stderr, as a line of text or a JSON record (-log
// text|json; never the key, in any encoding, nor a header), until SIGINT or
// SIGTERM. Its flags (run it with -h) set the address, the key, the animals
// to start with (-pets FILE, a JSON array such as GET /v1/pets answers: ids
// are kept), faults to inject, the log's form, the journal's bound;
// -version prints its version. Each flag has an environment variable,
// PETSTORE_FAKE_ADDR and so on, read when the flag is not given, so that a
// container or a CI service started with no arguments can set everything;
// cmd/petstore-fake/Dockerfile builds such an image, and
// petstore-fake -healthcheck probes GET /_fake/health for it.
//
// The journal of requests is bounded, for a fake that runs for a day: the
// newest 10,000 (-journal N), within 32 MiB of what they keep (bodies, a
// body up to 64 KiB, paths, queries, headers, each header value with its
// overhead), the oldest dropped first. POST /_fake/reset empties it and
// gives the memory back to the system (debug.FreeOSMemory).
//
// Health checks that pass (GET /_fake/health answered 200) are not logged.
// -healthcheck exits 0 or 1, whatever its arguments.
//
// Beside the API, a control API under /_fake/ steers the fake while it runs,
// with the same key (but for /_fake/health), JSON in and out. Its requests
// are neither in the journal nor counted; a bad one changes nothing and
// answers a 400, 401, 404 or 405 Error body, as the fake does:
//
//	GET    /_fake/pets      200: every animal, in id order
//	PUT    /_fake/pets      200: replace every animal (a JSON array, as -pets takes); the animals as stored
//	POST   /_fake/faults    201: add a fault, {"op":"ListPets","count":2,"status":503,"retryAfter":"30s",
//	                        "delay":"1s","disconnect":false,"cutBody":false,"body":"..."}; the fault as stored
//	DELETE /_fake/faults    204: drop every pending fault
//	GET    /_fake/requests  200: the journal of API requests, oldest first, as objects with operation,
//	                        method, path, query, header, authorized, body (as text), status, fault, requestId
//	POST   /_fake/reset     204: back to the start: the -pets animals, no faults, an empty journal, memory freed
//	GET    /_fake/health    200: {"status":"ok"} while it serves; the only path that needs no key
//
// examples/fake-script/script.sh is an integration script that uses it, with curl and jq.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

func main() {
	cfg, err := parseConfig(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "petstore-fake: %v\nRun petstore-fake -h for usage.\n", err)
		if cfg.Healthcheck {
			os.Exit(1) // a health check exits 0 or 1: Docker reserves 2
		}
		os.Exit(2)
	}
	switch {
	case cfg.Version:
		fmt.Println("petstore-fake", petstore.Version)
		return
	case cfg.Healthcheck:
		os.Exit(healthcheck(cfg.HealthURL, os.Stdout, os.Stderr))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "petstore-fake: %v\n", err)
		os.Exit(1)
	}
}

// run serves the fake cfg describes until ctx is done. It writes the two
// export lines to stdout once the fake accepts connections, and its log to
// stderr.
func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	l, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	ip := l.Addr().(*net.TCPAddr).IP
	if !cfg.AllowRemote && !ip.IsLoopback() { // "localhost" resolved elsewhere
		l.Close()
		return fmt.Errorf("-addr %q listens on %v, which is not loopback; add -allow-remote to allow it", cfg.Addr, ip)
	}

	srv := petstoretest.NewUnstartedServer()
	defer srv.Close()
	srv.Listener = l
	if cfg.Key != "" {
		srv.APIKey = cfg.Key
	}
	srv.MaxJournalEntries = cfg.Journal
	logger := newEventLog(cfg.Log, stderr, srv.APIKey)
	srv.Config.Handler = logRequests(newControl(srv, cfg.Pets), logger)
	srv.Config.ErrorLog = logger.errorLog()
	srv.SetPets(cfg.Pets) // loadPets checked that it takes them
	for _, f := range cfg.Faults {
		srv.InjectFault(f)
	}
	srv.Start()

	// The log's first line before the export lines: a script that calls the
	// fake once it reads them finds its requests logged after it.
	logger.Printf("%s; animals: %d, faults: %d; stop with Ctrl-C or SIGTERM",
		serving(srv.URL, cfg.Addr), len(cfg.Pets), len(cfg.Faults))
	baseURL := localURL(srv.URL, cfg.Addr)
	// Both lines in one write, so that a reader sees both or neither.
	if _, err := fmt.Fprintf(stdout, "export PETSTORE_BASE_URL=%s\nexport PETSTORE_API_KEY=%s\n",
		shellQuote(baseURL), shellQuote(srv.APIKey)); err != nil {
		return err
	}
	<-ctx.Done()
	shutdown(srv, logger)
	logger.Printf("stopped")
	return nil
}

// shutdownGrace is how long shutdown lets requests finish. Only a client
// that stops sending a request body in the middle needs more.
const shutdownGrace = 3 * time.Second

// shutdown closes srv, which ends stalled requests at once and waits for
// the others; past shutdownGrace it closes their connections (before
// httptest complains, after 5 s, of a Close that waits).
func shutdown(srv *petstoretest.Server, logger *eventLog) {
	closed := make(chan struct{})
	go func() {
		srv.Close()
		close(closed)
	}()
	timer := time.NewTimer(shutdownGrace)
	defer timer.Stop()
	select {
	case <-closed:
	case <-timer.C:
		logger.Printf("requests still running after %v: closing their connections", shutdownGrace)
		srv.Config.Close()
		<-closed
	}
}

// localURL returns u with an unspecified host (0.0.0.0 or ::, from
// -allow-remote) replaced by a loopback address: the URL this machine's
// processes can use, and one the SDK accepts over http. The loopback
// address is of the family of the address asked for, addr: ::1 for an
// IPv6 one such as [::]:8080, else 127.0.0.1. (The listener's address
// would not tell: Go listens on 0.0.0.0 with a dual-stack socket, whose
// address reads [::], and a container may have no IPv6 loopback.)
func localURL(u, addr string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	ip := net.ParseIP(p.Hostname())
	if ip == nil || !ip.IsUnspecified() {
		return u
	}
	host, _, _ := net.SplitHostPort(addr)
	if asked := net.ParseIP(host); asked != nil && asked.To4() == nil {
		p.Host = net.JoinHostPort("::1", p.Port())
	} else {
		p.Host = net.JoinHostPort("127.0.0.1", p.Port())
	}
	return p.String()
}

// serving announces where the fake at URL u (the server's, its host the
// listener's address) serves, asked for at addr: its base URL when it
// listens on one address; when it listens on every interface (0.0.0.0, ::
// or no host, with -allow-remote), that, the port, and the URLs that reach
// it from this machine (on loopback) and from others.
func serving(u, addr string) string {
	local := localURL(u, addr)
	if local == u {
		return "serving the Pet Store API at " + u
	}
	p, err := url.Parse(local)
	if err != nil {
		return "serving the Pet Store API at " + local
	}
	port := p.Port()
	p.Host = "HOST:" + port
	return fmt.Sprintf("serving the Pet Store API on every interface, port %s (-addr %s): at %s from this machine, at %s from others (HOST: this machine's name or address)",
		port, addr, local, p)
}

// shellQuote returns s as a word a POSIX shell reads back as s: as it is
// when it holds only characters no shell treats specially (a random key, an
// IPv4 URL), else in single quotes.
func shellQuote(s string) string {
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("-._/:+=@%", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
