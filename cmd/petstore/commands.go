package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/petstore/petstore-go"
)

// command is a subcommand.
type command struct {
	name     string
	synopsis string // what follows the name in its usage
	summary  string
	nargs    int      // the arguments it takes
	required []string // the flags it needs
	flags    func(*flag.FlagSet) action
}

// action runs a command with the flags its command.flags defined, once
// they are parsed, and its arguments; it returns the exit status.
type action func(ctx context.Context, e *env, args []string) int

// commands are the subcommands, in the order the usage lists them.
var commands = []command{
	{"list", "[-limit N] [-status S]", "list animals", 0, nil, list},
	{"create", "-name NAME -category ID [-status S]", "add an animal", 0, []string{"category"}, create},
	{"get", "ID", "get one animal (deprecated by the API)", 1, nil, get},
	{"check", "[-write [-production]] [-junit FILE]", "check the deployment against the interface", 0, nil, check},
}

// lookup returns the command called name.
func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// commandNames lists the commands' names, for a usage error.
func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ") + " or help"
}

// list: petstore list [-limit N] [-status S].
func list(fs *flag.FlagSet) action {
	var p petstore.ListPetsParams
	fs.IntVar(&p.Limit, "limit", 0, "at most `N` animals, 1..100 (0: the server's default, 20)")
	fs.StringVar((*string)(&p.Status), "status", "", "only animals with status `S`: available, pending or sold")
	return func(ctx context.Context, e *env, _ []string) int {
		return e.call(func(c *petstore.Client) (any, error) { return c.ListPets(ctx, p) })
	}
}

// create: petstore create -name NAME -category ID [-status S].
func create(fs *flag.FlagSet) action {
	var p petstore.NewPet
	fs.StringVar(&p.Name, "name", "", "the animal's `NAME` (required)")
	fs.Int64Var(&p.CategoryID, "category", 0, "the `ID` of its category (required)")
	fs.StringVar((*string)(&p.Status), "status", "", "its status `S`: available, pending or sold (default: the server's)")
	return func(ctx context.Context, e *env, _ []string) int {
		return e.call(func(c *petstore.Client) (any, error) { return c.CreatePet(ctx, p) })
	}
}

// get: petstore get ID.
func get(*flag.FlagSet) action {
	return func(ctx context.Context, e *env, args []string) int {
		id, err := strconv.ParseInt(args[0], 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return e.refuse("get: %s is out of range for an animal id (at most %d)", args[0], int64(math.MaxInt64))
		}
		if err != nil {
			return e.refuse("get: %q is not an animal id (an integer)", args[0])
		}
		return e.call(func(c *petstore.Client) (any, error) {
			//lint:ignore SA1019 the CLI offers what the API offers, until it is removed
			return c.GetPet(ctx, id)
		})
	}
}

// base returns the base URL the command uses: -base-url, else StagingURL
// with -staging, else $PETSTORE_BASE_URL, else ProductionURL. Every flag
// wins over every variable, so that a PETSTORE_BASE_URL left in the
// environment never redirects a call the user pinned on the command line;
// blank counts as unset, as NewClient reads it.
func (e *env) base() string {
	url, _ := e.baseSource()
	return url
}

// baseSource returns the base URL the command uses and what set it, as
// the user would say it.
func (e *env) baseSource() (url, source string) {
	switch {
	case strings.TrimSpace(e.baseURL) != "":
		return e.baseURL, "-base-url"
	case e.staging:
		return petstore.StagingURL, "-staging"
	case strings.TrimSpace(os.Getenv("PETSTORE_BASE_URL")) != "":
		return os.Getenv("PETSTORE_BASE_URL"), "PETSTORE_BASE_URL"
	}
	return petstore.ProductionURL, "the production URL"
}

// options returns the SDK options of the global flags. The base URL is
// given only when a flag set it; else NewClient reads PETSTORE_BASE_URL
// itself, and names it in its errors.
func (e *env) options() []petstore.Option {
	opts := []petstore.Option{petstore.WithMaxRetries(e.retries), petstore.WithUserAgent("petstore-cli/" + petstore.Version)}
	if url, source := e.baseSource(); source == "-base-url" || source == "-staging" {
		opts = append(opts, petstore.WithBaseURL(url))
	}
	if e.retryWait != nil {
		opts = append(opts, petstore.WithRetryWait(e.retryWait[0], e.retryWait[1]))
	}
	if e.verbose {
		h := slog.NewTextHandler(quotingWriter{e.stderr}, &slog.HandlerOptions{Level: slog.LevelDebug})
		opts = append(opts, petstore.WithLogger(slog.New(h)))
	}
	return opts
}

// client returns a Client for the global flags, or the exit status of
// NewClient's error, written on stderr.
func (e *env) client() (*petstore.Client, int) {
	c, err := petstore.NewClient("", e.options()...)
	if err != nil {
		return nil, e.fail(err)
	}
	return c, exitOK
}

// call makes the Client of the global flags and hands it to f, then prints
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
