-- The GPU half of the built-in exchange, written as a device program: for
-- a seed it gives the same steps, events and faults as the exchange the
-- tool runs by default. Pair it with exchange_npu.lua:
--
--   resident.startup{gpu = resident.program{file = "programs/exchange/exchange_gpu.lua"},
--                    npu = resident.program{file = "programs/exchange/exchange_npu.lua"},
--                    args = {rounds = 4, credits = 2, slot_bytes = 64}}
--
-- Each generation g = 1..rounds goes into slot (g-1) % credits: the GPU
-- waits for the slot's credit, writes the slot's words, and publishes g in
-- the slot's generation word. docs/programs.md explains every operation.

local bxor, lshift, rshift = bit32.bxor, bit32.lshift, bit32.rshift

-- A slot: its generation word at 0 and its data at 8, on lines the GPU
-- alone writes; its credit word on a 128-byte pair of lines of its own.
local function layout(a)
	local gpu = math.ceil((8 + a.slot_bytes) / 128) * 128
	return gpu + 128, gpu, a.credits * (gpu + 128) -- the stride, the credit's offset, the results'
end

-- mul(a, b) is a * b modulo 2^32, for words a and b: the low half of a
-- times b, plus the high half of a times the low half of b (the high half
-- of b would shift out). Both terms are below 2^48, so their sum is exact
-- before the one modulo.
local function mul(a, b)
	local lo = a % 65536
	return (lo * b + (a - lo) * (b % 65536)) % 4294967296
end

-- The words of session owner's generations, n a generation:
-- fill(g, words) puts word i (from 0) of generation g into words[i + 1].
-- Word i is owner, g and i, each multiplied by its own odd constant and
-- xored; then v xor (v >> 15), times M, then v xor (v >> 12). A shift distributes
-- over xor, so the first shift is made once for the owner and g and once
-- for each i, not for every word. Times M modulo 2^32 is times its high
-- half, shifted left 16 bits, plus times its low half: lshift(v * M_hi, 16)
-- + v * M_lo, left unreduced (below 2^47, exact): bit32's functions take
-- their arguments modulo 2^32, which reduces it.
local M_hi, M_lo = 0x2C1B, 0x3C6D -- M = 0x2C1B3C6D
local function generations(owner, n)
	local mixed = mul(owner % 4294967296, 0x9E3779B1)
	local of, o = {}, 0 -- o is (i - 1) * 0xC2B2AE3D modulo 2^32, by additions
	for i = 1, n do
		of[i] = bxor(o, rshift(o, 15))
		o = o + 0xC2B2AE3D
		if o >= 4294967296 then
			o = o - 4294967296
		end
	end
	return function(g, words)
		local base = bxor(mixed, mul(g, 0x85EBCA77))
		base = bxor(base, rshift(base, 15))
		for i = 1, n do
			local v = bxor(base, of[i])
			v = lshift(v * M_hi, 16) + v * M_lo
			words[i] = bxor(v, rshift(v, 12))
		end
	end
end

return {
	sites = {"payload.corrupt"}, -- its own fault site: a flip there corrupts a slot
	buffers = function(a)
		local _, _, results = layout(a)
		return {payload = results + a.rounds * 16}
	end,

	run = function(p, a)
		local line, pay = p.startup, p.buffers.payload
		local stride, credit_at = layout(a)
		local seen = p:load(line, 0)
		while seen == p.WAIT do
			seen = p:wait(line, 0, seen)
		end
		p:delay(0) -- observe in a step of its own, once the load's cost passed
		p:event("observe", seen)
		if seen == p.ABORT then
			return
		elseif seen ~= p.RUN then
			p:retire(string.format("%s read %d from the startup word; only RUN (1) or ABORT (2) may follow WAIT", p.device, seen))
		end
		local n, words = a.slot_bytes / 4, {}
		local fill = generations(p.owner, n)
		for g = 1, a.rounds do
			local fired, arg = p:fault("gpu.run")
			if fired == "hang" then
				p:hang()
			elseif fired == "crash" then
				p:retire(p.device .. " crashed: " .. arg)
			elseif fired == "delay" then
				p:delay(arg)
			end
			local slot = (g - 1) % a.credits
			local base = slot * stride
			if g > a.credits then
				local need = g - a.credits
				local credit = p:load(pay, base + credit_at)
				while credit < need do
					credit = p:wait(pay, base + credit_at, credit)
				end
			end
			fill(g, words)
			p:write(pay, base + 8, words)
			if p:fault("payload.corrupt") == "flip" then
				p:flip(pay, base + 8 + 4 * (g % n), 2 ^ (g % 32))
			end
			p:store(pay, base, g)
			p:event("payload.write", g)
		end
	end,
}
