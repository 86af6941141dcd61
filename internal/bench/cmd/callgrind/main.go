// Command callgrind makes n calls of one operation with one client over the
// in-process transport, for counting instructions with valgrind: run it
// with -n 0 and with -n N under callgrind, and the difference of the two
// totals divided by N is the cost of one call. run.sh does this.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/petstore/petstore-go/internal/bench"
)

func main() {
	client := flag.String("client", "sdk", "client: hand, oapi-codegen, ogen, sdk or sdk+observer")
	op := flag.String("op", "ListPets", "operation: ListPets, CreatePet or GetPet")
	n := flag.Int("n", 100, "calls")
	flag.Parse()

	c, err := bench.InProcess(*client) // checks every operation's result once
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	call := c.Call[*op]
	if call == nil {
		fmt.Fprintf(os.Stderr, "unknown operation %q\n", *op)
		os.Exit(2)
	}
	ctx := context.Background()
	for range *n {
		if err := call(ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := c.Check(ctx, *op); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
