package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"

	"github.com/petstore/petstore-go"
	checks "github.com/petstore/petstore-go/internal/check"
)

// flags returns the flag set of command name, writing its errors and usage
// on stderr.
func (e *env) flags(name, args string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: petstore [global flags] %s %s\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args with fs and refuses arguments beyond the want first
// ones; it returns the exit status when the command is not to run.
func parse(fs *flag.FlagSet, args []string, want int) (int, bool) {
	if err := fs.Parse(args); err != nil {
		return flagExit(err), false
	}
	if fs.NArg() != want {
		fmt.Fprintf(fs.Output(), "petstore %s: want %d argument(s), got %d: %q\n", fs.Name(), want, fs.NArg(), fs.Args())
		fs.Usage()
		return exitUsage, false
	}
	return exitOK, true
}

// list: petstore list [-limit N] [-status S].
func list(ctx context.Context, e *env, args []string) int {
	var p petstore.ListPetsParams
	fs := e.flags("list", "[-limit N] [-status S]")
	fs.IntVar(&p.Limit, "limit", 0, "at most this many animals, 1..100 (0: the server's default, 20)")
	fs.StringVar((*string)(&p.Status), "status", "", "only animals with this status: available, pending or sold")
	if code, ok := parse(fs, args, 0); !ok {
		return code
	}
	return e.call(func(c *petstore.Client) (any, error) { return c.ListPets(ctx, p) })
}

// create: petstore create -name NAME -category ID [-status S].
func create(ctx context.Context, e *env, args []string) int {
	var p petstore.NewPet
	fs := e.flags("create", "-name NAME -category ID [-status S]")
	fs.StringVar(&p.Name, "name", "", "the animal's name (required)")
	fs.Int64Var(&p.CategoryID, "category", 0, "the id of its category (required)")
	fs.StringVar((*string)(&p.Status), "status", "", "available, pending or sold (default: the server's)")
	if code, ok := parse(fs, args, 0); !ok {
		return code
	}
	if !isSet(fs, "category") {
		return usageError(e.stderr, "create: -category is required")
	}
	return e.call(func(c *petstore.Client) (any, error) { return c.CreatePet(ctx, p) })
}

// get: petstore get ID.
func get(ctx context.Context, e *env, args []string) int {
	fs := e.flags("get", "ID")
	if code, ok := parse(fs, args, 1); !ok {
		return code
	}
	id, err := strconv.ParseInt(fs.Arg(0), 10, 64)
	if err != nil {
		return usageError(e.stderr, "get: %q is not an animal id (an integer)", fs.Arg(0))
	}
	return e.call(func(c *petstore.Client) (any, error) {
		//lint:ignore SA1019 the CLI offers what the API offers, until it is removed
		return c.GetPet(ctx, id)
	})
}

// check: petstore check [-write [-production]].
func check(ctx context.Context, e *env, args []string) int {
	var write, production bool
	fs := e.flags("check", "[-write [-production]]")
	fs.BoolVar(&write, "write", false, "also create one animal (the interface has no delete) and send a body without a name")
	fs.BoolVar(&production, "production", false, "with -write: allow it against production")
	if code, ok := parse(fs, args, 0); !ok {
		return code
	}
	// A configuration NewClient refuses is bad usage, as for the other
	// commands; checks.Run would only say it cannot check.
	if c, code := e.client(); c == nil {
		return code
	}
	if write && !production && checks.IsProduction(e.base()) {
		return usageError(e.stderr, "check -write would create an animal in production (%s); add -production to mean it", e.base())
	}
	counts := map[checks.Verdict]int{}
	fails, err := checks.Run(ctx, checks.Config{Options: e.options(), Write: write}, func(r checks.Result) {
		counts[r.Verdict]++
		fmt.Fprintln(e.stdout, oneLine(r.String()))
	})
	if err != nil {
		return e.fail(err)
	}
	fmt.Fprintf(e.stdout, "summary: %d passed, %d failed, %d info\n", counts[checks.Pass], counts[checks.Fail], counts[checks.Info])
	if fails > 0 {
		return exitDeviation
	}
	return exitOK
}

// call makes the Client of the global flags and hands it to f, then writes
// f's result on stdout, or its error on stderr, and returns the exit status.
func (e *env) call(f func(*petstore.Client) (any, error)) int {
	c, code := e.client()
	if c == nil {
		return code
	}
	v, err := f(c)
	if err != nil {
		return e.fail(err)
	}
	return e.print(v)
}

// isSet reports whether flag name was given.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// print writes v as one line of JSON on stdout, in one write, with <, >
// and & as they are.
func (e *env) print(v any) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // the SDK's types always encode
		return e.fail(err)
	}
	if _, err := e.stdout.Write(b.Bytes()); err != nil {
		return e.fail(err)
	}
	return exitOK
}
