package bench

import (
	"context"
	"time"

	"github.com/residentlua/residentlua/check"
	"github.com/residentlua/residentlua/internal/gctune"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaapi"
	"github.com/residentlua/residentlua/luaprogram"
	"github.com/residentlua/residentlua/programs"
)

// checkBounds are the bounds of the checker's figures: one fault and one
// preemption per run, and the built-in scenario's two sessions and misuse,
// given so that a user's pair (whose defaults are one session and no
// misuse) is searched under the same bounds as the exchanges.
var checkBounds = check.Bounds{Faults: 1, Preemptions: 1, Sessions: 2, Misuse: 1}

// checkExchange is the exchanges' arguments in the checker's figures: the
// built-in scenario's smallest exchange.
var checkExchange = check.Exchange{Rounds: 1, Credits: 1}

// FillGPU and SumNPU are a user's pair of about the exchange's size, as
// one writes it from docs/programs.md: the GPU fills args.chunks chunks of
// args.words words and raises a flag after each, the NPU waits for the
// last, sums the words and returns the sum, which its check verifies. Their
// buffers need both arguments, so the pair runs only when given them. The
// command's tests check the pair too.
const (
	FillGPU = `return {
	buffers = function(a) return {data = a.chunks * a.words * 4, flags = 64} end,
	run = function(p, a)
		local seen = p:load(p.startup, 0)
		while seen == p.WAIT do seen = p:wait(p.startup, 0, seen) end
		p:event("observe", seen)
		if seen ~= p.RUN then return end
		for k = 1, a.chunks do
			local w = {}
			for i = 1, a.words do w[i] = k * 100 + i end
			p:write(p.buffers.data, (k - 1) * a.words * 4, w)
			p:store(p.buffers.flags, 0, k)
		end
	end,
}`
	SumNPU = `return {
	buffers = function(a) return {data = a.chunks * a.words * 4, flags = 64} end,
	run = function(p, a)
		local seen = p:load(p.startup, 0)
		while seen == p.WAIT do seen = p:wait(p.startup, 0, seen) end
		p:event("observe", seen)
		if seen ~= p.RUN then return end
		local f = p:load(p.buffers.flags, 0)
		while f < a.chunks do f = p:wait(p.buffers.flags, 0, f) end
		local w = p:read(p.buffers.data, 0, a.chunks * a.words)
		local sum = 0
		for i = 1, #w do sum = sum + w[i] end
		p:store(p.buffers.flags, 4, sum)
		p:drain(p.buffers.flags)
	end,
	check = function(c, a)
		local want = 0
		for k = 1, a.chunks do for i = 1, a.words do want = want + k * 100 + i end end
		local got = c:load(c.buffers.flags, 4)
		if got ~= want then return false, "sum " .. got .. ", want " .. want end
		return true
	end,
}`
)

// fillSumArgs are the user pair's arguments in the checker's figures.
var fillSumArgs = map[string]any{"chunks": 2.0, "words": 4.0}

// CheckPair names the scenarios of the checker's figures.
type CheckPair int

// The scenarios of the checker's figures: the built-in scenario with the
// built-in exchange (Go), with the exchange written in Lua
// (programs/exchange), and with a user's pair of Lua programs (a chunked
// fill and sum) with its own arguments.
const (
	CheckGo CheckPair = iota
	CheckLuaExchange
	CheckUserPair
)

// CheckRate explores the built-in scenario with pair under checkBounds,
// for at most d (to the end of the bounds when d is 0), and returns the
// schedules explored per second.
func CheckRate(pair CheckPair, d time.Duration) (float64, error) {
	rep, err := checkSearch(pair, d)
	if err != nil {
		return 0, err
	}
	return float64(rep.Schedules) / rep.Elapsed.Seconds(), nil
}

// checkSearch is CheckRate's search and its report. The Lua programs are
// compiled before the search's clock starts, as the command compiles them
// before its search.
func checkSearch(pair CheckPair, d time.Duration) (check.Report, error) {
	scenario := checkExchange.Scenario(check.Builtin)
	opts := check.Options{Pair: checkExchange.Pair()}
	ctx := context.Background()
	if pair != CheckGo {
		gpu, npu, err := checkPrograms(pair)
		if err != nil {
			return check.Report{}, err
		}
		defer gpu.Close()
		defer npu.Close()
		args := fillSumArgs
		if pair == CheckLuaExchange {
			args = nil // shaped as the exchange, by checkExchange
		}
		scenario, opts.Pair = luaapi.PairChecked(ctx, gpu, npu, args, checkExchange)
	}
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	opts.Bounds = checkBounds
	defer gctune.ForBatch(lua51.DefaultMemoryLimit())() // as the command checks
	return check.Check(ctx, scenario, opts), nil
}

// checkPrograms compiles the Lua pair of a figure.
func checkPrograms(pair CheckPair) (gpu, npu *luaprogram.Program, err error) {
	texts := [2]string{FillGPU, SumNPU}
	names := [2]string{"=fill_gpu.lua", "=sum_npu.lua"}
	if pair == CheckLuaExchange {
		for i, f := range []string{"exchange/exchange_gpu.lua", "exchange/exchange_npu.lua"} {
			b, err := programs.Files.ReadFile(f)
			if err != nil {
				return nil, nil, err
			}
			texts[i], names[i] = string(b), "@programs/"+f
		}
	}
	if gpu, err = luaprogram.Compile(names[0], texts[0], luaprogram.Options{}); err != nil {
		return nil, nil, err
	}
	if npu, err = luaprogram.Compile(names[1], texts[1], luaprogram.Options{}); err != nil {
		gpu.Close()
		return nil, nil, err
	}
	return gpu, npu, nil
}

// checkFigures are the model checker's rates: schedules of the built-in
// scenario explored per second under checkBounds, in searches of z.checkFor
// each: with the built-in exchange in Go; with the exchange in Lua,
// against the Go one (goal ≥ 0.5×); and with a user's pair, against the
// Lua exchange (goal: within 2×, so ≥ 0.5×). The three are measured in
// turn in each repetition, so that a slow spell of a shared machine weighs
// on all of them. A search of the Lua exchange to the end of these bounds
// takes minutes, so every search is stopped after the same time: each
// explores the same schedules, in the same order, as far as it gets.
func checkFigures(z sizes) ([]Figure, error) {
	runs := make([][]float64, 3)
	for range z.repeats {
		for p := range runs {
			v, err := CheckRate(CheckPair(p), z.checkFor)
			if err != nil {
				return nil, err
			}
			runs[p] = append(runs[p], v)
		}
	}
	goRate, luaRate, userRate := Summarise(runs[CheckGo]), Summarise(runs[CheckLuaExchange]), Summarise(runs[CheckUserPair])
	out := []Figure{{Name: "model checking: built-in scenario", Unit: "schedules/s", Value: goRate, Goal: "report"}}
	lua := Figure{Name: "model checking: the exchange in Lua", Unit: "schedules/s", Value: luaRate}
	r := luaRate.Median / goRate.Median
	lua.compare(goRate, "the exchange in Go", r, "≥ 0.5×", r >= 0.5)
	user := Figure{Name: "model checking: a user's pair (fill, sum)", Unit: "schedules/s", Value: userRate}
	r = userRate.Median / luaRate.Median
	user.compare(luaRate, "the exchange in Lua", r, "≥ 0.5×", r >= 0.5)
	return append(out, lua, user), nil
}
