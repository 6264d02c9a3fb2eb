#!/bin/bash
# compare.sh runs Lua 5.1 programs through the reference interpreter
# (Debian's lua5.1) and through residentlua, and says for each whether they
# differ in what a program's user sees: its standard output, its exit status
# and the first line of what it writes to standard error (the message of an
# uncaught error; lua.c's "lua5.1:" prefix and residentlua's "residentlua:"
# are both removed, and the traceback below the first line is not compared,
# since its frame lists differ by design, see docs/lua.md).
#
#   lua51/compare.sh [-b residentlua] [-t seconds] [-f sed-script] FILE.lua|DIR ...
#
# Each program runs in its own directory (so that require and dofile find
# their neighbours, and LUA_PATH as the caller set it applies to both), with
# LC_ALL=C, standard input from NAME.in beside NAME.lua where there is one
# (else /dev/null), and at most -t seconds (default
# 60) for each interpreter; a program that lua5.1 does not finish in time is
# reported as "timeout", not compared. A directory stands for its *.lua files.
# One line is printed per program: "same FILE", "differs FILE" (followed by a
# diff of the two reports) or "timeout FILE"; the exit status is 1 if any
# program differs. residentlua runs with --seed 1, which starts math.random
# where lua5.1 starts it (glibc's srand(1)); without --seed it starts from
# the run's own seed. -f gives a sed script that both standard outputs go
# through before they are compared, for programs that print what cannot be
# the same twice (timings: -f 's/[0-9.]* sec/T sec/'). -b names the residentlua binary (default: residentlua on
# PATH; build one with `go build -o /tmp/NAME/residentlua ./cmd/residentlua`).
set -u
bin=residentlua
limit=60
filter=
while getopts b:t:f: opt; do
	case $opt in
	f) filter=$OPTARG ;;
	b) bin=$OPTARG ;;
	t) limit=$OPTARG ;;
	*) echo "usage: $0 [-b residentlua] [-t seconds] [-f sed-script] FILE.lua|DIR ..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-b residentlua] [-t seconds] [-f sed-script] FILE.lua|DIR ..." >&2; exit 2; }
command -v lua5.1 >/dev/null || { echo "$0: lua5.1 is not installed (apt-get install lua5.1)" >&2; exit 2; }
bin=$(command -v "$bin") || { echo "$0: no residentlua binary; give one with -b" >&2; exit 2; }
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# report runs one interpreter ($1: its command; $2: the prefix of its
# messages) on a program ($3: directory, $4: file name) and writes what the
# user sees to $5; its status is 124 when the program ran past the limit.
report() {
	local status=0 input=/dev/null
	[ -f "$3/${4%.lua}.in" ] && input=${4%.lua}.in
	(cd "$3" && LC_ALL=C timeout "$limit" $1 "$4" >"$5.out" 2>"$5.err" <"$input") || status=$?
	[ $status -eq 124 ] && return 124
	{
		sed -e "$filter" "$5.out"
		echo "stderr: $(head -n 1 "$5.err" | sed "s/^$2: //")"
		echo "exit: $status"
	} >"$5"
}

differ=0
for arg in "$@"; do
	if [ -d "$arg" ]; then files=("$arg"/*.lua); else files=("$arg"); fi
	for file in "${files[@]}"; do
		dir=$(dirname "$file")
		name=$(basename "$file")
		if ! report lua5.1 lua5.1 "$dir" "$name" "$tmp/want"; then
			echo "timeout $file"
			continue
		fi
		if ! report "$bin --seed 1" residentlua "$dir" "$name" "$tmp/got"; then
			echo "differs $file (residentlua ran past ${limit}s)"
			differ=1
		elif cmp -s "$tmp/want" "$tmp/got"; then
			echo "same $file"
		else
			echo "differs $file"
			diff "$tmp/want" "$tmp/got" | head -n 20
			differ=1
		fi
	done
done
exit $differ
