#!/bin/sh
# Measures ListPets' decoding alone: the SDK's decodePets (the root
# package's BenchmarkDecodePets) on the two ListPets bodies of this package,
# ASCII names (listpets) and non-ASCII ones (listpets-nonascii); and for
# scale, the ASCII body decoded with encoding/json (BenchmarkUnmarshalPets)
# and with go-faster/jx as ogen's client decodes it (BenchmarkDecodePetsJX,
# here):
#
#   internal/bench/decode.sh                  # default: -count 6
#   COUNT=10 internal/bench/decode.sh
#
# 1. go test -bench: ns per byte of body (sec/B), B/op and allocs/op.
# 2. Where valgrind is installed: instructions per byte, counted with
#    callgrind in the test binaries (GOGC=off, one P, as run.sh counts): a
#    run with -test.benchtime=(N+2)x minus one with 2x (go test runs the
#    function with b.N=1 first, then b.N=K), divided by N and by the body's
#    length.
set -eu
cd "$(dirname "$0")/../.."

COUNT=${COUNT:-6}
N=${N:-500}
out=${OUT:-$(mktemp -d)}

echo "go test -bench (count $COUNT); raw results in $out/decode.txt"
go test -run='^$' -bench='^(BenchmarkDecodePets|BenchmarkUnmarshalPets)$' -benchmem -count="$COUNT" . >"$out/decode.txt"
(cd internal/bench && go test -run='^$' -bench='^BenchmarkDecodePetsJX$' -benchmem -count="$COUNT" . >>"$out/decode.txt")
(cd internal/bench && go tool benchstat "$out/decode.txt")

if [ "${CALLGRIND:-1}" = 0 ] || ! command -v valgrind >/dev/null 2>&1; then
	exit 0
fi
echo
echo "callgrind: instructions per byte of body (N=$N, GOGC=off)"
CGO_ENABLED=0 go test -c -o "$out/root.test" .
(cd internal/bench && CGO_ENABLED=0 go test -c -o "$out/bench.test" .)
ir() { # test binary, benchmark, body, b.N
	GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$1" -test.run='^$' -test.bench="^$2\$/^body=$3\$" -test.benchtime="$4x" 2>&1 |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}
printf '%-24s %-18s %8s %14s %10s\n' decoder body bytes instr/decode instr/B
for row in "sdk root BenchmarkDecodePets listpets" "sdk root BenchmarkDecodePets listpets-nonascii" \
	"encoding/json root BenchmarkUnmarshalPets listpets" "jx bench BenchmarkDecodePetsJX listpets"; do
	set -- $row
	size=$(wc -c <"testdata/bench/$4.json")
	base=$(ir "$out/$2.test" "$3" "$4" 2)
	total=$(ir "$out/$2.test" "$3" "$4" $((N + 2)))
	per=$(((total - base) / N))
	printf '%-24s %-18s %8d %14d %10s\n' "$1" "$4" "$size" "$per" "$(awk "BEGIN { printf \"%.2f\", $per / $size }")"
done
