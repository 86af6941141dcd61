package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/petstore/petstore-go"
)

// fail writes err on stderr and returns its exit status. The line starts
// with "petstore: ", names what the user typed or set rather than the SDK's
// Go names (see describe), and says what to do next where the status
// alone does not: when the outcome of a create is unknown, to list before
// creating again; when the call may succeed later, so.
func (e *env) fail(err error) int {
	msg := e.errLine(e.describe(err))
	code := exitCode(err)
	switch code {
	case exitUnknown:
		msg += ": run petstore list before creating it again" // the error says the animal may have been created
	case exitLater:
		msg += ": the call may succeed if made again later"
	}
	fmt.Fprintln(e.stderr, msg)
	return code
}

// errLine returns msg as the line stderr shows: "petstore: " and the text,
// its line breaks made spaces, without the key, and quoted (see
// quoteControl) if it still holds a control character, as a server's text
// may. The key is redacted before the text is quoted, as quoting doubles
// the backslash of an escaped form of it (stderr's writer redacts too).
func (e *env) errLine(msg string) string {
	msg = strings.TrimPrefix(oneLine(e.red.String(msg)), "petstore: ")
	return "petstore: " + quoteControl(msg)
}

// exitCode returns the exit status of a command that failed with err.
func exitCode(err error) int {
	var conf *petstore.ConfigError
	switch {
	case errors.Is(err, petstore.ErrOutcomeUnknown):
		return exitUnknown
	case errors.Is(err, petstore.ErrMissingAPIKey), errors.Is(err, petstore.ErrUnauthorized):
		return exitAuth
	case errors.Is(err, petstore.ErrNotFound):
		return exitNotFound
	case errors.Is(err, petstore.ErrInvalidParams), errors.As(err, &conf):
		return exitUsage
	case petstore.Retryable(err):
		return exitLater
	}
	return exitFailure
}

// refuse writes a usage error that the usage would not explain, such as a
// value out of range, as one line on stderr, and returns exitUsage.
func (e *env) refuse(format string, args ...any) int {
	fmt.Fprintln(e.stderr, e.errLine(fmt.Sprintf(format, args...)))
	return exitUsage
}

// usageError writes a usage error on stderr, one line, then the usage that
// usage writes, and returns exitUsage.
func (e *env) usageError(usage func(io.Writer), format string, args ...any) int {
	var b bytes.Buffer
	fmt.Fprintln(&b, e.errLine(fmt.Sprintf(format, args...)))
	usage(&b)
	e.stderr.Write(b.Bytes())
	return exitUsage
}

// flagError handles an error of the flag package: for -h, the usage on
// stdout and exitOK; otherwise a usage error whose line starts with prefix.
func (e *env) flagError(err error, prefix string, usage func(io.Writer)) int {
	if errors.Is(err, flag.ErrHelp) {
		return e.printUsage(usage)
	}
	return e.usageError(usage, "%s%v", prefix, err)
}

// help: petstore help [COMMAND], the usage on stdout.
func (e *env) help(args []string) int {
	switch {
	case len(args) > 1:
		return e.usageError(e.usage, "help: want at most 1 argument, got %d: %q", len(args), args)
	case len(args) == 0:
		return e.printUsage(e.usage)
	}
	cmd, ok := lookup(args[0])
	if !ok {
		return e.usageError(e.usage, "help: unknown command %q (want %s)", args[0], commandNames())
	}
	own := newFlagSet(cmd.name)
	cmd.flags(own)
	return e.printUsage(func(w io.Writer) { e.commandUsage(w, cmd, own) })
}

// printUsage writes the usage that usage writes on stdout, as -h and help
// do, and returns the exit status.
func (e *env) printUsage(usage func(io.Writer)) int {
	var b bytes.Buffer
	usage(&b)
	return e.write(b.Bytes())
}

// usage writes the program's usage on w.
func (e *env) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: petstore [global flags] <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-44s %s\n", c.name+" "+c.synopsis, c.summary)
	}
	fmt.Fprintf(w, "  %-44s %s\n", "help [COMMAND]", "print this, or a command's usage")
	fmt.Fprintln(w, "\nglobal flags, anywhere on the line (\"--\" ends the flags):")
	g := defaults()
	fs := newFlagSet("petstore")
	g.define(fs)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, usageTail)
}

const usageTail = `
environment: PETSTORE_API_KEY (the key), PETSTORE_BASE_URL, PETSTORE_INSECURE_HTTP=1
(plain http to a host that is not loopback), PETSTORE_DEBUG=1 (as -v).
Every flag wins over every variable (-staging over PETSTORE_BASE_URL).
Results: JSON when stdout is not a terminal or with -json, else a table;
check writes text, or with -json one JSON object a line.
Exit status: 0 ok, 1 failure, 2 bad usage, 3 no key or 401, 4 not found,
5 check found a deviation, 6 create's outcome unknown (list before creating again),
7 the call may succeed if made again later (429, 5xx to a read, no connection).
`

// commandUsage writes cmd's usage on w: its own flags, as own defines them.
func (e *env) commandUsage(w io.Writer, cmd command, own *flag.FlagSet) {
	fmt.Fprintf(w, "usage: petstore %s %s\n\n%s\n", cmd.name, cmd.synopsis, cmd.summary)
	own.SetOutput(w)
	own.PrintDefaults()
	own.SetOutput(io.Discard)
	fmt.Fprintln(w, "\nglobal flags (-staging, -base-url, -timeout, -retries, -retry-wait, -json, -v, -version)\nmay stand anywhere on the line: petstore help")
}

// oneLine returns s with line breaks replaced by spaces, so that an error
// is one line on stderr whatever a server put in it.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), " ")
}
