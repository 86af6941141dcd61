package main

import (
	"bufio"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// TestCheck runs check against the in-process fake, which keeps to the
// interface, and against one that ignores limit, which does not. Its first
// line names the target: with -staging and -base-url, the fake (-base-url
// wins over -staging, which wins over the fake's PETSTORE_BASE_URL).
func TestCheck(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"check"}, {"check", "-write"}, {"-staging", "check"}, {"check", "-write", "-staging"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			srv := newFake(t)
			if slices.Contains(args, "-staging") {
				args = append(args, "-base-url", srv.URL)
			}
			got := runCLI(t, fakeEnv(srv), args...)
			if got.code != exitOK {
				t.Errorf("exit status %d; want %d\nstdout:\n%s\nstderr: %s", got.code, exitOK, got.stdout, got.stderr)
			}
			checkReport(t, got.stdout, false)
			checkTarget(t, got.stdout, srv.URL)
			write := slices.Contains(args, "-write")
			if created := len(srv.Created()); (created == 1) != write {
				t.Errorf("%d animals created; want 1 with -write only", created)
			}
		})
	}
	t.Run("a fake that ignores limit", func(t *testing.T) {
		t.Parallel()
		srv := petstoretest.NewUnstartedServer()
		for _, p := range []petstore.Pet{rex, tom, kiwi} {
			srv.AddPet(petstore.NewPet{Name: p.Name, CategoryID: p.CategoryID, Status: p.Status})
		}
		next := srv.Config.Handler
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			q.Del("limit")
			r.URL.RawQuery = q.Encode()
			next.ServeHTTP(w, r)
		})
		srv.Start()
		t.Cleanup(srv.Close)
		got := runCLI(t, fakeEnv(srv), "check")
		if got.code != exitDeviation {
			t.Errorf("exit status %d; want %d\nstdout:\n%s\nstderr: %s", got.code, exitDeviation, got.stdout, got.stderr)
		}
		checkReport(t, got.stdout, true)
	})
}

// TestCheckWriteRefusesProduction: check -write sends nothing to
// production, however its URL is written, unless -production is given.
func TestCheckWriteRefusesProduction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		env        []string
		wantCode   int
		wantSeen   []string
		wantTarget string // check's first line, when it runs
	}{
		{"by default", []string{"check", "-write"}, nil, exitUsage, nil, ""},
		{"upper case, port 443", []string{"-base-url", "https://PETSTORE.Example.COM:443/v1", "check", "-write"}, nil, exitUsage, nil, ""},
		{"from PETSTORE_BASE_URL", []string{"check", "-write"}, []string{"PETSTORE_BASE_URL=https://petstore.example.com/v1/"}, exitUsage, nil, ""},
		{"with -production", []string{"-retries", "0", "check", "-write", "-production"}, nil, exitFailure, []string{"CONNECT petstore.example.com:443"}, petstore.ProductionURL},
		{"read-only", []string{"-retries", "0", "check"}, nil, exitFailure, []string{"CONNECT petstore.example.com:443"}, petstore.ProductionURL},
		{"staging", []string{"-retries", "0", "-staging", "check", "-write"}, nil, exitFailure, []string{"CONNECT staging.petstore.example.com:443"}, petstore.StagingURL},
		{"staging after the command", []string{"check", "-write", "-staging", "-retries", "0"}, nil, exitFailure, []string{"CONNECT staging.petstore.example.com:443"}, petstore.StagingURL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newProxy(t)
			got := runCLI(t, append(append(p.env(), "PETSTORE_API_KEY=some-key"), tc.env...), tc.args...)
			if got.code != tc.wantCode {
				t.Errorf("exit status %d; want %d\nstdout: %s\nstderr: %s", got.code, tc.wantCode, got.stdout, got.stderr)
			}
			if tc.wantCode == exitUsage && !strings.Contains(got.stderr, "-production") {
				t.Errorf("stderr %q does not say how to mean it", got.stderr)
			}
			if tc.wantCode != exitUsage {
				checkTarget(t, got.stdout, tc.wantTarget)
			}
			if diff := cmp.Diff(tc.wantSeen, p.seen()); diff != "" {
				t.Errorf("requests through the proxy (-want +got):\n%s", diff)
			}
		})
	}
}

// checkTarget checks that check's first line names base, the URL it checks.
func checkTarget(t *testing.T, stdout, base string) {
	t.Helper()
	first, _, _ := strings.Cut(stdout, "\n")
	if want := "INFO target " + base; first != want {
		t.Errorf("check's first line is %q; want %q", first, want)
	}
}

// checkReport checks check's output: lines that start with PASS, FAIL or
// INFO, at least one FAIL exactly when wantFail, then the summary.
func checkReport(t *testing.T, stdout string, wantFail bool) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-1], "summary: ") {
		t.Fatalf("check printed %q; want result lines, then a summary", stdout)
	}
	fails := 0
	for _, l := range lines[:len(lines)-1] {
		verdict, _, _ := strings.Cut(l, " ")
		switch verdict {
		case "FAIL":
			fails++
		case "PASS", "INFO":
		default:
			t.Errorf("line %q starts with neither PASS, FAIL nor INFO", l)
		}
	}
	if (fails > 0) != wantFail {
		t.Errorf("%d FAIL lines; want some: %v\n%s", fails, wantFail, stdout)
	}
}

// TestWithFakeProgram runs each subcommand against petstore-fake, the
// program, as an integration script would: eval its two export lines, then
// call.
func TestWithFakeProgram(t *testing.T) {
	t.Parallel()
	_, fakeBin := programs(t)
	fake := exec.Command(fakeBin, "-addr", "127.0.0.1:0")
	fake.Env = cleanEnv()
	out, err := fake.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Process.Kill(); fake.Wait() })
	var env []string
	sc := bufio.NewScanner(out)
	for len(env) < 2 && sc.Scan() { // export NAME='value'
		kv := strings.TrimPrefix(sc.Text(), "export ")
		env = append(env, strings.ReplaceAll(kv, "'", "")) // neither holds a quote
	}
	if len(env) != 2 {
		t.Fatalf("petstore-fake printed %q, want two export lines", env)
	}
	steps := []struct {
		args     []string
		wantCode int
		wantOut  string
	}{
		{[]string{"list"}, exitOK, "[]\n"},
		{[]string{"create", "-name", "Bella", "-category", "1", "-status", "available"}, exitOK, `{"id":1,"name":"Bella","categoryId":1,"status":"available"}` + "\n"},
		{[]string{"get", "1"}, exitOK, `{"id":1,"name":"Bella","categoryId":1,"status":"available"}` + "\n"},
		{[]string{"get", "2"}, exitNotFound, ""},
		{[]string{"list", "-limit", "0"}, exitOK, `[{"id":1,"name":"Bella","categoryId":1,"status":"available"}]` + "\n"},
	}
	for _, s := range steps {
		got := runCLI(t, env, s.args...)
		if got.code != s.wantCode || got.stdout != s.wantOut {
			t.Errorf("petstore %q: exit status %d, stdout %q; want %d, %q\nstderr: %s", s.args, got.code, got.stdout, s.wantCode, s.wantOut, got.stderr)
		}
	}
	got := runCLI(t, env, "check", "-write")
	if got.code != exitOK {
		t.Errorf("check -write: exit status %d; want 0\nstdout:\n%s\nstderr: %s", got.code, got.stdout, got.stderr)
	}
	checkReport(t, got.stdout, false)
}
