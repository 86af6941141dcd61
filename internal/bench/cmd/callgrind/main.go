// Command callgrind makes n calls of one operation with one client, for
// counting instructions with valgrind: run it with -n 0 and with -n N under
// callgrind, and the difference of the two totals divided by N is the cost
// of one call. run.sh does this.
//
// By default the calls go to the in-process transport (bench.Canned). With
// -url, they go over loopback to that server (cmd/benchserver, in another
// process, so that only the client's work is counted). With -g, they are
// made from that many goroutines at once.
//
// After the calls it prints, per call, the allocations and bytes allocated
// (runtime.MemStats) and the process's CPU time (user and system, from
// getrusage): the client's alone when the server is in another process.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/petstore/petstore-go/internal/bench"
)

func main() {
	client := flag.String("client", "sdk", "client: floor, hand, oapi-codegen, ogen, sdk, sdk+observer or sdk+transport (over loopback, the SDK through a plain *http.Transport of its own)")
	op := flag.String("op", "ListPets", "operation: ListPets, CreatePet or GetPet")
	n := flag.Int("n", 100, "calls")
	url := flag.String("url", "", "server to call over loopback (cmd/benchserver's URL); empty: in process")
	g := flag.Int("g", 1, "goroutines making the calls")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the calls measured to this file")
	memprofile := flag.String("memprofile", "", "write a profile of every allocation to this file (the set-up's too: compare with one of -n 0 as go tool pprof -base)")
	flag.Parse()
	if *memprofile != "" {
		runtime.MemProfileRate = 1
	}

	var c *bench.Client
	var err error
	if *url == "" {
		c, err = bench.InProcess(*client) // checks every operation's result once
	} else {
		c, err = bench.Loopback(*client, *url)
	}
	if err != nil {
		fail(err)
	}
	if c.Call[*op] == nil {
		fmt.Fprintf(os.Stderr, "unknown operation %q\n", *op)
		os.Exit(2)
	}
	ctx := context.Background()
	callers := c.Split(*g) // a Client per goroutine: each keeps its own result
	if *g > 1 {
		// One connection per goroutine, before measuring.
		if err := bench.Run(ctx, callers, *op, *g*10); err != nil {
			fail(err)
		}
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := cpuTime()
	if err := bench.Run(ctx, callers, *op, *n); err != nil {
		fail(err)
	}
	cpu := cpuTime() - cpu0
	pprof.StopCPUProfile()
	runtime.ReadMemStats(&m1)
	if err := c.Check(ctx, *op); err != nil {
		fail(err)
	}
	if *memprofile != "" {
		writeAllocs(*memprofile)
	}
	if *n > 0 {
		fmt.Printf("allocs/op %.1f B/op %.0f cpu-ns/op %.0f\n",
			float64(m1.Mallocs-m0.Mallocs)/float64(*n), float64(m1.TotalAlloc-m0.TotalAlloc)/float64(*n),
			float64(cpu)/float64(*n))
	}
}

// writeAllocs writes the profile of the allocations made so far to file.
func writeAllocs(file string) {
	f, err := os.Create(file)
	if err != nil {
		fail(err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
