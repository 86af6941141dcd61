// Petstore is a command line for the Pet Store API, for integration
// scripts: each call through the SDK (retries, typed errors, the key kept
// out of every output), results as JSON on stdout, errors as one line on
// stderr, and an exit status a script can branch on.
//
//	go install github.com/petstore/petstore-go/cmd/petstore@latest
//
//	petstore [global flags] list [-limit N] [-status S]
//	petstore [global flags] create -name NAME -category ID [-status S]
//	petstore [global flags] get ID
//	petstore [global flags] check [-write [-production]]
//
// The key comes from PETSTORE_API_KEY, the base URL from -base-url, else
// PETSTORE_BASE_URL, else StagingURL with -staging, else ProductionURL;
// PETSTORE_INSECURE_HTTP=1 allows plain http to a host that is not
// loopback. Exit statuses:
//
//	0  success
//	1  any failure not below (transport, timeout, 5xx after retries)
//	2  bad usage, a configuration the SDK refuses, parameters it refuses,
//	   or check -write refused for production
//	3  no API key, or the server answered 401
//	4  the server answered 404
//	5  check found a deviation from the interface
//
// check holds a deployment to the interface, where the interface says
// something: one line per check, PASS, FAIL (with what was seen) or INFO
// (where the interface is silent), then a summary. It only reads, unless
// -write, which also creates one animal and is refused for production
// unless -production is given too.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/redact"
)

// The exit statuses.
const (
	exitOK        = 0
	exitFailure   = 1
	exitUsage     = 2
	exitAuth      = 3
	exitNotFound  = 4
	exitDeviation = 5
)

const usageText = `usage: petstore [global flags] <command> [flags] [args]

commands:
  list [-limit N] [-status S]                list animals (JSON array on stdout)
  create -name NAME -category ID [-status S] add an animal (JSON object on stdout)
  get ID                                     get one animal (deprecated by the API)
  check [-write [-production]]               check the deployment against the interface

global flags:
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// globals are the global flags.
type globals struct {
	staging bool
	baseURL string
	timeout time.Duration
	retries int
	verbose bool
	version bool
}

// run runs the command line args, writing results to stdout and errors and
// logs to stderr, both with the key redacted, and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	red := redact.New(os.Getenv("PETSTORE_API_KEY"))
	// Every write below is a whole line or record (see redact.Writer).
	stdout, stderr = red.Writer(stdout), red.Writer(stderr)

	var g globals
	fs := flag.NewFlagSet("petstore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageText)
		fs.PrintDefaults()
	}
	fs.BoolVar(&g.staging, "staging", false, "use StagingURL, unless -base-url or PETSTORE_BASE_URL says otherwise")
	fs.StringVar(&g.baseURL, "base-url", "", "the API's base URL, with its /v1 (default: PETSTORE_BASE_URL, else production)")
	fs.DurationVar(&g.timeout, "timeout", 0, "limit for the whole command, retries and waits included (0: none)")
	fs.IntVar(&g.retries, "retries", 2, "retries after a failed attempt")
	fs.BoolVar(&g.verbose, "v", false, "write the SDK's Debug log on stderr")
	fs.BoolVar(&g.version, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if g.version {
		fmt.Fprintln(stdout, "petstore", petstore.Version)
		return exitOK
	}
	if g.timeout < 0 {
		return usageError(stderr, "-timeout %v is negative", g.timeout)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	cmd, ok := commands[fs.Arg(0)]
	if !ok {
		return usageError(stderr, "unknown command %q (want list, create, get or check)", fs.Arg(0))
	}
	if g.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.timeout)
		defer cancel()
	}
	env := &env{globals: g, stdout: stdout, stderr: stderr}
	return cmd(ctx, env, fs.Args()[1:])
}

// env is what a command works with.
type env struct {
	globals
	stdout, stderr io.Writer
}

// commands are the subcommands, by name.
var commands = map[string]func(context.Context, *env, []string) int{
	"list":   list,
	"create": create,
	"get":    get,
	"check":  check,
}

// base returns the base URL the command uses: -base-url, else
// $PETSTORE_BASE_URL, else StagingURL with -staging, else ProductionURL;
// blank counts as unset, as NewClient reads it.
func (e *env) base() string {
	for _, u := range []string{e.baseURL, os.Getenv("PETSTORE_BASE_URL")} {
		if strings.TrimSpace(u) != "" {
			return u
		}
	}
	if e.staging {
		return petstore.StagingURL
	}
	return petstore.ProductionURL
}

// options returns the SDK options of the global flags.
func (e *env) options() []petstore.Option {
	opts := []petstore.Option{petstore.WithBaseURL(e.base()), petstore.WithMaxRetries(e.retries), petstore.WithUserAgent("petstore-cli/" + petstore.Version)}
	if e.verbose {
		h := slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelDebug})
		opts = append(opts, petstore.WithLogger(slog.New(h)))
	}
	return opts
}

// client returns a Client for the global flags, or the exit status of
// NewClient's error, written on stderr.
func (e *env) client() (*petstore.Client, int) {
	c, err := petstore.NewClient("", e.options()...)
	if err != nil {
		if !errors.Is(err, petstore.ErrMissingAPIKey) {
			err = &configError{err}
		}
		return nil, e.fail(err)
	}
	return c, exitOK
}

// fail writes err on stderr, as one line, and returns its exit status.
func (e *env) fail(err error) int {
	fmt.Fprintln(e.stderr, oneLine(err.Error()))
	return exitCode(err)
}

// exitCode returns the exit status of a command that failed with err.
func exitCode(err error) int {
	var conf *configError
	switch {
	case errors.Is(err, petstore.ErrMissingAPIKey), errors.Is(err, petstore.ErrUnauthorized):
		return exitAuth
	case errors.Is(err, petstore.ErrNotFound):
		return exitNotFound
	case errors.Is(err, petstore.ErrInvalidParams), errors.As(err, &conf):
		return exitUsage
	}
	return exitFailure
}

// configError is an error of NewClient other than a missing key: a
// configuration it refuses, which is bad usage.
type configError struct{ err error }

func (e *configError) Error() string { return e.err.Error() }
func (e *configError) Unwrap() error { return e.err }

// usageError writes a usage error on stderr and returns exitUsage.
func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "petstore: "+format+" (run petstore -h for usage)\n", args...)
	return exitUsage
}

// flagExit returns the exit status of a flag parsing error, which the flag
// package has already written on stderr: 0 for -h.
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// oneLine returns s with line breaks replaced by spaces, so that an error
// is one line on stderr whatever a server put in it.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), " ")
}
