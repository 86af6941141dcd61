#!/bin/sh
# Benchmarks the SDK against the peer clients (see README "Performance").
#
#   internal/bench/run.sh            # default: -count 6, -benchtime 2000x
#   COUNT=10 BENCHTIME=1s internal/bench/run.sh
#   CALLGRIND=0 internal/bench/run.sh   # skip the instruction counts
#   LOOPBACK=0 internal/bench/run.sh    # skip parts 3 and 4 (PARTS='1 2')
#   PARTS=3 internal/bench/run.sh       # the loopback comparison alone: about 3 minutes
#
# PARTS lists the parts to run (default '1 2 3 4'); OPS, part 3's operations
# (default 'ListPets CreatePet GetPet ListPetsNonASCII').
#
# Where the bytes of a call go: cmd/callgrind -memprofile, a run of N calls
# against one of 0 (go tool pprof -sample_index=alloc_space -base).
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
# 3. Over loopback, the server in another process (cmd/benchserver): the
#    client's instructions per call (callgrind as in 2, over NL calls), and its allocations
#    and bytes per call (runtime.MemStats over N2 calls, GC off), for the
#    floor (request out, http.Client.Do, body read, nothing decoded), ogen
#    and the SDK, through its default (shared) transport (sdk), through
#    WithHTTPClient with a plain *http.Transport cloned from
#    http.DefaultTransport (sdk+transport), and with an observer
#    (sdk+observer); each one's ratio to the floor. Then the SDK's ratios to
#    ogen, each against its target (issue 22): GetPet and CreatePet at most
#    1.05x ogen's instructions, allocations and bytes per call, ListPets at
#    most 0.6x ogen's instructions; a line per figure says pass or FAIL, and
#    the last line sums them up.
# 4. Client CPU time per call (getrusage: user and system, the client's
#    process alone) with 64 goroutines over loopback, ROUNDS runs of each of
#    ogen and the SDK, interleaved, of CPUN calls each; the median of each.
#    This one is noisy on a busy machine; the median of interleaved runs is
#    what to compare. Then, where valgrind is installed, the instructions per
#    call of the same 64 goroutines on one P (callgrind, NG calls), which
#    barely move.
set -eu
cd "$(dirname "$0")"

COUNT=${COUNT:-6}
BENCHTIME=${BENCHTIME:-2000x}
N=${N:-500}
out=${OUT:-$(mktemp -d)}
if [ "${LOOPBACK:-1}" = 0 ]; then
	PARTS=${PARTS:-1 2}
fi
PARTS=${PARTS:-1 2 3 4}
# part reports whether part $1 is to run.
part() {
	case " $PARTS " in *" $1 "*) return 0 ;; esac
	return 1
}

if part 1; then
	echo "go test -bench (count $COUNT, benchtime $BENCHTIME); raw results in $out/bench.txt"
	go test -run='^$' -bench='^BenchmarkClient$' -benchmem -count="$COUNT" -benchtime="$BENCHTIME" . >"$out/bench.txt"
	go tool benchstat -col /client "$out/bench.txt"
fi

CALLGRIND=${CALLGRIND:-1}
if ! command -v valgrind >/dev/null 2>&1; then
	CALLGRIND=0
fi
# No cgo (valgrind and cgo's thread start do not mix).
CGO_ENABLED=0 go build -o "$out/callgrind" ./cmd/callgrind
CGO_ENABLED=0 go build -o "$out/benchserver" ./cmd/benchserver
# ir prints the instructions of one call: a run of n calls (N, else the
# first argument given as n=...) minus a run of 0, divided by n. No
# asynchronous preemption (its signals trip callgrind), one P, no garbage
# collection.
ir() {
	n=$N
	case $1 in n=*) n=${1#n=}; shift ;; esac
	base=$(GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$out/callgrind" -n 0 "$@" 2>&1 | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
	total=$(GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$out/callgrind" -n "$n" "$@" 2>&1 | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
	echo $(( (total - base) / n ))
}

if [ "$CALLGRIND" != 0 ] && part 2; then
	echo
	echo "callgrind: instructions per call, in process (N=$N, GOGC=off)"
	printf '%-16s %12s %12s %12s %12s %12s %12s\n' op floor hand oapi-codegen ogen sdk sdk+observer
	for op in ListPets CreatePet GetPet ListPetsNonASCII; do
		line=$(printf '%-16s' "$op")
		for client in floor hand oapi-codegen ogen sdk sdk+observer; do
			line="$line $(printf '%12s' "$(ir -client "$client" -op "$op")")"
		done
		echo "$line"
	done
fi

if ! part 3 && ! part 4; then
	exit 0
fi
rm -f "$out/url"
"$out/benchserver" >"$out/url" &
server=$!
trap 'kill $server' EXIT
while [ ! -s "$out/url" ]; do sleep 0.1; done
url=$(cat "$out/url")

if part 3; then
	N2=${N2:-2000}
	NL=${NL:-2000}
	echo
	echo "over loopback, the server in another process: the client's instructions (callgrind, NL=$NL), allocations and bytes (N2=$N2) per call, GOGC=off"
	printf '%-16s %-13s %12s %10s %10s %10s\n' op client instructions allocs bytes x-floor
	: >"$out/loopback.txt"
	for op in ${OPS:-ListPets CreatePet GetPet ListPetsNonASCII}; do
		floor=
		for client in floor ogen sdk sdk+transport sdk+observer; do
			mem=$(GOGC=off "$out/callgrind" -url "$url" -client "$client" -op "$op" -n "$N2")
			allocs=$(echo "$mem" | awk '{print $2}')
			bytes=$(echo "$mem" | awk '{print $4}')
			instr=-
			ratio=-
			if [ "$CALLGRIND" != 0 ]; then
				instr=$(ir n="$NL" -url "$url" -client "$client" -op "$op")
				if [ -z "$floor" ]; then floor=$instr; fi
				ratio=$(awk "BEGIN{printf \"%.3f\", $instr/$floor}")
			fi
			printf '%-16s %-13s %12s %10s %10s %10s\n' "$op" "$client" "$instr" "$allocs" "$bytes" "$ratio"
			echo "$op $client $instr $allocs $bytes" >>"$out/loopback.txt"
		done
	done

	echo
	echo "the SDK's ratios to ogen over loopback, against the targets: GetPet, CreatePet <= 1.05 on each figure; ListPets <= 0.60 in instructions"
	awk '
	# verdict judges ratio r of figure fig (instr, allocs, bytes) of op
	# against its target, if it has one.
	function verdict(op, fig, r,    limit) {
		if (op == "GetPet" || op == "CreatePet") limit = 1.05
		else if (op == "ListPets" && fig == "instr") limit = 0.60
		else return ""
		if (r == "-") {
			unjudged++
			return "not counted"
		}
		judged++
		if (r + 0 <= limit) return "pass"
		failed++
		failures = failures " " op "/" client "/" fig
		return "FAIL"
	}
	function ratio(a, b) { return (a == "-" || b == "-" || b == 0) ? "-" : sprintf("%.3f", a / b) }
	{ instr[$1, $2] = $3; allocs[$1, $2] = $4; bytes[$1, $2] = $5; seen[$1] = 1 }
	END {
		printf "%-16s %-13s %-13s %-13s %-13s\n", "op", "client", "instructions", "allocs", "bytes"
		split("ListPets CreatePet GetPet", ops, " ")
		split("sdk sdk+transport", clients, " ")
		for (i = 1; i <= 3; i++) {
			op = ops[i]
			if (!seen[op]) continue
			for (j = 1; j <= 2; j++) {
				client = clients[j]
				ri = ratio(instr[op, client], instr[op, "ogen"])
				ra = ratio(allocs[op, client], allocs[op, "ogen"])
				rb = ratio(bytes[op, client], bytes[op, "ogen"])
				printf "%-16s %-13s %-13s %-13s %-13s\n", op, client,
					ri " " verdict(op, "instr", ri), ra " " verdict(op, "allocs", ra), rb " " verdict(op, "bytes", rb)
			}
		}
		if (failed) printf "targets: %d of %d FAIL:%s", failed, judged, failures
		else printf "targets: all %d pass", judged
		if (unjudged) printf " (%d not counted: no callgrind)", unjudged
		printf "\n"
	}' "$out/loopback.txt"
fi

if ! part 4; then
	exit 0
fi
ROUNDS=${ROUNDS:-7}
CPUN=${CPUN:-20000}
echo
echo "client CPU per call, 64 goroutines over loopback: median of $ROUNDS interleaved runs of $CPUN calls"
: >"$out/cpu.txt"
for round in $(seq "$ROUNDS"); do
	for op in ListPets CreatePet GetPet; do
		for client in ogen sdk; do
			ns=$("$out/callgrind" -url "$url" -client "$client" -op "$op" -n "$CPUN" -g 64 | awk '{print $6}')
			echo "$op $client $ns" >>"$out/cpu.txt"
		done
	done
done
median() {
	grep "^$1 $2 " "$out/cpu.txt" | awk '{print $3}' | sort -n | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}
printf '%-16s %14s %14s %8s\n' op ogen-ns/call sdk-ns/call sdk/ogen
for op in ListPets CreatePet GetPet; do
	o=$(median "$op" ogen)
	s=$(median "$op" sdk)
	printf '%-16s %14s %14s %8s\n' "$op" "$o" "$s" "$(awk "BEGIN{printf \"%.3f\", $s/$o}")"
done

if [ "$CALLGRIND" != 0 ]; then
	NG=${NG:-1000}
	echo
	echo "the same in instructions, the same 64 goroutines on one P under callgrind (NG=$NG, GOGC=off): steady where CPU time is not"
	printf '%-16s %14s %14s %8s\n' op ogen-instr sdk-instr sdk/ogen
	for op in ListPets CreatePet GetPet; do
		o=$(ir n="$NG" -url "$url" -client ogen -op "$op" -g 64)
		s=$(ir n="$NG" -url "$url" -client sdk -op "$op" -g 64)
		printf '%-16s %14s %14s %8s\n' "$op" "$o" "$s" "$(awk "BEGIN{printf \"%.3f\", $s/$o}")"
	done
fi
