package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	checks "github.com/petstore/petstore-go/internal/check"
)

// check: petstore check [-write [-production]] [-junit FILE].
func check(fs *flag.FlagSet) action {
	var write, production bool
	var junit string
	fs.BoolVar(&write, "write", false, "also create one animal (the interface has no delete) and send a body without a name")
	fs.BoolVar(&production, "production", false, "with -write: allow it against production")
	fs.StringVar(&junit, "junit", "", "also write the results as a JUnit XML report to `FILE`, for CI")
	return func(ctx context.Context, e *env, _ []string) int {
		// A configuration NewClient refuses is bad usage, as for the other
		// commands; checks.Run would only say it cannot check.
		if c, code := e.client(); c == nil {
			return code
		}
		if write && !production && checks.IsProduction(e.base()) {
			return e.refuse("check -write would create an animal in production (%s); add -production to mean it", e.base())
		}
		var file *os.File
		if junit != "" { // before anything is sent: a report that cannot be written is known first
			var err error
			if file, err = os.Create(junit); err != nil {
				return e.fail(fmt.Errorf("-junit: %w", err))
			}
		}
		return e.check(ctx, write, file)
	}
}

// check runs the checks and writes their lines on stdout as each is known:
// first the target, last the summary; as text, or with -json one JSON
// object a line. With junit, it also writes the JUnit XML report there,
// and closes it.
func (e *env) check(ctx context.Context, write bool, junit *os.File) int {
	now := time.Now()
	rep := &report{e: e, start: now, last: now}
	rep.add(checks.Result{Verdict: checks.Info, Name: "target", Detail: e.red.String(e.base())})
	fails, err := checks.Run(ctx, checks.Config{Options: e.options(), Write: write}, rep.add) // Run redacts the key in Detail
	if err == nil {
		rep.summary()
	}
	code := exitOK
	switch {
	case err != nil:
		code = e.fail(err)
	case rep.werr != nil:
		code = e.fail(rep.werr)
	case fails > 0:
		code = exitDeviation
	}
	if junit != nil {
		jerr := rep.writeJUnit(junit, err)
		if cerr := junit.Close(); jerr == nil {
			jerr = cerr
		}
		if jerr != nil {
			e.fail(fmt.Errorf("-junit: %w", jerr))
			if code == exitOK || code == exitDeviation {
				code = exitFailure
			}
		}
	}
	return code
}

// report is what check wrote, and keeps for the JUnit report.
type report struct {
	e           *env
	results     []checks.Result
	times       []time.Duration // each result's, since the one before
	start, last time.Time
	werr        error // the first write error on stdout: the checks go on, their lines lost
}

// line is a line of check -json.
type line struct {
	Result  string `json:"result"` // PASS, FAIL, INFO, or SUMMARY
	Check   string `json:"check"`  // the check's name: "target" first, "summary" last
	Detail  string `json:"detail"`
	*Counts        // the summary's, beside its three
}

// Counts are the summary's: how many results of each verdict, the target
// counted as INFO.
type Counts struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Info   int `json:"info"`
}

// add writes r's line on stdout and keeps r.
func (rep *report) add(r checks.Result) {
	now := time.Now()
	rep.results, rep.times, rep.last = append(rep.results, r), append(rep.times, now.Sub(rep.last)), now
	rep.write(line{Result: string(r.Verdict), Check: r.Name, Detail: r.Detail})
}

// summary writes the summary line.
func (rep *report) summary() {
	var c Counts
	for _, r := range rep.results {
		switch r.Verdict {
		case checks.Pass:
			c.Passed++
		case checks.Fail:
			c.Failed++
		default:
			c.Info++
		}
	}
	rep.write(line{Result: "SUMMARY", Check: "summary", Detail: fmt.Sprintf("%d passed, %d failed, %d info", c.Passed, c.Failed, c.Info), Counts: &c})
}

// write writes l on stdout, as JSON with -json, else as text: "PASS name:
// detail", "INFO target URL", "summary: ...", the detail quoted if it
// holds a control character.
func (rep *report) write(l line) {
	if rep.werr != nil {
		return
	}
	var b []byte
	switch {
	case rep.e.json:
		b, rep.werr = encodeJSON(l)
	case l.Counts != nil:
		b = []byte("summary: " + l.Detail + "\n")
	case l.Check == "target":
		b = []byte(l.Result + " target " + quoteControl(oneLine(l.Detail)) + "\n")
	default:
		b = []byte(l.Result + " " + l.Check + ": " + quoteControl(oneLine(l.Detail)) + "\n")
	}
	if rep.werr == nil {
		_, rep.werr = rep.e.stdout.Write(b)
	}
}
