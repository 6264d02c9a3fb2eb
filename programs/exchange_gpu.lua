-- The GPU half of the built-in exchange, written as a device program: for
-- a seed it gives the same steps, events and faults as the exchange the
-- tool runs by default. Pair it with exchange_npu.lua:
--
--   resident.startup{gpu = resident.program{file = "programs/exchange_gpu.lua"},
--                    npu = resident.program{file = "programs/exchange_npu.lua"},
--                    args = {rounds = 4, credits = 2, slot_bytes = 64}}
--
-- Each generation g = 1..rounds goes into slot (g-1) % credits: the GPU
-- waits for the slot's credit, writes the slot's words, and publishes g in
-- the slot's generation word. docs/programs.md explains every operation.

local bxor = bit32.bxor

-- A slot: its generation word at 0 and its data at 8, on lines the GPU
-- alone writes; its credit word on a 128-byte pair of lines of its own.
local function layout(a)
	local gpu = math.ceil((8 + a.slot_bytes) / 128) * 128
	return {stride = gpu + 128, data = 8, credit = gpu, results = a.credits * (gpu + 128)}
end

-- times(b) is the function a -> a * b modulo 2^32, for words: the low
-- half of a times b, plus the high half of a times the low half of b
-- (which the function keeps) shifted into the high half. Both terms are
-- below 2^48, so their sum is exact before the one modulo.
local function times(b)
	local b_lo = b % 65536
	return function(a)
		local lo = a % 65536
		return (lo * b + (a - lo) * b_lo) % 4294967296
	end
end

-- The words of session owner's generations, n a generation:
-- fill(g, words) puts word i (from 0) of generation g into words[i + 1].
-- Word i mixes owner, g and i, each multiplied by its own odd constant; the
-- owner's and each word's products are made once, not for every word.
local function generations(owner, n)
	local by_owner, by_g, by_i, mix = times(0x9E3779B1), times(0x85EBCA77), times(0xC2B2AE3D), times(0x2C1B3C6D)
	local mixed = by_owner(owner % 4294967296)
	local of = {}
	for i = 1, n do
		of[i] = by_i(i - 1)
	end
	return function(g, words)
		local base = bxor(mixed, by_g(g))
		for i = 1, n do
			local v = bxor(base, of[i])
			v = mix(bxor(v, (v - v % 32768) / 32768)) -- v ^ (v >> 15), then the product
			words[i] = bxor(v, (v - v % 4096) / 4096)
		end
	end
end

return {
	buffers = function(a)
		return {payload = layout(a).results + a.rounds * 16}
	end,

	run = function(p, a)
		local line, pay, l = p.startup, p.buffers.payload, layout(a)
		local seen = p:load(line, 0)
		while seen == p.WAIT do
			seen = p:wait(line, 0, seen)
		end
		p:delay(p.timing.host_to_gpu)
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
			local base = slot * l.stride
			if g > a.credits then
				local need = g - a.credits
				local credit = p:load(pay, base + l.credit)
				while credit < need do
					credit = p:wait(pay, base + l.credit, credit)
				end
			end
			fill(g, words)
			p:write(pay, base + l.data, words)
			if p:fault("payload.corrupt") == "flip" then
				p:flip(pay, base + l.data + 4 * (g % n), 2 ^ (g % 32))
			end
			p:store(pay, base, g)
			p:event("payload.write", g)
		end
	end,
}
