-- A broken NPU half of the exchange, for the model checker to find: it hands
-- a slot's credit back before it has read the slot in, as an NPU that frees
-- a buffer before its DMA completed would. With one credit and two rounds,
-- the GPU can write generation 2 over slot 0 between the credit and the
-- read, and generation 1 is checksummed from the wrong data. Pair it with
-- exchange_gpu.lua; exchange_npu.lua is the correct half, and the line
-- marked THE BUG below is all that differs.

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

local fnv_prime = times(16777619)

-- The checksum of a slot's words (FNV-1a over words).
local function checksum(words, n)
	local h = 2166136261
	for i = 1, n do
		h = fnv_prime(bxor(h, words[i]))
	end
	return h
end

-- The words of session owner's generations, as the GPU writes them, n a generation:
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
		local dma = p.timing.npu_dma_line
		local seen = p:load(line, 0)
		while seen == p.WAIT do
			seen = p:wait(line, 0, seen)
		end
		p:delay(dma)
		p:event("observe", seen)
		if seen == p.ABORT then
			return
		elseif seen ~= p.RUN then
			p:retire(string.format("%s read %d from the startup word; only RUN (1) or ABORT (2) may follow WAIT", p.device, seen))
		end
		local n, consumed, words = a.slot_bytes / 4, 0, {}
		local lines_in = math.ceil((l.data + a.slot_bytes) / 64)
		for g = 1, a.rounds do
			local fired, arg = p:fault("npu.run")
			if fired == "hang" then
				p:hang()
			elseif fired == "crash" then
				p:retire(p.device .. " crashed: " .. arg)
			elseif fired == "delay" then
				p:delay(arg)
			end
			local slot = (g - 1) % a.credits
			local base = slot * l.stride
			local gen = p:load(pay, base)
			while gen < g do
				gen = p:wait(pay, base, gen)
			end
			if gen > g then
				p:retire(string.format("NPU found generation %d in slot %d while waiting for %d: the GPU overran its credits", gen, slot, g))
			end
			-- THE BUG: the credit goes back, drained, before the slot is
			-- read in, so the GPU may write the next generation over it
			-- while the DMA is still to come.
			p:store(pay, base + l.credit, g)
			p:drain(pay)
			p:delay(dma * lines_in) -- the slot's lines come in by DMA
			p:read(pay, base + l.data, n, words)
			local sum = checksum(words, n)
			consumed = consumed + 1
			local result = l.results + (g - 1) * 16
			local count = p:load(pay, result + 4)
			p:write(pay, result, {consumed, count + 1, sum})
			local drained = -1
			if p:fault("npu.drain") ~= "skip" then
				drained = p:drain(pay)
			end
			p:event("payload.read", g)
			p:event("credit", g)
			if drained >= 0 then
				p:event("drain", drained)
			end
			if g == a.rounds then
				p:discard(pay) -- what was not drained is lost with the device's cache
				return
			end
			p:delay(dma * math.ceil(math.max(drained, 0) * 4 / 64))
		end
	end,

	check = function(c, a)
		local l, n, words = layout(a), a.slot_bytes / 4, {}
		local fill = generations(c.owner, n)
		for g = 1, a.rounds do
			local result = l.results + (g - 1) * 16
			local order, count, sum = c:load(c.buffers.payload, result), c:load(c.buffers.payload, result + 4), c:load(c.buffers.payload, result + 8)
			fill(g, words)
			local want = checksum(words, n)
			if count ~= 1 then
				return false, string.format("generation %d was consumed %d times, want once", g, count)
			elseif order ~= g then
				return false, string.format("generation %d was consumed in position %d, want %d", g, order, g)
			elseif sum ~= want then
				return false, string.format("generation %d has checksum 0x%08x, want 0x%08x: the slot was corrupted", g, sum, want)
			end
		end
		return true
	end,
}
