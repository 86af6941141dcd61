package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// usage is the text of -h. Keep it in step with the flags of parseConfig
// (TestUsageNamesEveryFlag checks that it names each one).
const usage = `Usage: petstore-fake [flags]
       petstore-fake -healthcheck [URL]

petstore-fake serves the in-memory fake Pet Store of package petstoretest
(github.com/petstore/petstore-go) over plain HTTP, for scripts, CI jobs and
tools in other languages. Once it accepts connections it prints two lines on
stdout, for a shell to eval:

  export PETSTORE_BASE_URL=http://127.0.0.1:8080/v1
  export PETSTORE_API_KEY=pst_...

then announces where it serves (with -allow-remote on 0.0.0.0 or ::, that it
listens on every interface, and the URLs for this machine and for others),
and logs each request on stderr (see -log) until SIGINT or SIGTERM, when it
stops (ending stalled requests with a 503, and after 3s closing the
connections of requests still running) and exits 0. Exit status 2: bad flags,
variables or -pets file; 1: other failures, such as an address already in
use.

Every flag but -version and -healthcheck has an environment variable, read
when the flag is not given (a flag wins; a variable set but empty counts as
unset), so that a container or a CI service started with no arguments can
set everything: PETSTORE_FAKE_ADDR, PETSTORE_FAKE_ALLOW_REMOTE (true or
false, as Go's strconv.ParseBool reads them: 1, t, TRUE, 0, f, false...),
PETSTORE_FAKE_KEY, PETSTORE_FAKE_PETS (a file), PETSTORE_FAKE_FAULT (one
SPEC, or several separated by ;), PETSTORE_FAKE_LOG, PETSTORE_FAKE_JOURNAL.
A bad value ends it with exit status 2 and a message that names the
variable (and never the key).

Flags:
  -addr HOST:PORT
      address to listen on (default 127.0.0.1:8080); port 0 picks a free
      port. HOST must be loopback (127.0.0.1, ::1, localhost) unless
      -allow-remote is given. Variable: PETSTORE_FAKE_ADDR.
  -allow-remote
      allow a HOST that is not loopback, such as 0.0.0.0. The fake speaks
      plain HTTP: anyone who can reach it sees the key.
      Variable: PETSTORE_FAKE_ALLOW_REMOTE.
  -key KEY
      the only API key the fake accepts (default: a random pst_... key). It
      must be one the SDK can send: ASCII letters, digits and -._~+/, then
      optional = padding. Variable: PETSTORE_FAKE_KEY.
  -pets FILE
      start with the animals of FILE (and again after POST /_fake/reset), a
      JSON array of objects with name (required), categoryId (required),
      status (available, pending or sold; optional) and id (optional), such
      as the output of GET /v1/pets or GET /_fake/pets. Animals without an
      id (or with id 0) are numbered in order after the largest id given:
        [{"id": 7, "name": "Rex", "categoryId": 1, "status": "available"},
         {"name": "Tom", "categoryId": 2}]
      Variable: PETSTORE_FAKE_PETS.
  -fault SPEC
      make the next matching requests fail or stall, to test retries and
      timeouts. Repeatable: faults apply in the order given, each request
      meets at most one, and they apply before the key is checked. SPEC is
      comma-separated key=value pairs:
        op=ListPets|CreatePet|GetPet  only this operation (default: any request)
        count=N                       the next N matching requests (default 1)
        status=CODE                   answer CODE (400..599) with an Error body
        retry-after=DURATION          with status: a Retry-After header, in
                                      whole seconds rounded up
        delay=DURATION                stall first; then, with nothing else,
                                      serve normally. A stall ends early when
                                      the client gives up or the fake stops.
        disconnect[=true]             close the connection without answering
                                      (not with status or cut-body)
        cut-body[=true]               answer (with status, or normally), but
                                      close the connection halfway through
                                      the body; a cut CreatePet still creates
      A fault needs status, delay, disconnect or cut-body. DURATION is Go's:
      500ms, 2s, 1m.
        -fault op=ListPets,count=2,status=503
        -fault status=429,retry-after=30s
        -fault op=CreatePet,delay=10s
        -fault op=CreatePet,disconnect
      Variable: PETSTORE_FAKE_FAULT, such as
        "op=ListPets,count=2,status=503;op=CreatePet,disconnect".
  -log text|json
      the form of the log on stderr (default text). text: a line per
      request, "15:04:05.000000 GET /v1/pets 200 183µs" (status "-" and why,
      when no answer was sent), and per message. json: an object per line, as
      log/slog's JSONHandler writes them; a request's has time, level, msg
      ("request"), method, path, query, status (0 when no answer was sent),
      duration (nanoseconds), request_id and fault. Neither form ever holds
      the key, in any encoding, or a header; text leaves out the query. A
      health check that passes (GET /_fake/health, 200) is not logged.
      A short key (under 8 characters) is hidden only as a whole token,
      which may follow "=": with -key 1, "limit=1" shows as
      "limit=[REDACTED]". Variable: PETSTORE_FAKE_LOG.
  -journal N
      the most API requests the journal keeps (default 10000; 0 keeps
      none), the oldest dropped first. The journal also keeps at most
      32 MiB: bodies (each up to its first 64 KiB), paths, queries and
      headers, each header value counted with its overhead, so that a
      fake that runs for a day under load, or meets a query a&a&a... or
      thousands of empty header values, stays small.
      Variable: PETSTORE_FAKE_JOURNAL.
  -version
      print "petstore-fake <version>" on stdout and exit 0.
  -healthcheck [URL]
      probe GET /_fake/health of the fake at URL (its root or its base URL,
      http://HOST:PORT or http://HOST:PORT/v1) and exit 0 if it answers
      200 {"status":"ok"}, 1 otherwise: a health check for a container image
      with no shell or curl. Without URL, the fake at -addr or
      PETSTORE_FAKE_ADDR (0.0.0.0 and :: probed on loopback), by default
      http://127.0.0.1:8080. Other flags and variables are ignored; a bad
      one exits 1 too, as a health check only exits 0 or 1.

Control API: beside the Pet Store API, requests under /_fake/ steer the fake
while it runs, for a script that keeps one fake through many scenarios. They
take the API's key (Authorization: Bearer <key>), but for GET /_fake/health,
JSON in and out, and are neither in the journal nor counted as API requests.
A bad one changes nothing and answers an Error body: 400 invalid_body (or
invalid_parameter, for a query), 401 unauthorized, 404 not_found, 405
method_not_allowed.
  GET    /_fake/pets      200: every animal, in id order
  PUT    /_fake/pets      200: replace every animal with a JSON array, as
                          -pets takes; answers them as stored, with ids
  POST   /_fake/faults    201: add a fault (every field optional, durations
                          Go's, body sent with status instead of the Error
                          JSON); answers it as stored, count 0 made 1:
                          {"op":"ListPets","count":2,"status":503,
                           "retryAfter":"30s","delay":"1s","disconnect":false,
                           "cutBody":false,"body":"..."}
  DELETE /_fake/faults    204: drop every pending fault
  GET    /_fake/requests  200: the journal of API requests, oldest first, as
                          bounded by -journal: [{"operation","method","path",
                          "query","header" (without Authorization),
                          "authorized","body" (its first 64 KiB, as text),
                          "status" (0: no answer),"fault","requestId"}]
  POST   /_fake/reset     204: back to the start: the -pets animals, no
                          faults, an empty journal; the memory the journal
                          held goes back to the system
  GET    /_fake/health    200: {"status":"ok"} while it serves; no key needed
For example:
  curl -sH "Authorization: Bearer $PETSTORE_API_KEY" \
    -d '{"op":"ListPets","status":503}' "${PETSTORE_BASE_URL%/v1}/_fake/faults"
`

// config is what the flags and the environment ask for.
type config struct {
	Addr        string
	AllowRemote bool
	Key         string // "" for a random one
	Pets        []petstore.Pet
	Faults      []petstoretest.Fault
	Log         string // "text" or "json"
	Journal     int    // the most requests the journal keeps
	Version     bool   // print the version and exit
	Healthcheck bool   // probe HealthURL and exit
	HealthURL   string
}

// envVars are the environment variables of the flags, each read when its
// flag is not given (and not when it is set but empty), so that a
// container or a CI service started with no arguments can set everything.
var envVars = []struct{ flag, name string }{
	{"addr", "PETSTORE_FAKE_ADDR"},
	{"allow-remote", "PETSTORE_FAKE_ALLOW_REMOTE"},
	{"key", "PETSTORE_FAKE_KEY"},
	{"pets", "PETSTORE_FAKE_PETS"},
	{"fault", "PETSTORE_FAKE_FAULT"},
	{"log", "PETSTORE_FAKE_LOG"},
	{"journal", "PETSTORE_FAKE_JOURNAL"},
}

// parseConfig parses the command-line arguments (without the program name)
// and, for each flag not given, its environment variable, read through
// getenv. It returns flag.ErrHelp for -h, after writing the usage to
// stderr; for -version a config that asks for nothing else; for
// -healthcheck one that asks only for that, even with an error, a bad flag
// included (main exits 1 then, not 2, which Docker's HEALTHCHECK
// reserves). Any other error is a usage error, and names the flag or the
// variable at fault (never the key's value).
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var cfg config
	var petsFile string
	fs := newFlagSet(&cfg, &petsFile)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(stderr, usage)
		}
		return config{Healthcheck: asksHealthcheck(fs, args)}, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case cfg.Version:
		return config{Version: true}, nil // the other flags do not matter
	case cfg.Healthcheck:
		addr, from := cfg.Addr, "-addr"
		if v := getenv("PETSTORE_FAKE_ADDR"); !given["addr"] && v != "" {
			addr, from = v, "PETSTORE_FAKE_ADDR"
		}
		u, err := healthURL(fs.Args(), addr, from)
		return config{Healthcheck: true, HealthURL: u}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q: petstore-fake takes only flags", fs.Arg(0))
	}
	from := map[string]string{} // each flag's name in messages: -addr, or PETSTORE_FAKE_ADDR
	for _, e := range envVars {
		from[e.flag] = "-" + e.flag
		v := getenv(e.name)
		if given[e.flag] || v == "" {
			continue
		}
		from[e.flag] = e.name
		if err := setFromEnv(fs, e.flag, e.name, v); err != nil {
			return config{}, err
		}
	}
	if err := checkAddr(cfg.Addr, cfg.AllowRemote, from["addr"]); err != nil {
		return config{}, err
	}
	if err := checkKey(cfg.Key, from["key"]); err != nil {
		return config{}, err
	}
	if cfg.Log != "text" && cfg.Log != "json" {
		return config{}, fmt.Errorf("%s %q: want text or json", from["log"], cfg.Log)
	}
	if cfg.Journal < 0 {
		return config{}, fmt.Errorf("%s %d: want a number of requests, 0 or more", from["journal"], cfg.Journal)
	}
	if petsFile != "" {
		var err error
		if cfg.Pets, err = loadPets(petsFile, from["pets"]); err != nil {
			return config{}, err
		}
	}
	return cfg, nil
}

// setFromEnv sets the flag named flag from the value v of the environment
// variable name. PETSTORE_FAKE_FAULT may hold several SPECs, separated by
// ";". An error names the variable, and its value unless it is the key's.
func setFromEnv(fs *flag.FlagSet, flag, name, v string) error {
	values := []string{v}
	if flag == "fault" {
		values = strings.Split(v, ";")
	}
	for _, v := range values {
		if flag == "fault" {
			if v = strings.TrimSpace(v); v == "" {
				continue // a ";" at the end, or two in a row
			}
		}
		err := fs.Set(flag, v)
		switch {
		case err == nil:
		case flag == "allow-remote":
			return fmt.Errorf("%s %q: want true or false (or 1, 0, as strconv.ParseBool reads them)", name, v)
		case flag == "journal":
			return fmt.Errorf("%s %q: want a number of requests, 0 or more", name, v)
		default:
			return fmt.Errorf("%s %q: %v", name, v, err)
		}
	}
	return nil
}

// newFlagSet returns the flags, which set cfg and petsFile. Their help is
// usage, not the flag package's.
func newFlagSet(cfg *config, petsFile *string) *flag.FlagSet {
	fs := flag.NewFlagSet("petstore-fake", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parseConfig returns errors and writes usage
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "")
	fs.BoolVar(&cfg.AllowRemote, "allow-remote", false, "")
	fs.StringVar(&cfg.Key, "key", "", "")
	fs.StringVar(petsFile, "pets", "", "")
	fs.StringVar(&cfg.Log, "log", "text", "")
	fs.IntVar(&cfg.Journal, "journal", 10_000, "")
	fs.BoolVar(&cfg.Version, "version", false, "")
	fs.BoolVar(&cfg.Healthcheck, "healthcheck", false, "")
	fs.Func("fault", "", func(spec string) error {
		f, err := parseFault(spec)
		if err == nil {
			err = checkFault(f)
		}
		if err != nil {
			return err
		}
		cfg.Faults = append(cfg.Faults, f)
		return nil
	})
	return fs
}

// checkAddr checks that addr, given as from (-addr or its variable), is
// host:port with a numeric port, and a loopback host unless allowRemote.
// It looks nothing up.
func checkAddr(addr string, allowRemote bool, from string) error {
	host, _, err := splitAddr(addr, from)
	if err != nil {
		return err
	}
	if allowRemote || isLoopbackHost(host) {
		return nil
	}
	what := "is not a loopback address"
	if host == "" {
		what = "listens on every interface"
	}
	return fmt.Errorf("%s %q %s; use 127.0.0.1, ::1 or localhost, or add -allow-remote (or PETSTORE_FAKE_ALLOW_REMOTE=true) to serve other hosts (over plain HTTP, key included)", from, addr, what)
}

// splitAddr splits addr, given as from, into a host and a numeric port.
func splitAddr(addr, from string) (host, port string, err error) {
	host, port, err = net.SplitHostPort(addr)
	if err != nil {
		return "", "", fmt.Errorf("%s %q: want HOST:PORT, such as 127.0.0.1:8080 (%v)", from, addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", "", fmt.Errorf("%s %q: port %q is not a number from 0 to 65535", from, addr, port)
	}
	return host, port, nil
}

// isLoopbackHost reports whether host is "localhost" or a loopback IP.
func isLoopbackHost(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// checkKey checks a -key value, given as from (-key or its variable):
// empty (a random key), or a key the SDK can send. NewClient applies the
// SDK's own rule and sends nothing; its error names the position of a bad
// character, never the key.
func checkKey(key, from string) error {
	if key == "" {
		return nil
	}
	if strings.TrimSpace(key) == "" {
		return errors.New(from + " is blank")
	}
	if _, err := petstore.NewClient(key, petstore.WithBaseURL("http://127.0.0.1/v1")); err != nil {
		return fmt.Errorf("%s: %v", from, err)
	}
	return nil
}

// loadPets reads a -pets file (see decodePets), given as from (-pets or
// its variable), and checks that the fake takes its animals.
func loadPets(name, from string) ([]petstore.Pet, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", from, err)
	}
	pets, err := decodePets(data)
	if err == nil {
		err = scratchRefusal("SetPets", func(srv *petstoretest.Server) { srv.SetPets(pets) })
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", from, name, err)
	}
	return pets, nil
}
