// Command benchserver serves the benchmark's canned responses (see
// bench.Handler) on a loopback port, so that a client can be measured over
// real sockets with the server in another process, whose work callgrind and
// the client's CPU time then leave out. It prints its URL
// (http://127.0.0.1:port) on stdout once it listens, and serves until
// killed. run.sh starts it.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/petstore/petstore-go/internal/bench"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	fmt.Fprintln(os.Stderr, http.Serve(ln, bench.Handler()))
	os.Exit(1)
}
