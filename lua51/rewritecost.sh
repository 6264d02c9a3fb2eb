#!/bin/sh
# rewritecost.sh measures what the loader's rewrite of chunks costs: the
# time to load (check, rewrite, compile) the project's Lua files
# (BenchmarkCompileProjectScripts) and the Lua overhead row
# (internal/bench's BenchmarkLuaLifecycleThreadCPU: the processor time of a
# lifecycle from Lua over one from Go), each built with the rewrite and
# without it (-tags lua51norewrite, a build for this measurement only).
# Both builds run in turn, RUNS times (default 5), so that what else the
# machine does falls on both alike; it prints each run, then per build the
# median and the spread (lowest..highest).
set -eu
runs=${RUNS:-5}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for b in on off; do
	tags=
	[ "$b" = off ] && tags=lua51norewrite
	go test -c -tags "$tags" -o "$tmp/lua51.$b" ./lua51
	go test -c -tags "$tags" -o "$tmp/bench.$b" ./internal/bench
done
i=1
while [ "$i" -le "$runs" ]; do
	for b in on off; do
		(cd lua51 && "$tmp/lua51.$b" -test.run '^$' -test.bench '^BenchmarkCompileProjectScripts$' -test.benchtime 50x) |
			awk -v b="$b" '/^Benchmark/ { print "compile-ms", b, $3 / 1e6 }'
		(cd internal/bench && "$tmp/bench.$b" -test.run '^$' -test.bench '^BenchmarkLuaLifecycleThreadCPU$' -test.benchtime 3000x) |
			awk -v b="$b" '/^Benchmark/ { for (f = 1; f < NF; f++) if ($(f + 1) == "ratio") print "lua-overhead-ratio", b, $f }'
	done
	i=$((i + 1))
done | tee "$tmp/runs"
echo "median and spread of $runs runs (on: with the rewrite; off: -tags lua51norewrite):"
sort -k1,1 -k2,2 -k3,3g "$tmp/runs" | awk '
	function flush() { if (n) printf "%-20s %-3s median %s  spread %s..%s\n", key, b, v[int((n + 1) / 2)], v[1], v[n] }
	$1 " " $2 != cur { flush(); cur = $1 " " $2; key = $1; b = $2; n = 0 }
	{ v[++n] = $3 }
	END { flush() }'
