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

local bxor, rshift = bit32.bxor, bit32.rshift

-- A slot: its generation word at 0 and its data at 8, on lines the GPU
-- alone writes; its credit word on a 128-byte pair of lines of its own.
local function layout(a)
	local gpu = math.ceil((8 + a.slot_bytes) / 128) * 128
	return {stride = gpu + 128, data = 8, credit = gpu, results = a.credits * (gpu + 128)}
end

-- a * b modulo 2^32, for words.
local function mul32(a, b)
	local lo = a % 65536
	return (lo * b + (a - lo) / 65536 * (b % 65536) % 65536 * 65536) % 4294967296
end

-- Word i of generation g of session owner.
local function pattern(owner, g, i)
	local v = bxor(mul32(owner % 4294967296, 0x9E3779B1), mul32(g, 0x85EBCA77), mul32(i, 0xC2B2AE3D))
	v = bxor(v, rshift(v, 15))
	v = mul32(v, 0x2C1B3C6D)
	return bxor(v, rshift(v, 12))
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
		local words = {}
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
			local n = a.slot_bytes / 4
			for i = 1, n do
				words[i] = pattern(p.owner, g, i - 1)
			end
			p:write(pay, base + l.data, words)
			if p:fault("payload.corrupt") == "flip" then
				p:flip(pay, base + l.data + 4 * (g % n), 2 ^ (g % 32))
			end
			p:store(pay, base, g)
			p:event("payload.write", g)
		end
	end,
}
