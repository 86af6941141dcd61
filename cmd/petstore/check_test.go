package main

import (
	"encoding/json"
	"encoding/xml"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
		srv := newCheckFake(t, ignoreLimit)
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
		{"with -production", []string{"-retries", "0", "check", "-write", "-production"}, nil, exitLater, []string{"CONNECT petstore.example.com:443"}, petstore.ProductionURL},
		{"read-only", []string{"-retries", "0", "check"}, nil, exitLater, []string{"CONNECT petstore.example.com:443"}, petstore.ProductionURL},
		{"staging", []string{"-retries", "0", "-staging", "check", "-write"}, nil, exitLater, []string{"CONNECT staging.petstore.example.com:443"}, petstore.StagingURL},
		{"staging after the command", []string{"check", "-write", "-staging", "-retries", "0"}, nil, exitLater, []string{"CONNECT staging.petstore.example.com:443"}, petstore.StagingURL},
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
	env := startFakeProgram(t)
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

// jsonLine is a line of check -json, as a program reading it decodes it.
type jsonLine struct {
	Result, Check, Detail string
	Passed, Failed, Info  *int
}

// TestCheckJSON: with -json, every line of check's stdout is one JSON
// object: the target first, one per check (the same checks, in the same
// order, with the same verdicts, as the text), and the summary last, whose
// counts are the lines'. Without -json the text is written, stdout being a
// pipe here.
func TestCheckJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		wrap     func(http.Handler) http.Handler
		wantCode int
	}{
		{"healthy", nil, exitOK},
		{"ignores limit", ignoreLimit, exitDeviation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newCheckFake(t, tc.wrap)
			text := runCLI(t, fakeEnv(srv), "check")
			got := runCLI(t, fakeEnv(srv), "check", "-json")
			if got.code != tc.wantCode || text.code != tc.wantCode {
				t.Fatalf("exit status %d with -json, %d without; want %d\nstdout:\n%s\nstderr: %s", got.code, text.code, tc.wantCode, got.stdout, got.stderr)
			}
			checkReport(t, text.stdout, tc.wantCode == exitDeviation)
			lines := decodeLines(t, got.stdout)
			if want := (jsonLine{Result: "INFO", Check: "target", Detail: srv.URL}); !cmp.Equal(want, lines[0]) {
				t.Errorf("first line %+v; want %+v", lines[0], want)
			}
			var want Counts
			var names, textNames []string
			for _, l := range lines[:len(lines)-1] {
				names = append(names, l.Result+" "+l.Check)
				switch l.Result {
				case "PASS":
					want.Passed++
				case "FAIL":
					want.Failed++
				case "INFO":
					want.Info++
				default:
					t.Errorf("line %+v: result is not PASS, FAIL or INFO", l)
				}
			}
			for _, l := range strings.Split(strings.TrimSuffix(text.stdout, "\n"), "\n") {
				verdict, rest, _ := strings.Cut(l, " ")
				name, _, _ := strings.Cut(rest, " ") // "target URL", "list-limit: detail"
				textNames = append(textNames, verdict+" "+strings.TrimSuffix(name, ":"))
			}
			if diff := cmp.Diff(textNames[:len(textNames)-1], names); diff != "" {
				t.Errorf("the JSON lines' verdicts and checks differ from the text's (-text +json):\n%s", diff)
			}
			last := lines[len(lines)-1]
			if last.Result != "SUMMARY" || last.Check != "summary" || last.Passed == nil || last.Failed == nil || last.Info == nil {
				t.Fatalf("last line %+v is not the summary", last)
			}
			if diff := cmp.Diff(want, Counts{*last.Passed, *last.Failed, *last.Info}); diff != "" {
				t.Errorf("summary counts (-lines +summary):\n%s", diff)
			}
		})
	}
}

// decodeLines decodes each line of stdout as one JSON object of check
// -json, with no member it does not know.
func decodeLines(t *testing.T, stdout string) []jsonLine {
	t.Helper()
	var lines []jsonLine
	for _, s := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		var l jsonLine
		if err := dec.Decode(&l); err != nil || dec.More() {
			t.Fatalf("line %q is not one JSON object of check -json: %v", s, err)
		}
		lines = append(lines, l)
	}
	if len(lines) < 3 {
		t.Fatalf("check -json printed %q; want the target, results and a summary", stdout)
	}
	return lines
}

// ignoreLimit is a fake's handler that drops the query's limit, which the
// interface forbids.
func ignoreLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		q.Del("limit")
		r.URL.RawQuery = q.Encode()
		next.ServeHTTP(w, r)
	})
}

// newCheckFake starts a fake with rex, tom and kiwi, its handler wrapped
// with wrap if not nil.
func newCheckFake(t *testing.T, wrap func(http.Handler) http.Handler) *petstoretest.Server {
	t.Helper()
	srv := petstoretest.NewUnstartedServer()
	for _, p := range []petstore.Pet{rex, tom, kiwi} {
		srv.AddPet(petstore.NewPet{Name: p.Name, CategoryID: p.CategoryID, Status: p.Status})
	}
	if wrap != nil {
		srv.Config.Handler = wrap(srv.Config.Handler)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// The JUnit report as a CI system reads it.
type (
	xmlSuites struct {
		XMLName  xml.Name   `xml:"testsuites"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Errors   int        `xml:"errors,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Suites   []xmlSuite `xml:"testsuite"`
	}
	xmlSuite struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Errors     int    `xml:"errors,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []xmlCase `xml:"testcase"`
	}
	xmlCase struct {
		Name      string `xml:"name,attr"`
		Classname string `xml:"classname,attr"`
		Time      string `xml:"time,attr"`
		Failure   *struct {
			Message string `xml:"message,attr"`
		} `xml:"failure"`
		Error *struct {
			Message string `xml:"message,attr"`
		} `xml:"error"`
		Skipped *struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
		SystemOut string `xml:"system-out"`
	}
)

// TestCheckJUnit: check -junit FILE writes a JUnit XML report that
// encoding/xml reads: one testsuite, the target a property, one testcase
// per check line of stdout, in order, a FAIL a failure and an INFO skipped,
// each with the line's detail; a run the deployment ends early (a wrong
// key) adds an error. A FILE that cannot be created stops check before it
// sends anything.
func TestCheckJUnit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		wrap     func(http.Handler) http.Handler
		env      []string
		wantCode int
	}{
		{"healthy", nil, nil, exitOK},
		{"ignores limit", ignoreLimit, nil, exitDeviation},
		{"wrong key", nil, []string{"PETSTORE_API_KEY=wrong-key"}, exitAuth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newCheckFake(t, tc.wrap)
			file := filepath.Join(t.TempDir(), "report.xml")
			got := runCLI(t, append(fakeEnv(srv), tc.env...), "check", "-junit", file)
			if got.code != tc.wantCode {
				t.Fatalf("exit status %d; want %d\nstdout:\n%s\nstderr: %s", got.code, tc.wantCode, got.stdout, got.stderr)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var report xmlSuites
			if err := xml.Unmarshal(b, &report); err != nil {
				t.Fatalf("the report is not XML encoding/xml reads: %v\n%s", err, b)
			}
			if len(report.Suites) != 1 {
				t.Fatalf("%d testsuites; want 1\n%s", len(report.Suites), b)
			}
			s := report.Suites[0]
			var want []xmlCase
			var fails, skipped int
			lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
			for _, l := range lines[1:] {
				verdict, rest, _ := strings.Cut(l, " ")
				name, detail, _ := strings.Cut(rest, ": ")
				c := xmlCase{Name: name, Classname: "petstore.check"}
				switch verdict {
				case "FAIL":
					c.Failure = &struct {
						Message string `xml:"message,attr"`
					}{detail}
					fails++
				case "INFO":
					c.Skipped = &struct {
						Message string `xml:"message,attr"`
					}{detail}
					skipped++
				case "PASS":
					c.SystemOut = detail
				default:
					continue // the summary
				}
				want = append(want, c)
			}
			errors := 0
			if tc.wantCode == exitAuth {
				errors = 1
				if n := len(s.Cases); n == 0 || s.Cases[n-1].Error == nil || !strings.Contains(s.Cases[n-1].Error.Message, "401 unauthorized") {
					t.Fatalf("the last testcase is not the run's error, 401 unauthorized:\n%s", b)
				}
				s.Cases = s.Cases[:len(s.Cases)-1]
			}
			if diff := cmp.Diff(want, s.Cases, cmpopts.IgnoreFields(xmlCase{}, "Time"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("testcases (-stdout +report):\n%s", diff)
			}
			wantCounts := []int{len(want) + errors, fails, errors, skipped}
			if diff := cmp.Diff(wantCounts, []int{s.Tests, s.Failures, s.Errors, s.Skipped}); diff != "" {
				t.Errorf("testsuite tests, failures, errors, skipped (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantCounts, []int{report.Tests, report.Failures, report.Errors, report.Skipped}); diff != "" {
				t.Errorf("testsuites tests, failures, errors, skipped (-want +got):\n%s", diff)
			}
			if len(s.Properties) != 1 || s.Properties[0].Name != "target" || s.Properties[0].Value != srv.URL {
				t.Errorf("properties %+v; want target %s", s.Properties, srv.URL)
			}
		})
	}
	t.Run("a FILE that cannot be created", func(t *testing.T) {
		t.Parallel()
		srv := newCheckFake(t, nil)
		got := runCLI(t, fakeEnv(srv), "check", "-junit", filepath.Join(t.TempDir(), "no-such-dir", "report.xml"))
		if got.code != exitFailure || !strings.HasPrefix(got.stderr, "petstore: -junit: ") || got.stdout != "" {
			t.Errorf("exit status %d, stdout %q, stderr %q; want %d, nothing, petstore: -junit: ...", got.code, got.stdout, got.stderr, exitFailure)
		}
		if n := srv.Requests(); n != 0 {
			t.Errorf("the fake received %d requests; want none", n)
		}
	})
}
