#!/bin/sh
# Measures ListPets' decoding alone (decodePets, the root package's
# BenchmarkDecodePets) on the two ListPets bodies of this package, ASCII
# names (listpets) and non-ASCII ones (listpets-nonascii):
#
#   internal/bench/decode.sh                  # default: -count 6
#   COUNT=10 internal/bench/decode.sh
#
# 1. go test -bench: ns per byte of body (ns/B), B/op and allocs/op.
# 2. Where valgrind is installed: instructions per byte, counted with
#    callgrind in the test binary (GOGC=off, one P, as run.sh counts): a run
#    with -test.benchtime=(N+2)x minus one with 2x (go test runs the function
#    with b.N=1 first, then b.N=K), divided by N and by the body's length.
set -eu
cd "$(dirname "$0")/../.."

COUNT=${COUNT:-6}
N=${N:-500}
out=${OUT:-$(mktemp -d)}

echo "go test -bench (count $COUNT); raw results in $out/decode.txt"
go test -run='^$' -bench='^BenchmarkDecodePets$' -benchmem -count="$COUNT" . >"$out/decode.txt"
(cd internal/bench && go tool benchstat "$out/decode.txt")

if [ "${CALLGRIND:-1}" = 0 ] || ! command -v valgrind >/dev/null 2>&1; then
	exit 0
fi
echo
echo "callgrind: instructions per byte of body (N=$N, GOGC=off)"
CGO_ENABLED=0 go test -c -o "$out/decode.test" .
ir() {
	GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$out/decode.test" -test.run='^$' -test.bench="^BenchmarkDecodePets\$/^body=$1\$" -test.benchtime="$2x" 2>&1 |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}
printf '%-18s %8s %14s %10s\n' body bytes instr/decode instr/B
for body in listpets listpets-nonascii; do
	size=$(wc -c <"testdata/bench/$body.json")
	base=$(ir "$body" 2)
	total=$(ir "$body" $((N + 2)))
	per=$(((total - base) / N))
	printf '%-18s %8d %14d %10s\n' "$body" "$size" "$per" "$(awk "BEGIN { printf \"%.2f\", $per / $size }")"
done
