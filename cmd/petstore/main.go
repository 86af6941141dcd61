// Petstore is a command line for the Pet Store API, for integration
// scripts and for a person at a prompt: each call through the SDK (retries,
// typed errors, the key kept out of every output), results on stdout,
// errors as one line on stderr, and an exit status a script can branch on.
//
//	go install github.com/petstore/petstore-go/cmd/petstore@latest
//
//	petstore [global flags] list [-limit N] [-status S]
//	petstore [global flags] create -name NAME -category ID [-status S]
//	petstore [global flags] get ID
//	petstore [global flags] check [-write [-production]] [-junit FILE]
//	petstore help [COMMAND]
//
// Global flags (-staging, -base-url URL, -timeout D, -retries N,
// -retry-wait MIN,MAX, -json, -v, -version) may stand anywhere on the line:
// before the command, after it, after its arguments. "--" ends the flags.
//
// The key comes from PETSTORE_API_KEY, the base URL from -base-url, else
// the staging URL with -staging, else PETSTORE_BASE_URL, else production:
// every flag wins over every variable. PETSTORE_INSECURE_HTTP=1 allows
// plain http to a host that is not loopback; PETSTORE_DEBUG=1 does what -v
// does. Errors name the flag or the variable the user typed or set.
//
// Results are JSON (list: an array, create and get: an object, exactly the
// SDK's Pet) when stdout is not a terminal or -json is given, and a table
// (ID NAME CATEGORY STATUS) on a terminal. Stdout is a terminal when it is a
// character device other than the null device (see isTerminal). Exit
// statuses:
//
//	0  success
//	1  any failure not below (-timeout, a 5xx to a create, ...)
//	2  bad usage, a configuration the SDK refuses, parameters it refuses,
//	   or check -write refused for production
//	3  no API key, or the server answered 401
//	4  the server answered 404
//	5  check found a deviation from the interface
//	6  create's outcome is unknown: the animal may have been created, so
//	   list the animals before creating it again
//	7  the call may succeed if made again later, and is safe to make
//	   again (petstore.Retryable): 429; for list and get, 408, 500, 502,
//	   503, 504 or a transport error, retried or not; no connection had
//
// check holds a deployment to the interface, where the interface says
// something: its first line names the target (INFO target URL), then one
// line per check, PASS, FAIL (with what was seen) or INFO (where the
// interface is silent), then a summary. It writes text whatever stdout is;
// with -json, every line is one JSON object instead, the target first
// ({"result":"INFO","check":"target","detail":URL}), one per check, and a
// summary ({"result":"SUMMARY","check":"summary",...,"passed":N,"failed":N,
// "info":N}). -junit FILE also writes a JUnit XML report (a FAIL is a
// failure, an INFO skipped). It only reads, unless -write, which also
// creates one animal and is refused for production unless -production is
// given too.
//
// Nothing a server sent reaches a terminal raw: a text that holds a control
// character (an escape sequence, a line break) is shown quoted as Go quotes
// strings, in a table, an error line or a line of check; JSON escapes them.
package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/signal"
	"strconv"
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
	exitUnknown   = 6
	exitLater     = 7
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, isTerminal(os.Stdout))
	stop()
	os.Exit(code)
}

// globals are the global flags.
type globals struct {
	staging   bool
	baseURL   string
	timeout   time.Duration
	retries   int
	retryWait []time.Duration // MIN and MAX, when -retry-wait is given
	json      bool
	verbose   bool
	version   bool
}

// defaults returns the global flags as they are when not given.
func defaults() globals { return globals{retries: 2} }

// define defines the global flags on fs, with g's values as their
// defaults: the flags before the command, and again those of the command
// (a global flag stands anywhere), which keep what came before.
func (g *globals) define(fs *flag.FlagSet) {
	fs.BoolVar(&g.staging, "staging", g.staging, "use "+petstore.StagingURL+" (-base-url wins over it; it wins over PETSTORE_BASE_URL)")
	fs.StringVar(&g.baseURL, "base-url", g.baseURL, "the API's base `URL`, with its /v1 (default: the staging URL with -staging, else PETSTORE_BASE_URL, else production)")
	fs.DurationVar(&g.timeout, "timeout", g.timeout, "limit for the whole command, retries and waits included (0: none)")
	fs.IntVar(&g.retries, "retries", g.retries, "retries after a failed attempt")
	fs.Func("retry-wait", "wait `MIN,MAX` between retries: from MIN, doubling, at most MAX (default 500ms,8s)", g.setRetryWait)
	fs.BoolVar(&g.json, "json", g.json, "print JSON even when stdout is a terminal; check: one JSON object a line")
	fs.BoolVar(&g.verbose, "v", g.verbose, "write the SDK's Debug log on stderr (also PETSTORE_DEBUG=1)")
	fs.BoolVar(&g.version, "version", g.version, "print the version and exit")
}

// setRetryWait sets -retry-wait from "MIN,MAX", two durations; whether
// MIN <= MAX is the SDK's to say.
func (g *globals) setRetryWait(s string) error {
	a, b, ok := strings.Cut(s, ",")
	lo, err1 := time.ParseDuration(strings.TrimSpace(a))
	hi, err2 := time.ParseDuration(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return errors.New("want MIN,MAX, two durations such as 100ms,2s")
	}
	g.retryWait = []time.Duration{lo, hi}
	return nil
}

// env is what a command works with: the global flags, the outputs, and the
// redactor of the key.
type env struct {
	globals
	stdout, stderr io.Writer
	terminal       bool // stdout is a terminal: print a table unless -json
	red            *redact.Redactor
}

// run runs the command line args, writing results on stdout (as a table
// when terminal, unless -json) and errors and logs on stderr, without the
// key, and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, terminal bool) int {
	red := redact.New(os.Getenv("PETSTORE_API_KEY"))
	// Stderr is redacted whole: every write to it is a whole line or record
	// (see redact.Writer). Stdout is not: what goes there is redacted string
	// by string (see print), so that nothing but a string holding the key
	// changes.
	e := &env{globals: defaults(), stdout: stdout, stderr: red.Writer(stderr), terminal: terminal, red: red}
	fs := newFlagSet("petstore")
	e.define(fs)
	if err := fs.Parse(args); err != nil { // up to the command
		return e.flagError(err, "", e.usage)
	}
	if e.version {
		return e.write([]byte("petstore " + petstore.Version + "\n"))
	}
	if fs.NArg() == 0 {
		return e.usageError(e.usage, "no command (want %s)", commandNames())
	}
	name, rest := fs.Arg(0), fs.Args()[1:]
	if name == "help" {
		return e.help(rest)
	}
	cmd, ok := lookup(name)
	if !ok {
		return e.usageError(e.usage, "unknown command %q (want %s)", name, commandNames())
	}
	return e.exec(ctx, cmd, rest)
}

// exec parses the rest of the command line, the command's flags and the
// global ones anywhere among its arguments, and runs cmd.
func (e *env) exec(ctx context.Context, cmd command, args []string) int {
	own := newFlagSet(cmd.name) // the command's own flags, for its usage
	action := cmd.flags(own)
	fs := newFlagSet(cmd.name)
	own.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, f.Name, f.Usage) })
	e.define(fs)
	usage := func(w io.Writer) { e.commandUsage(w, cmd, own) }
	pos, err := parseAnywhere(fs, args)
	if err != nil {
		return e.flagError(err, cmd.name+": ", usage)
	}
	if e.version {
		return e.write([]byte("petstore " + petstore.Version + "\n"))
	}
	if len(pos) != cmd.nargs {
		return e.usageError(usage, "%s: want %d argument(s), got %d: %q", cmd.name, cmd.nargs, len(pos), pos)
	}
	for _, name := range cmd.required {
		if !isSet(fs, name) {
			return e.usageError(usage, "%s: -%s is required", cmd.name, name)
		}
	}
	if code, ok := e.ready(); !ok {
		return code
	}
	if e.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
		defer cancel()
	}
	return action(ctx, e, pos)
}

// ready checks what the flag package cannot: -timeout, and PETSTORE_DEBUG,
// which sets -v. It returns the exit status when the command is not to run.
func (e *env) ready() (int, bool) {
	if e.timeout < 0 {
		return e.refuse("-timeout %v is negative", e.timeout), false
	}
	if v := os.Getenv("PETSTORE_DEBUG"); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil { // the value is not quoted: it might be a secret set in the wrong variable
			return e.refuse("PETSTORE_DEBUG: want 1, true, 0 or false (as strconv.ParseBool reads it), or unset"), false
		}
		e.verbose = e.verbose || on
	}
	return exitOK, true
}

// newFlagSet returns a flag set that writes nothing: its errors and usage
// are written by flagError, each line prefixed.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseAnywhere parses args with fs, with flags anywhere among the
// arguments, and returns the arguments. The flag package stops at the first
// argument: parseAnywhere takes it and parses on. After "--", everything is
// an argument (so "get -- -1" asks for the id -1); a flag whose value is
// "--" followed by an argument is read as that end of the flags too.
func parseAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// isSet reports whether flag name was given.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
