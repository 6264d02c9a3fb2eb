-- A broken NPU half of the exchange, for the model checker to find: it hands
-- a slot's credit back before it has read the slot in, as an NPU that frees
-- a buffer before its DMA completed would. With one credit and two rounds,
-- the GPU can write generation 2 over slot 0 between the credit and the
-- read, and generation 1 is checksummed from the wrong data. Pair it with
-- exchange_gpu.lua; exchange_npu.lua is the correct half, and the line
-- marked THE BUG below is all that differs.

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

-- The checksum of a slot's words (FNV-1a over words): h xor each word,
-- times the FNV prime 16777619 = 2^24 + 403, modulo 2^32. h times 2^24
-- modulo 2^32 is lshift(h, 24); h * 403 is below 2^41. The loop leaves
-- their sum unreduced (below 2^42, exact) for the next bxor to reduce,
-- since bit32's functions take their arguments modulo 2^32; the end
-- reduces it once.
local function checksum(words, n)
	local h = 2166136261
	for i = 1, n do
		h = bxor(h, words[i])
		h = lshift(h, 24) + h * 403
	end
	return h % 4294967296
end

-- What the check expects: checksums(owner, n) is the function g -> the
-- checksum of generation g of session owner, n words a generation, as the
-- GPU writes them. Word i is owner, g and i, each multiplied by its own odd
-- constant and xored; then v xor (v >> 15), times M, then v xor (v >> 12). A shift
-- distributes over xor, so the first shift is made once for the owner and
-- g and once for each i. Times M is times its high half shifted and its
-- low half: lshift(v * M_hi, 16) + v * M_lo, unreduced (below 2^47,
-- exact). Each word goes into the checksum as it is made, as in checksum.
local M_hi, M_lo = 0x2C1B, 0x3C6D -- M = 0x2C1B3C6D
local function checksums(owner, n)
	local mixed = mul(owner % 4294967296, 0x9E3779B1)
	local of, o = {}, 0 -- o is (i - 1) * 0xC2B2AE3D modulo 2^32, by additions
	for i = 1, n do
		of[i] = bxor(o, rshift(o, 15))
		o = o + 0xC2B2AE3D
		if o >= 4294967296 then
			o = o - 4294967296
		end
	end
	return function(g)
		local base = bxor(mixed, mul(g, 0x85EBCA77))
		base = bxor(base, rshift(base, 15))
		local h = 2166136261
		for i = 1, n do
			local v = bxor(base, of[i])
			v = lshift(v * M_hi, 16) + v * M_lo
			h = bxor(h, v, rshift(v, 12))
			h = lshift(h, 24) + h * 403
		end
		return h % 4294967296
	end
end

return {
	sites = {"npu.drain"}, -- its own fault site: a skip there leaves a round's stores pending
	buffers = function(a)
		local _, _, results = layout(a)
		return {payload = results + a.rounds * 16}
	end,

	run = function(p, a)
		local line, pay = p.startup, p.buffers.payload
		local stride, credit_at, results = layout(a)
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
		local n, consumed, words, result_words = a.slot_bytes / 4, 0, {}, {}
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
			local base = slot * stride
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
			p:store(pay, base + credit_at, g)
			p:drain(pay)
			p:delay(0) -- read in a step of its own, once the load's cost passed
			p:read(pay, base + 8, n, words)
			local sum = checksum(words, n)
			consumed = consumed + 1
			local result = results + (g - 1) * 16
			local count = p:load(pay, result + 4)
			result_words[1], result_words[2], result_words[3] = consumed, count + 1, sum
			p:write(pay, result, result_words)
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
			p:delay(0) -- the next round begins once the drain's cost passed
		end
	end,

	check = function(c, a)
		local _, _, results = layout(a)
		local pay, sum_of = c.buffers.payload, checksums(c.owner, a.slot_bytes / 4)
		for g = 1, a.rounds do
			local result = results + (g - 1) * 16
			local order, count, sum = c:load(pay, result), c:load(pay, result + 4), c:load(pay, result + 8)
			if count ~= 1 then
				return false, string.format("generation %d was consumed %d times, want once", g, count)
			elseif order ~= g then
				return false, string.format("generation %d was consumed in position %d, want %d", g, order, g)
			end
			local want = sum_of(g)
			if sum ~= want then
				return false, string.format("generation %d has checksum 0x%08x, want 0x%08x: the slot was corrupted", g, sum, want)
			end
		end
		return true
	end,
}
