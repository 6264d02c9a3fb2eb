-- A one-way stream with double buffering, the NPU half; pair it with
-- stream_gpu.lua. The NPU waits for each chunk's ready flag, reads the chunk
-- in by DMA (the runtime charges its lines), adds its words to a running
-- sum, and releases the half with its done flag, drained at once (its view is not coherent: an undrained
-- store is never seen). At the end it writes the sum and the count of
-- chunks, drained. Its check recomputes the sum.

local function value(k, i)
	return (k * 1000003 + i * 7919) % 4294967296
end

return {
	buffers = function(a)
		return {data = 2 * a.words * 4, flags = 256, result = 64}
	end,

	run = function(p, a)
		local line, data, flags, result = p.startup, p.buffers.data, p.buffers.flags, p.buffers.result
		local seen = p:load(line, 0)
		while seen == p.WAIT do
			seen = p:wait(line, 0, seen)
		end
		p:event("observe", seen)
		if seen ~= p.RUN then
			return
		end
		local sum, words = 0, {}
		for k = 1, a.chunks do
			local half = (k - 1) % 2
			local ready = p:load(flags, 4 * half)
			while ready < k do
				ready = p:wait(flags, 4 * half, ready)
			end
			p:read(data, half * a.words * 4, a.words, words)
			for i = 1, a.words do
				sum = (sum + words[i]) % 4294967296
			end
			p:store(flags, 128 + 4 * half, k)
			p:drain(flags)
			p:event("chunk.received", k)
		end
		p:write(result, 0, {sum, a.chunks})
		p:drain(result)
	end,

	check = function(c, a)
		local want = 0
		for k = 1, a.chunks do
			for i = 1, a.words do
				want = (want + value(k, i)) % 4294967296
			end
		end
		local sum, count = c:load(c.buffers.result, 0), c:load(c.buffers.result, 4)
		if count ~= a.chunks then
			return false, string.format("the NPU counted %d chunks, want %d", count, a.chunks)
		elseif sum ~= want then
			return false, string.format("the NPU summed %d, want %d: a chunk was lost, repeated or overwritten", sum, want)
		end
		return true
	end,
}
