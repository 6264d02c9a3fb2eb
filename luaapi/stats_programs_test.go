package luaapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStatsOfAPairHaveNoExchangeFields runs the ring pair and reads its
// session's stats: they name the programs and give their check, and have
// none of the built-in exchange's fields (rounds, credits, slot_bytes,
// bytes, verification), in Lua or in JSON, where zeros would read as an
// exchange that moved nothing. An exchange session keeps them.
func TestStatsOfAPairHaveNoExchangeFields(t *testing.T) {
	h := sim(t)
	h.run(`g = resident.program{file = "../examples/ring/ring_gpu.lua"}
n = resident.program{file = "../examples/ring/ring_npu.lua"}
s = resident.startup{gpu = g, npu = n, args = {slots = 2, msgs = 3, words = 2}}
s:submit_gpu(); s:submit_npu(); s:start(); s:wait(1)
st = s:stats()
s:close()
x = resident.startup{rounds = 2}
x:submit_gpu(); x:submit_npu(); x:start(); x:wait(1)
xt = x:stats()
x:close()`)
	if got := h.str("tostring(st.rounds) .. tostring(st.credits) .. tostring(st.slot_bytes) .. tostring(st.bytes) .. tostring(st.verification)"); got != "nilnilnilnilnil" {
		t.Errorf("a pair's stats have exchange fields: %s", got)
	}
	if got := h.str("st.programs.gpu .. ' ' .. st.programs.npu .. ' ' .. tostring(st.check.ok)"); got != "../examples/ring/ring_gpu.lua ../examples/ring/ring_npu.lua true" {
		t.Errorf("a pair's stats: programs and check %s", got)
	}
	if got := h.str("xt.rounds .. ' ' .. xt.bytes .. ' ' .. tostring(xt.verification.ok) .. ' ' .. tostring(xt.programs)"); got != "2 128 true nil" {
		t.Errorf("an exchange's stats: %s", got)
	}
	stats := h.m.Stats()
	if len(stats) != 2 {
		t.Fatalf("%d stats", len(stats))
	}
	pair, err := json.Marshal(stats[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"rounds"`, `"credits"`, `"slot_bytes"`, `"bytes"`, `"verification"`} {
		if strings.Contains(string(pair), key) {
			t.Errorf("a pair's JSON stats have %s: %s", key, pair)
		}
	}
	if !strings.Contains(string(pair), `"programs":{"gpu":"../examples/ring/ring_gpu.lua"`) || !strings.Contains(string(pair), `"check":{"ok":true}`) {
		t.Errorf("a pair's JSON stats: %s", pair)
	}
	exch, err := json.Marshal(stats[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(exch), `"rounds":2,"credits":1,"slot_bytes":64,"bytes":128`) || !strings.Contains(string(exch), `"verification":{"ok":true`) {
		t.Errorf("an exchange's JSON stats: %s", exch)
	}
}
