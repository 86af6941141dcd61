#!/bin/sh
# Benchmarks the SDK against the peer clients (see README "Performance").
#
#   internal/bench/run.sh            # default: -count 6, -benchtime 2000x
#   COUNT=10 BENCHTIME=1s internal/bench/run.sh
#   CALLGRIND=0 internal/bench/run.sh   # skip the instruction counts
#
# 1. go test -bench over an in-process transport (canned responses: only the
#    client's work counts) and over loopback HTTP, then benchstat with one
#    column per client.
# 2. Where valgrind is installed: instructions per call (in process), counted
#    with callgrind: a run of N calls minus a run of 0 calls, divided by N,
#    with the garbage collector off (GOGC=off). The GC's work depends on when
#    it happens to run, so counted with it the figures moved by up to 5x from
#    run to run; without it they repeat within 1 %. What the GC costs follows
#    from B/op and allocs/op, which part 1 reports beside them.
#    Unlike ns/op, these counts barely move on a busy machine.
set -eu
cd "$(dirname "$0")"

COUNT=${COUNT:-6}
BENCHTIME=${BENCHTIME:-2000x}
N=${N:-500}
out=${OUT:-$(mktemp -d)}

echo "go test -bench (count $COUNT, benchtime $BENCHTIME); raw results in $out/bench.txt"
go test -run='^$' -bench='^BenchmarkClient$' -benchmem -count="$COUNT" -benchtime="$BENCHTIME" . >"$out/bench.txt"
go tool benchstat -col /client "$out/bench.txt"

if [ "${CALLGRIND:-1}" = 0 ] || ! command -v valgrind >/dev/null 2>&1; then
	exit 0
fi
echo
echo "callgrind: instructions per call, in process (N=$N, GOGC=off)"
# No cgo (valgrind and cgo's thread start do not mix), no asynchronous
# preemption (its signals trip callgrind), one P, no garbage collection.
CGO_ENABLED=0 go build -o "$out/callgrind" ./cmd/callgrind
ir() {
	GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$out/callgrind" -client "$1" -op "$2" -n "$3" 2>&1 |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}
printf '%-10s %14s %14s %14s %14s %14s\n' op hand oapi-codegen ogen sdk sdk+observer
for op in ListPets CreatePet GetPet ListPetsNonASCII; do
	line=$(printf '%-10s' "$op")
	for client in hand oapi-codegen ogen sdk sdk+observer; do
		base=$(ir "$client" "$op" 0)
		total=$(ir "$client" "$op" "$N")
		line="$line $(printf '%14s' "$(( (total - base) / N ))")"
	done
	echo "$line"
done
