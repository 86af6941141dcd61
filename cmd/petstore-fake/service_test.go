package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
)

// testEnvironment: with no arguments, the program takes everything from
// its variables, as a container or a CI service starts it.
func testEnvironment(t *testing.T, bin string) {
	f := startFakeEnv(t, bin, []string{
		"PETSTORE_FAKE_ADDR=127.0.0.1:0",
		"PETSTORE_FAKE_KEY=env-key_1",
		"PETSTORE_FAKE_PETS=testdata/pets.json",
		"PETSTORE_FAKE_FAULT=op=ListPets,status=503;op=GetPet,status=500",
		"PETSTORE_FAKE_LOG=json",
		"PETSTORE_FAKE_JOURNAL=2",
		"PETSTORE_FAKE_ALLOW_REMOTE=false",
	})
	baseURL, key := f.exports(t)
	if key != "env-key_1" {
		t.Errorf("exported key %q, want env-key_1", key)
	}
	c := newSDKClient(t, baseURL, key)
	pets, err := c.ListPets(context.Background(), petstore.ListPetsParams{}) // a 503, then the animals
	if err != nil || len(pets) != 3 {
		t.Errorf("ListPets: %d animals, %v; want the 3 of testdata/pets.json", len(pets), err)
	}
	resp, err := http.Get(baseURL + "/pets/1") // the GetPet fault, before the key
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 {
		t.Errorf("GET /pets/1: %d, want the fault's 500", resp.StatusCode)
	}
	got := call(t, baseURL, "Bearer "+key, "GET", "/_fake/requests", "")
	var journal []struct{ RequestID string }
	if err := json.Unmarshal([]byte(got.body), &journal); err != nil {
		t.Fatalf("GET /_fake/requests: %v: %s", err, got.body)
	}
	if diff := cmp.Diff([]struct{ RequestID string }{{"req-2"}, {"req-3"}}, journal); diff != "" {
		t.Errorf("journal of 2 (-want +got):\n%s", diff)
	}
	f.stop(t)
	for _, l := range f.stderr.Lines() {
		if !json.Valid([]byte(l)) {
			t.Errorf("stderr line %q is not JSON (PETSTORE_FAKE_LOG=json)", l)
		}
	}
}

// testEnvironmentErrors: a bad variable ends the program with exit status
// 2 and a message that names it, never the key's value; a flag wins over a
// bad variable.
func testEnvironmentErrors(t *testing.T, bin string) {
	const key = "sec ret-key-value"
	tests := []struct {
		name string
		env  []string
		args []string
		want string // the start of stderr, then the -h hint
		code int
	}{
		{"a bad key", []string{"PETSTORE_FAKE_KEY=" + key}, nil, "petstore-fake: PETSTORE_FAKE_KEY: petstore: API key: character 4 is a space", 2},
		{"not loopback", []string{"PETSTORE_FAKE_ADDR=0.0.0.0:0"}, nil, `petstore-fake: PETSTORE_FAKE_ADDR "0.0.0.0:0" is not a loopback address`, 2},
		{"allow-remote", []string{"PETSTORE_FAKE_ALLOW_REMOTE=yes"}, nil, `petstore-fake: PETSTORE_FAKE_ALLOW_REMOTE "yes": want true or false`, 2},
		{"journal", []string{"PETSTORE_FAKE_JOURNAL=-1"}, nil, "petstore-fake: PETSTORE_FAKE_JOURNAL -1: want a number of requests, 0 or more", 2},
		{"the flag wins", []string{"PETSTORE_FAKE_KEY=" + key, "PETSTORE_FAKE_LOG=xml"}, []string{"-key", "k", "-log", "yaml"},
			`petstore-fake: -log "yaml": want text or json`, 2},
		{"healthcheck: exit 1, not 2", []string{"PETSTORE_FAKE_ADDR=8080"}, []string{"-healthcheck"},
			`petstore-fake: PETSTORE_FAKE_ADDR "8080": want HOST:PORT`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFakeEnv(t, bin, tc.env, tc.args...)
			if code := f.wait(t); code != tc.code {
				t.Errorf("exit code = %d, want %d", code, tc.code)
			}
			stderr := f.stderr.String()
			if !strings.HasPrefix(stderr, tc.want) || !strings.HasSuffix(stderr, "\nRun petstore-fake -h for usage.\n") {
				t.Errorf("stderr = %q, want %q... then the -h hint", stderr, tc.want)
			}
			if strings.Contains(stderr, key) || strings.Contains(f.stdout.String(), key) {
				t.Errorf("the key's value is in the output: stderr %q, stdout %q", stderr, f.stdout.String())
			}
			if got := f.stdout.String(); got != "" {
				t.Errorf("stdout = %q, want nothing", got)
			}
		})
	}
}

// testHealthcheck: GET /_fake/health answers without a key, and
// -healthcheck exits 0 for a fake that serves, 1 for anything else.
func testHealthcheck(t *testing.T, bin string) {
	f := startFake(t, bin, "-addr", "127.0.0.1:0")
	baseURL, _ := f.exports(t)
	root := strings.TrimSuffix(baseURL, "/v1")
	addr := strings.TrimPrefix(root, "http://")
	if got := call(t, baseURL, "", "GET", "/_fake/health", ""); got.status != 200 || got.body != `{"status":"ok"}`+"\n" {
		t.Errorf("GET /_fake/health without a key: %d %q, want 200 {\"status\":\"ok\"}", got.status, got.body)
	}
	if got := call(t, baseURL, "", "GET", "/_fake/pets", ""); got.status != 401 {
		t.Errorf("GET /_fake/pets without a key: %d, want 401", got.status)
	}

	closed := closedAddr(t)
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_fake/health" {
			http.Error(w, `{"status":"starting"}`, http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(wrong.Close)
	tests := []struct {
		name       string
		env        []string
		args       []string
		code       int
		wantStdout string
		wantStderr string // its start
	}{
		{"its URL", nil, []string{"-healthcheck", root}, 0, "petstore-fake: " + root + "/_fake/health: ok\n", ""},
		{"its base URL", nil, []string{"-healthcheck", baseURL}, 0, "petstore-fake: " + root + "/_fake/health: ok\n", ""},
		{"PETSTORE_FAKE_ADDR", []string{"PETSTORE_FAKE_ADDR=" + addr}, []string{"-healthcheck"}, 0, "petstore-fake: " + root + "/_fake/health: ok\n", ""},
		{"-addr", nil, []string{"-addr", addr, "-healthcheck"}, 0, "petstore-fake: " + root + "/_fake/health: ok\n", ""},
		{"nothing listens", nil, []string{"-healthcheck", "http://" + closed}, 1, "",
			"petstore-fake: -healthcheck: Get \"http://" + closed + "/_fake/health\": dial tcp " + closed + ": connect: connection refused"},
		{"not healthy", nil, []string{"-healthcheck", wrong.URL}, 1, "",
			`petstore-fake: -healthcheck: GET ` + wrong.URL + `/_fake/health: 503 Service Unavailable "{\"status\":\"starting\"}\n", want 200 {"status":"ok"}`},
		{"not the fake", nil, []string{"-healthcheck", wrong.URL + "/v1"}, 1, "", "petstore-fake: -healthcheck: GET " + wrong.URL + "/_fake/health: 503 "},
		{"a bad URL", nil, []string{"-healthcheck", "ftp://x"}, 1, "", `petstore-fake: -healthcheck "ftp://x": want the fake's URL`},
		{"a bad flag: 1, not 2", nil, []string{"-healthcheck", "-journal=x"}, 1, "", `petstore-fake: invalid value "x" for flag -journal: parse error`},
		{"an unknown flag after it", nil, []string{"-healthcheck", "-nope", root}, 1, "", "petstore-fake: flag provided but not defined: -nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := startFakeEnv(t, bin, tc.env, tc.args...)
			if code := h.wait(t); code != tc.code {
				t.Errorf("exit code = %d, want %d; stderr %q", code, tc.code, h.stderr.String())
			}
			if got := h.stdout.String(); got != tc.wantStdout {
				t.Errorf("stdout = %q, want %q", got, tc.wantStdout)
			}
			if got := h.stderr.String(); !strings.HasPrefix(got, tc.wantStderr) || (tc.wantStderr == "") != (got == "") {
				t.Errorf("stderr = %q, want %q...", got, tc.wantStderr)
			}
		})
	}
	t.Cleanup(func() { f.stop(t) })
}

// closedAddr returns a loopback address where nothing listens: one that
// was free a moment ago.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestJournalRSS runs the program (built without -race, whose shadow
// memory would swamp the figures) and reads its resident memory from
// /proc under requests that would swell an unbounded journal.
func TestJournalRSS(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sends 300 MiB")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/PID/status to read the resident memory from")
	}
	bin := build(t, false)
	t.Run("Bodies", func(t *testing.T) { t.Parallel(); testRSSBodies(t, bin) })
	t.Run("Hostile", func(t *testing.T) { t.Parallel(); testRSSHostile(t, bin) })
}

// testRSSBodies sends 300 POSTs of 1 MiB without the key, reads GET
// /_fake/requests, and reads the program's peak resident memory (VmHWM):
// the bounded journal (300 bodies of 64 KiB, 19 MiB) and the answer
// written entry by entry keep it small, where the whole journal (300 MiB)
// and an answer built whole took it past 1 GiB.
func testRSSBodies(t *testing.T, bin string) {
	f := startFake(t, bin, "-addr", "127.0.0.1:0")
	baseURL, key := f.exports(t)
	body := strings.Repeat("a", 1<<20)
	client := &http.Client{}
	for range 300 {
		resp, err := client.Post(baseURL+"/pets", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("POST /pets without the key: %d, want 401", resp.StatusCode)
		}
	}
	req, err := http.NewRequest("GET", strings.TrimSuffix(baseURL, "/v1")+"/_fake/requests", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var journal []requestJSON
	err = json.NewDecoder(resp.Body).Decode(&journal)
	resp.Body.Close()
	if err != nil || len(journal) != 300 || len(journal[299].Body) != 64<<10 {
		t.Fatalf("GET /_fake/requests: %d entries (%v), want 300 with 64 KiB of body each", len(journal), err)
	}
	hwm, rss := memoryOf(t, f.cmd.Process.Pid)
	t.Logf("petstore-fake after 300 refused 1 MiB POSTs and GET /_fake/requests: VmHWM %d MiB, VmRSS %d MiB", hwm>>20, rss>>20)
	if hwm > 96<<20 {
		t.Errorf("peak resident memory %d MiB, want under 96 MiB", hwm>>20)
	}
	f.stop(t)
}

// testRSSHostile sends requests of many small parts, without the key, as
// raw HTTP/1.1 on one connection: 60 with a query a&a&... of 1 MB (a
// request line net/http takes: under its 1 MiB MaxHeaderBytes, which the
// fake keeps), then 16 with 190,000 empty header values (760 KB of
// "A:\r\n" lines). The program's resident memory (VmRSS) stays under
// 128 MiB after each, the journal counting what it keeps (an unbounded
// count took it from 9 MB to 923 MB with the queries), and POST
// /_fake/reset gives the memory back (debug.FreeOSMemory): under 48 MiB.
func testRSSHostile(t *testing.T, bin string) {
	f := startFake(t, bin, "-addr", "127.0.0.1:0")
	baseURL, key := f.exports(t)
	_, start := memoryOf(t, f.cmd.Process.Pid)
	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(baseURL, "/v1"), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	query := "GET /v1/pets?" + strings.Repeat("a&", 500_000) + " HTTP/1.1\r\nHost: fake\r\n\r\n"
	headers := "GET /v1/pets HTTP/1.1\r\nHost: fake\r\n" + strings.Repeat("A:\r\n", 190_000) + "\r\n"
	for _, phase := range []struct {
		name     string
		requests int
		text     string
	}{{"60 queries of 1 MB", 60, query}, {"16 requests of 190,000 empty header values", 16, headers}} {
		for range phase.requests {
			if _, err := io.WriteString(conn, phase.text); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("%s: %v", phase.name, err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("%s: status %d, want 401: the fake refused the request itself", phase.name, resp.StatusCode)
			}
		}
		_, rss := memoryOf(t, f.cmd.Process.Pid)
		t.Logf("petstore-fake after %s: VmRSS %d MiB (%d MiB at the start)", phase.name, rss>>20, start>>20)
		if rss > 128<<20 {
			t.Errorf("after %s: resident memory %d MiB, want under 128 MiB", phase.name, rss>>20)
		}
	}
	if got := call(t, baseURL, "Bearer "+key, "POST", "/_fake/reset", ""); got.status != http.StatusNoContent {
		t.Fatalf("POST /_fake/reset: %d, want 204", got.status)
	}
	_, rss := memoryOf(t, f.cmd.Process.Pid)
	t.Logf("petstore-fake after POST /_fake/reset: VmRSS %d MiB", rss>>20)
	if rss > 48<<20 {
		t.Errorf("after POST /_fake/reset: resident memory %d MiB, want under 48 MiB", rss>>20)
	}
	f.stop(t)
}

// memoryOf returns the peak and the current resident memory of process
// pid, in bytes, from /proc/PID/status.
func memoryOf(t *testing.T, pid int) (hwm, rss int64) {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		name, value, _ := strings.Cut(line, ":")
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		switch {
		case name != "VmHWM" && name != "VmRSS":
		case err != nil:
			t.Fatalf("/proc/%d/status: %q: %v", pid, line, err)
		case name == "VmHWM":
			hwm = kb << 10
		default:
			rss = kb << 10
		}
	}
	if hwm == 0 || rss == 0 {
		t.Fatal(errors.New("no VmHWM or VmRSS in /proc/" + strconv.Itoa(pid) + "/status"))
	}
	return hwm, rss
}

// TestJournalHeap sends the fake with its control API, in process, 300
// POSTs of 1 MiB without the key and reads GET /_fake/requests: the heap
// it keeps stays under 64 MiB (the bodies weigh 300 MiB, the answer 19
// MB). Not parallel: it measures the process's heap while the parallel
// tests wait.
func TestJournalHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 300 MiB")
	}
	srv := newControlServer(t)
	body := strings.Repeat("a", 1<<20)
	before := heap()
	for range 300 {
		if got := call(t, srv.URL, "", "POST", "/v1/pets", body); got.status != http.StatusUnauthorized {
			t.Fatalf("POST /pets without the key: %d, want 401", got.status)
		}
	}
	req, err := http.NewRequest("GET", strings.TrimSuffix(srv.URL, "/v1")+"/_fake/requests", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /_fake/requests: %d, %v", resp.StatusCode, err)
	}
	after := heap()
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("300 refused 1 MiB POSTs, GET /_fake/requests (%d bytes): heap %.1f MiB more", n, float64(held)/(1<<20))
	if held > 64<<20 {
		t.Errorf("heap grew by %d MiB, want under 64 MiB", held>>20)
	}
}

// heap returns the memory statistics after a garbage collection.
func heap() runtime.MemStats {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}
