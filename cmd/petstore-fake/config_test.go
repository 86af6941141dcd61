package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// testdataPets are the animals of testdata/pets.json.
var testdataPets = []petstore.Pet{
	{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable},
	{Name: "Tom", CategoryID: 2, Status: petstore.PetStatusPending},
	{Name: "Kiwi", CategoryID: 3},
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	// def returns the defaults, changed by set.
	def := func(set func(*config)) config {
		c := config{Addr: "127.0.0.1:8080", Log: "text", Journal: 10000}
		if set != nil {
			set(&c)
		}
		return c
	}
	health := func(u string) config { return config{Healthcheck: true, HealthURL: u} }
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want config
	}{
		{"defaults", nil, nil, def(nil)},
		{"a free port", []string{"-addr", "127.0.0.1:0"}, nil, def(func(c *config) { c.Addr = "127.0.0.1:0" })},
		{"localhost", []string{"-addr=localhost:9000"}, nil, def(func(c *config) { c.Addr = "localhost:9000" })},
		{"IPv6 loopback", []string{"-addr", "[::1]:0"}, nil, def(func(c *config) { c.Addr = "[::1]:0" })},
		{"another loopback address", []string{"-addr", "127.0.0.2:0"}, nil, def(func(c *config) { c.Addr = "127.0.0.2:0" })},
		{"every interface, allowed", []string{"-allow-remote", "-addr", "0.0.0.0:8080"}, nil,
			def(func(c *config) { c.Addr, c.AllowRemote = "0.0.0.0:8080", true })},
		{"a key", []string{"-key", "my-key_1.0~+/=="}, nil, def(func(c *config) { c.Key = "my-key_1.0~+/==" })},
		{"json log", []string{"-log", "json"}, nil, def(func(c *config) { c.Log = "json" })},
		{"a journal", []string{"-journal", "50"}, nil, def(func(c *config) { c.Journal = 50 })},
		{"a journal of none", []string{"-journal", "0"}, nil, def(func(c *config) { c.Journal = 0 })},
		{"version", []string{"-version"}, nil, config{Version: true}},
		{"version, other flags ignored", []string{"-addr", "0.0.0.0:1", "-pets", "testdata/no-name.json", "-version", "serve"},
			map[string]string{"PETSTORE_FAKE_LOG": "xml"}, config{Version: true}},
		{"pets", []string{"-pets", "testdata/pets.json"}, nil, def(func(c *config) { c.Pets = testdataPets })},
		{"faults, in order", []string{"-fault", "op=ListPets,count=2,status=503", "-fault", "delay=1s"}, nil,
			def(func(c *config) {
				c.Faults = []petstoretest.Fault{{Operation: "ListPets", Count: 2, Status: 503}, {Delay: time.Second}}
			})},
		{
			name: "every variable",
			env: map[string]string{
				"PETSTORE_FAKE_ADDR": "0.0.0.0:8080", "PETSTORE_FAKE_ALLOW_REMOTE": "true", "PETSTORE_FAKE_KEY": "ci-key",
				"PETSTORE_FAKE_PETS": "testdata/pets.json", "PETSTORE_FAKE_FAULT": "op=ListPets,count=2,status=503; delay=1s;",
				"PETSTORE_FAKE_LOG": "json", "PETSTORE_FAKE_JOURNAL": "5",
			},
			want: config{Addr: "0.0.0.0:8080", AllowRemote: true, Key: "ci-key", Pets: testdataPets, Log: "json", Journal: 5,
				Faults: []petstoretest.Fault{{Operation: "ListPets", Count: 2, Status: 503}, {Delay: time.Second}}},
		},
		{
			name: "flags win",
			args: []string{"-addr", "127.0.0.1:0", "-allow-remote=false", "-key", "flag-key", "-log", "text", "-journal", "7",
				"-fault", "status=500", "-pets", "testdata/pets.json"},
			env: map[string]string{
				"PETSTORE_FAKE_ADDR": "bad", "PETSTORE_FAKE_ALLOW_REMOTE": "maybe", "PETSTORE_FAKE_KEY": "a key",
				"PETSTORE_FAKE_PETS": "testdata/missing.json", "PETSTORE_FAKE_FAULT": "nope", "PETSTORE_FAKE_LOG": "xml",
				"PETSTORE_FAKE_JOURNAL": "-1",
			},
			want: config{Addr: "127.0.0.1:0", Key: "flag-key", Pets: testdataPets, Log: "text", Journal: 7,
				Faults: []petstoretest.Fault{{Status: 500}}},
		},
		{"empty variables are unset", nil, map[string]string{"PETSTORE_FAKE_ADDR": "", "PETSTORE_FAKE_LOG": "", "PETSTORE_FAKE_JOURNAL": ""}, def(nil)},
		{"allow-remote as 1", nil, map[string]string{"PETSTORE_FAKE_ALLOW_REMOTE": "1", "PETSTORE_FAKE_ADDR": "[::]:0"},
			def(func(c *config) { c.Addr, c.AllowRemote = "[::]:0", true })},
		{"healthcheck", []string{"-healthcheck"}, nil, health("http://127.0.0.1:8080/_fake/health")},
		{"healthcheck, the image's variables", []string{"-healthcheck"},
			map[string]string{"PETSTORE_FAKE_ADDR": "0.0.0.0:8080", "PETSTORE_FAKE_ALLOW_REMOTE": "true", "PETSTORE_FAKE_KEY": "not checked", "PETSTORE_FAKE_LOG": "xml"},
			health("http://127.0.0.1:8080/_fake/health")},
		{"healthcheck, every interface", []string{"-healthcheck"}, map[string]string{"PETSTORE_FAKE_ADDR": ":9000"},
			health("http://127.0.0.1:9000/_fake/health")},
		{"healthcheck, IPv6", []string{"-healthcheck"}, map[string]string{"PETSTORE_FAKE_ADDR": "[::]:9000"},
			health("http://[::1]:9000/_fake/health")},
		{"healthcheck, -addr wins", []string{"-addr", "localhost:9001", "-healthcheck"}, map[string]string{"PETSTORE_FAKE_ADDR": "0.0.0.0:8080"},
			health("http://localhost:9001/_fake/health")},
		{"healthcheck, a URL", []string{"-healthcheck", "http://petstore-fake:8080"}, nil, health("http://petstore-fake:8080/_fake/health")},
		{"healthcheck, a base URL", []string{"-healthcheck", "http://petstore-fake:8080/v1/"}, nil, health("http://petstore-fake:8080/_fake/health")},
		{"healthcheck, the health URL", []string{"-healthcheck", "https://127.0.0.1:8443/_fake/health"}, nil,
			health("https://127.0.0.1:8443/_fake/health")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			got, err := parseConfig(tc.args, getenvOf(tc.env), &stderr)
			if err != nil {
				t.Fatalf("parseConfig(%q) with %v: %v", tc.args, tc.env, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parseConfig(%q) with %v mismatch (-want +got):\n%s", tc.args, tc.env, diff)
			}
			if stderr.Len() > 0 {
				t.Errorf("parseConfig(%q) wrote %q, want nothing", tc.args, stderr.String())
			}
		})
	}
}

// getenvOf returns a getenv that reads env: no test changes the process's
// environment, so all run in parallel.
func getenvOf(env map[string]string) func(string) string {
	return func(name string) string { return env[name] }
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string // the error, or its start when it ends with an OS or JSON message
		env  map[string]string
	}{
		{[]string{"-nope"}, "flag provided but not defined: -nope", nil},
		{[]string{"serve"}, `unexpected argument "serve": petstore-fake takes only flags`, nil},
		{[]string{"-addr", "0.0.0.0:8080"}, `-addr "0.0.0.0:8080" is not a loopback address; use 127.0.0.1, ::1 or localhost, or add -allow-remote`, nil},
		{[]string{"-addr", "[::]:0"}, `-addr "[::]:0" is not a loopback address`, nil},
		{[]string{"-addr", "192.168.1.10:0"}, `-addr "192.168.1.10:0" is not a loopback address`, nil},
		{[]string{"-addr", "example.com:80"}, `-addr "example.com:80" is not a loopback address`, nil},
		{[]string{"-addr", ":8080"}, `-addr ":8080" listens on every interface; use 127.0.0.1`, nil},
		{[]string{"-addr", "127.0.0.1"}, `-addr "127.0.0.1": want HOST:PORT, such as 127.0.0.1:8080`, nil},
		{[]string{"-addr", "127.0.0.1:http"}, `-addr "127.0.0.1:http": port "http" is not a number from 0 to 65535`, nil},
		{[]string{"-addr", "127.0.0.1:65536"}, `-addr "127.0.0.1:65536": port "65536" is not a number from 0 to 65535`, nil},
		{[]string{"-allow-remote", "-addr", "0.0.0.0"}, `-addr "0.0.0.0": want HOST:PORT`, nil},
		{[]string{"-key", "   "}, "-key is blank", nil},
		{[]string{"-log", "JSON"}, `-log "JSON": want text or json`, nil},
		{[]string{"-log", ""}, `-log "": want text or json`, nil},
		{[]string{"-key", "my key"}, "-key: petstore: API key: character 3 is a space (stray whitespace?)", nil},
		{[]string{"-key", `"k"`}, "-key: petstore: API key: character 1 is a quote", nil},
		{[]string{"-fault", "status=200"}, `invalid value "status=200" for flag -fault: status "200" is not an error status (400..599)`, nil},
		{[]string{"-fault", "disconnect,status=503"}, `invalid value "disconnect,status=503" for flag -fault: Disconnect sends nothing: it cannot go with Status, Body or CutBody`, nil},
		{[]string{"-pets", "testdata/no-such-file.json"}, "-pets: open testdata/no-such-file.json: ", nil},
		{[]string{"-pets", "testdata"}, "-pets: read testdata: ", nil},
		{[]string{"-pets", "testdata/not-an-array.json"}, "-pets testdata/not-an-array.json: want a JSON array of animals", nil},
		{[]string{"-pets", "testdata/no-name.json"}, "-pets testdata/no-name.json: animal 2: name is required", nil},
		{[]string{"-journal", "-1"}, "-journal -1: want a number of requests, 0 or more", nil},
		{[]string{"-journal", "many"}, `invalid value "many" for flag -journal: parse error`, nil},

		// The environment, when the flag is not given: the message names the variable.
		{nil, `PETSTORE_FAKE_ADDR "8080": want HOST:PORT`, map[string]string{"PETSTORE_FAKE_ADDR": "8080"}},
		{nil, `PETSTORE_FAKE_ADDR "127.0.0.1:http": port "http" is not a number`, map[string]string{"PETSTORE_FAKE_ADDR": "127.0.0.1:http"}},
		{nil, `PETSTORE_FAKE_ADDR "0.0.0.0:8080" is not a loopback address; use 127.0.0.1, ::1 or localhost, or add -allow-remote (or PETSTORE_FAKE_ALLOW_REMOTE=true)`,
			map[string]string{"PETSTORE_FAKE_ADDR": "0.0.0.0:8080"}},
		{nil, `PETSTORE_FAKE_ADDR "0.0.0.0:8080" is not a loopback address`,
			map[string]string{"PETSTORE_FAKE_ADDR": "0.0.0.0:8080", "PETSTORE_FAKE_ALLOW_REMOTE": "false"}},
		{nil, `PETSTORE_FAKE_ALLOW_REMOTE "yes": want true or false`, map[string]string{"PETSTORE_FAKE_ALLOW_REMOTE": "yes"}},
		{nil, "PETSTORE_FAKE_KEY: petstore: API key: character 7 is a space (stray whitespace?)", map[string]string{"PETSTORE_FAKE_KEY": "secret key-123"}},
		{nil, "PETSTORE_FAKE_KEY: petstore: API key: character 7 is a non-ASCII byte", map[string]string{"PETSTORE_FAKE_KEY": "secret\u00e9key-123"}},
		{nil, "PETSTORE_FAKE_KEY is blank", map[string]string{"PETSTORE_FAKE_KEY": "  "}},
		{nil, "PETSTORE_FAKE_PETS: open testdata/missing.json: ", map[string]string{"PETSTORE_FAKE_PETS": "testdata/missing.json"}},
		{nil, "PETSTORE_FAKE_PETS testdata/no-name.json: animal 2: name is required", map[string]string{"PETSTORE_FAKE_PETS": "testdata/no-name.json"}},
		{nil, `PETSTORE_FAKE_FAULT "op=ListPets": a fault needs a status, a delay, disconnect or cut-body`,
			map[string]string{"PETSTORE_FAKE_FAULT": "status=503;op=ListPets"}},
		{nil, `PETSTORE_FAKE_LOG "JSON": want text or json`, map[string]string{"PETSTORE_FAKE_LOG": "JSON"}},
		{nil, `PETSTORE_FAKE_JOURNAL "ten": want a number of requests, 0 or more`, map[string]string{"PETSTORE_FAKE_JOURNAL": "ten"}},
		{nil, "PETSTORE_FAKE_JOURNAL -5: want a number of requests, 0 or more", map[string]string{"PETSTORE_FAKE_JOURNAL": "-5"}},

		// -healthcheck: what it needs to know where to probe.
		{[]string{"-healthcheck", "-addr", "127.0.0.1:0"}, `-healthcheck: -addr "127.0.0.1:0" has no fixed port: give the fake's URL`, nil},
		{[]string{"-healthcheck"}, `PETSTORE_FAKE_ADDR "8080": want HOST:PORT`, map[string]string{"PETSTORE_FAKE_ADDR": "8080"}},
		{[]string{"-healthcheck", "127.0.0.1:8080"}, `-healthcheck "127.0.0.1:8080": want the fake's URL, such as http://127.0.0.1:8080`, nil},
		{[]string{"-healthcheck", "http://127.0.0.1:8080/v1/pets"}, `-healthcheck "http://127.0.0.1:8080/v1/pets": want the fake's URL`, nil},
		{[]string{"-healthcheck", "http://a:1", "http://b:1"}, `-healthcheck takes one URL at most, got ["http://a:1" "http://b:1"]`, nil},
		{[]string{"-healthcheck", "-journal=x"}, `invalid value "x" for flag -journal: parse error`, nil},
		{[]string{"-journal=x", "-healthcheck"}, `invalid value "x" for flag -journal: parse error`, nil},
		{[]string{"-healthcheck", "-nope", "http://a:1"}, "flag provided but not defined: -nope", nil},
		{[]string{"-healthcheck", "-addr"}, "flag needs an argument: -addr", nil},
		{[]string{"-healthcheck", "-version=maybe"}, `invalid boolean value "maybe" for -version: parse error`, nil},
		{[]string{"--healthcheck=1", "-log"}, "flag needs an argument: -log", nil},
		{[]string{"-healthcheck=false", "-journal=x"}, `invalid value "x" for flag -journal: parse error`, nil},
		{[]string{"-log", "json", "-allow-remote", "-healthcheck", "-journal=x"}, `invalid value "x" for flag -journal: parse error`, nil},
		{[]string{"-key", "-healthcheck", "-journal=x"}, `invalid value "x" for flag -journal: parse error`, nil}, // -healthcheck is the key
	}
	for _, tc := range tests {
		var stderr bytes.Buffer
		cfg, err := parseConfig(tc.args, getenvOf(tc.env), &stderr)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("parseConfig(%q) with %v = %v, want an error starting %q", tc.args, tc.env, err, tc.want)
		}
		if key := tc.env["PETSTORE_FAKE_KEY"]; err != nil && strings.TrimSpace(key) != "" && strings.Contains(err.Error(), key) {
			t.Errorf("parseConfig with PETSTORE_FAKE_KEY %q: the error %q holds the key", key, err)
		}
		want := slices.Contains(tc.args, "-healthcheck") && tc.args[0] != "-key" || slices.Contains(tc.args, "--healthcheck=1")
		if cfg.Healthcheck != want {
			t.Errorf("parseConfig(%q): Healthcheck %v, want %v (main exits 1, not 2, after a -healthcheck)", tc.args, cfg.Healthcheck, want)
		}
		if stderr.Len() > 0 {
			t.Errorf("parseConfig(%q) wrote %q, want nothing (main writes the error)", tc.args, stderr.String())
		}
	}
}

func TestParseConfigHelp(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"-h", "-help", "--help"} {
		var stderr bytes.Buffer
		_, err := parseConfig([]string{arg}, getenvOf(nil), &stderr)
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("parseConfig(%q) = %v, want flag.ErrHelp", arg, err)
		}
		if diff := cmp.Diff(usage, stderr.String()); diff != "" {
			t.Errorf("parseConfig(%q) output mismatch (-want +got):\n%s", arg, diff)
		}
	}
}

// TestUsageNamesEveryFlag keeps the hand-written usage in step with the
// flags.
func TestUsageNamesEveryFlag(t *testing.T) {
	t.Parallel()
	fs := newFlagSet(new(config), new(string))
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(usage, "\n  -"+f.Name+"\n") && !strings.Contains(usage, "\n  -"+f.Name+" ") {
			t.Errorf("usage does not describe -%s", f.Name)
		}
	})
	for _, e := range envVars {
		if fs.Lookup(e.flag) == nil {
			t.Errorf("envVars: %s is for -%s, which is not a flag", e.name, e.flag)
		}
		if !strings.Contains(usage, "Variable: "+e.name) {
			t.Errorf("usage does not say that %s sets -%s", e.name, e.flag)
		}
	}
}

// TestLoadPets: the errors of reading a -pets file, and of an animal list
// that petstoretest refuses although each animal is fine (the decoding
// itself is TestDecodePets's).
func TestLoadPets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		want    []petstore.Pet
		wantErr string // the error after "-pets FILE: ", or its start
	}{
		{name: "ids kept and given", content: `[{"id":7,"name":"Rex","categoryId":1},{"name":"Tom","categoryId":2}]`,
			want: []petstore.Pet{{ID: 7, Name: "Rex", CategoryID: 1}, {Name: "Tom", CategoryID: 2}}},
		{name: "a bad animal", content: `[{"categoryId":1}]`, wantErr: "animal 1: name is required"},
		{name: "no id left after the largest", content: `[{"id":9223372036854775807,"name":"Rex","categoryId":1},{"name":"Tom","categoryId":2}]`,
			wantErr: "ID 9223372036854775807 leaves no id for the animals after it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := filepath.Join(t.TempDir(), "pets.json")
			if err := os.WriteFile(name, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := loadPets(name, "-pets")
			if tc.wantErr != "" {
				if want := "-pets " + name + ": " + tc.wantErr; err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("loadPets(%s) = %v, want an error starting %q", tc.content, err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("loadPets(%s): %v", tc.content, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("loadPets(%s) mismatch (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}

// TestJournalDefault: -journal's default is petstoretest's bound, which
// the program cannot read without making a server, and -h says it.
func TestJournalDefault(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewUnstartedServer()
	defer srv.Close()
	n := srv.MaxJournalEntries
	var stderr bytes.Buffer
	cfg, err := parseConfig(nil, getenvOf(nil), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Journal != n {
		t.Errorf("-journal's default is %d, petstoretest's %d", cfg.Journal, n)
	}
	if want := fmt.Sprintf("(default %d;", n); !strings.Contains(usage, want) {
		t.Errorf("the usage does not say %q", want)
	}
}
