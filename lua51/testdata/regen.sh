#!/bin/sh
# regen.sh writes the expected output NAME.out of every conformance script
# conformance/NAME.lua by running the reference interpreter, Lua 5.1.5's
# lua.c (Debian's lua5.1), in that directory: `lua5.1 NAME.lua`.
#
# NAME.out holds, in this order:
#   1. everything the script wrote to standard output;
#   2. what lua.c wrote to standard error, which is the message of an
#      uncaught error (a syntax error of the script or a runtime error), with
#      two changes: the program name prefix "lua5.1: " is removed, and the
#      traceback, from the line "stack traceback:" on, is dropped, since
#      frame lists and interpreter names differ between interpreters and the
#      message is what scripts and people read;
#   3. a last line "exit: N" with lua.c's exit status (0, or 1 after an
#      uncaught error).
# Standard output comes before standard error whatever their order in time
# (lua.c buffers standard output when it is not a terminal); scripts write
# to standard error only through an uncaught error.
#
# conformance_test.go builds the same text for each script under
# lua51.NewState and compares. Run this script after adding or changing a
# script, and commit the .out files; the tests never run lua5.1.
set -eu
cd "$(dirname "$0")/conformance"
command -v lua5.1 >/dev/null || { echo "regen.sh: lua5.1 is not installed (apt-get install lua5.1)" >&2; exit 1; }
lua5.1 -v 2>&1 | grep -q '^Lua 5\.1' || { echo "regen.sh: lua5.1 is not Lua 5.1" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for script in *.lua; do
	name=${script%.lua}
	status=0
	LC_ALL=C lua5.1 "$script" >"$tmp/stdout" 2>"$tmp/stderr" </dev/null || status=$?
	{
		cat "$tmp/stdout"
		sed -e '1s/^lua5\.1: //' -e '/^stack traceback:$/,$d' "$tmp/stderr"
		echo "exit: $status"
	} >"$name.out"
done
rm -f "$tmp/stdout" "$tmp/stderr"
for out in *.out; do
	[ -e "${out%.out}.lua" ] || { echo "regen.sh: removing $out, whose script is gone" >&2; rm -f "$out"; }
done
