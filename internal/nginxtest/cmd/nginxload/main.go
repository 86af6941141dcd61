//go:build unix

// Nginxload runs the load of package nginxtest's test once (nginx with TLS
// in front of petstore-fake, a small keepalive_requests, reloads during the
// load) and reports, for each client, the calls' latency (p50, p99, max)
// and what failed, from the same run: the SDK through its default
// transport, the SDK through WithHTTPClient, and plain net/http, with the
// same kind of transport. Run it from within the repository (it builds
// cmd/petstore-fake):
//
//	go run ./internal/nginxtest/cmd/nginxload [-calls 3000] [-g 64] [-keepalive 200] [-reloads 2] [-proto h2|h1] [-rounds 1]
//
// Latency is wall-clock time on a shared machine: compare the clients of
// one run, not runs of different days.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/petstore/petstore-go/internal/nginxtest"
)

func main() {
	calls := flag.Int("calls", 3000, "calls per client and round")
	goroutines := flag.Int("g", 64, "goroutines")
	keepalive := flag.Int("keepalive", 200, "nginx keepalive_requests")
	reloads := flag.Int("reloads", 2, "nginx reloads during each client's run")
	proto := flag.String("proto", "h2", "h2 (HTTP/2 by ALPN) or h1 (HTTP/1.1 only)")
	rounds := flag.Int("rounds", 1, "rounds; each runs every client once, in turn")
	only := flag.String("clients", strings.Join(nginxtest.Clients, ","), "clients to run, comma-separated: default (the SDK's default transport), noretry (the same with WithMaxRetries(0)), client (the SDK with WithHTTPClient), nethttp (requests by hand)")
	keep := flag.Bool("keep", false, "keep the directory with nginx's and the fake's logs, and print its name")
	flag.Parse()
	keepDir = *keep
	if err := run(*calls, *goroutines, *keepalive, *reloads, *proto, *rounds, strings.Split(*only, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "nginxload:", err)
		os.Exit(1)
	}
}

// keepDir is -keep.
var keepDir bool

func run(calls, goroutines, keepalive, reloads int, proto string, rounds int, only []string) error {
	dir, err := os.MkdirTemp("", "nginxload")
	if err != nil {
		return err
	}
	if keepDir {
		fmt.Fprintln(os.Stderr, "nginxload: logs in", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	pool, err := nginxtest.WriteCerts(dir)
	if err != nil {
		return err
	}
	// Before any TLS connection in this process: Go reads it once.
	os.Setenv("SSL_CERT_FILE", filepath.Join(dir, nginxtest.CAFile))

	fake, err := nginxtest.StartFake(dir)
	if err != nil {
		return err
	}
	defer fake.Stop()
	ngx, err := nginxtest.Start(dir, nginxtest.Proxy{Certs: dir, Upstream: fake.Addr, KeepaliveRequests: keepalive, Workers: 2})
	if err != nil {
		return err
	}
	defer ngx.Stop()
	url := ngx.H2URL
	if proto == "h1" {
		url = ngx.H1URL
	}
	var reloadAt []int
	for i := 1; i <= reloads; i++ {
		reloadAt = append(reloadAt, calls*i/(reloads+1))
	}

	fmt.Printf("nginx keepalive_requests %d, %d reloads per run, %s; %d goroutines, %d calls per client and round (1/3 CreatePet)\n\n",
		keepalive, reloads, proto, goroutines, calls)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "client\tcalls\terrors\tCreatePet errors\tcalls with a failed attempt\tretries\tp50\tp99\tmax\t")
	ctx := context.Background()
	for round := range rounds {
		for _, name := range only {
			ua := fmt.Sprintf("%s%d", name, round)
			c, err := nginxtest.NewCaller(name, url, fake.Key, ua, pool)
			if err != nil {
				return err
			}
			res := nginxtest.Run(ctx, c, nginxtest.Load{Goroutines: goroutines, Calls: calls, Prefix: ua, ReloadAt: reloadAt, Reload: ngx.Reload})
			creates := 0
			for _, e := range res.Errors {
				if e.Operation == "CreatePet" {
					creates++
				}
			}
			failed, retries := "-", "-"
			if sdk, ok := c.(*nginxtest.SDK); ok {
				a := sdk.Attempts()
				failed, retries = fmt.Sprint(a.CallsWithFailures), fmt.Sprint(a.Retries)
				for e, n := range a.Errs {
					fmt.Fprintf(os.Stderr, "%s: failed attempts: %d× %s\n", name, n, e)
				}
			}
			if h, ok := c.(*nginxtest.NetHTTP); ok {
				fmt.Fprintf(os.Stderr, "%s: calls by the number of times net/http sent them: %v\n", name, h.Sends())
			}
			all := res.Latency[""]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%v\t%v\t%v\t\n", name, len(all), len(res.Errors), creates, failed, retries,
				ms(nginxtest.Percentile(all, 50)), ms(nginxtest.Percentile(all, 99)), ms(nginxtest.Percentile(all, 100)))
			for _, e := range res.Errors[:min(len(res.Errors), 3)] {
				fmt.Fprintf(os.Stderr, "%s: %s: %v\n", name, e.Operation, e.Err)
			}
		}
	}
	return tw.Flush()
}

// ms rounds d to 0.1 ms.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}
