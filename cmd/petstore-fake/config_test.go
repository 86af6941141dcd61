package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
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
	tests := []struct {
		name string
		args []string
		want config
	}{
		{"defaults", nil, config{Log: "text", Addr: "127.0.0.1:8080"}},
		{"a free port", []string{"-addr", "127.0.0.1:0"}, config{Log: "text", Addr: "127.0.0.1:0"}},
		{"localhost", []string{"-addr=localhost:9000"}, config{Log: "text", Addr: "localhost:9000"}},
		{"IPv6 loopback", []string{"-addr", "[::1]:0"}, config{Log: "text", Addr: "[::1]:0"}},
		{"another loopback address", []string{"-addr", "127.0.0.2:0"}, config{Log: "text", Addr: "127.0.0.2:0"}},
		{"every interface, allowed", []string{"-allow-remote", "-addr", "0.0.0.0:8080"},
			config{Log: "text", Addr: "0.0.0.0:8080", AllowRemote: true}},
		{"a key", []string{"-key", "my-key_1.0~+/=="}, config{Log: "text", Addr: "127.0.0.1:8080", Key: "my-key_1.0~+/=="}},
		{"json log", []string{"-log", "json"}, config{Log: "json", Addr: "127.0.0.1:8080"}},
		{"version", []string{"-version"}, config{Version: true}},
		{"version, other flags ignored", []string{"-addr", "0.0.0.0:1", "-pets", "testdata/no-name.json", "-version", "serve"}, config{Version: true}},
		{"pets", []string{"-pets", "testdata/pets.json"}, config{Log: "text", Addr: "127.0.0.1:8080", Pets: testdataPets}},
		{
			name: "faults, in order",
			args: []string{"-fault", "op=ListPets,count=2,status=503", "-fault", "delay=1s"},
			want: config{Log: "text", Addr: "127.0.0.1:8080", Faults: []petstoretest.Fault{
				{Operation: "ListPets", Count: 2, Status: 503},
				{Delay: time.Second},
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			got, err := parseConfig(tc.args, &stderr)
			if err != nil {
				t.Fatalf("parseConfig(%q): %v", tc.args, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parseConfig(%q) mismatch (-want +got):\n%s", tc.args, diff)
			}
			if stderr.Len() > 0 {
				t.Errorf("parseConfig(%q) wrote %q, want nothing", tc.args, stderr.String())
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string // the error, or its start when it ends with an OS or JSON message
	}{
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"serve"}, `unexpected argument "serve": petstore-fake takes only flags`},
		{[]string{"-addr", "0.0.0.0:8080"}, `-addr "0.0.0.0:8080" is not a loopback address; use 127.0.0.1, ::1 or localhost, or add -allow-remote`},
		{[]string{"-addr", "[::]:0"}, `-addr "[::]:0" is not a loopback address`},
		{[]string{"-addr", "192.168.1.10:0"}, `-addr "192.168.1.10:0" is not a loopback address`},
		{[]string{"-addr", "example.com:80"}, `-addr "example.com:80" is not a loopback address`},
		{[]string{"-addr", ":8080"}, `-addr ":8080" listens on every interface; use 127.0.0.1`},
		{[]string{"-addr", "127.0.0.1"}, `-addr "127.0.0.1": want HOST:PORT, such as 127.0.0.1:8080`},
		{[]string{"-addr", "127.0.0.1:http"}, `-addr "127.0.0.1:http": port "http" is not a number from 0 to 65535`},
		{[]string{"-addr", "127.0.0.1:65536"}, `-addr "127.0.0.1:65536": port "65536" is not a number from 0 to 65535`},
		{[]string{"-allow-remote", "-addr", "0.0.0.0"}, `-addr "0.0.0.0": want HOST:PORT`},
		{[]string{"-key", "   "}, "-key is blank"},
		{[]string{"-log", "JSON"}, `-log "JSON": want text or json`},
		{[]string{"-log", ""}, `-log "": want text or json`},
		{[]string{"-key", "my key"}, "-key: petstore: API key: character 3 is a space (stray whitespace?)"},
		{[]string{"-key", `"k"`}, "-key: petstore: API key: character 1 is a quote"},
		{[]string{"-fault", "status=200"}, `invalid value "status=200" for flag -fault: status "200" is not an error status (400..599)`},
		{[]string{"-fault", "disconnect,status=503"}, `invalid value "disconnect,status=503" for flag -fault: Disconnect sends nothing: it cannot go with Status, Body or CutBody`},
		{[]string{"-pets", "testdata/no-such-file.json"}, "-pets: open testdata/no-such-file.json: "},
		{[]string{"-pets", "testdata"}, "-pets: read testdata: "},
		{[]string{"-pets", "testdata/not-an-array.json"}, "-pets testdata/not-an-array.json: want a JSON array of animals"},
		{[]string{"-pets", "testdata/no-name.json"}, "-pets testdata/no-name.json: animal 2: name is required"},
	}
	for _, tc := range tests {
		var stderr bytes.Buffer
		_, err := parseConfig(tc.args, &stderr)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("parseConfig(%q) = %v, want an error starting %q", tc.args, err, tc.want)
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
		_, err := parseConfig([]string{arg}, &stderr)
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
			got, err := loadPets(name)
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
