-- A one-way stream with double buffering, the GPU half: the GPU sends
-- `chunks` chunks of `words` words to the NPU through two data buffers used
-- in turn. Chunk k goes into half (k-1) % 2 of data: the GPU waits until
-- the NPU has released that half (its done flag reached k-2), writes the
-- chunk with plain stores, and publishes k in the half's ready flag, which
-- orders the data before it. Pair it with stream_npu.lua:
--
--   resident.startup{gpu = resident.program{file = "programs/stream/stream_gpu.lua"},
--                    npu = resident.program{file = "programs/stream/stream_npu.lua"},
--                    args = {chunks = 8, words = 16}}
--
-- Its own fault site, stream.drop, lets a fault injection drop a chunk: with
-- resident.fault("stream.drop", "1*skip") the GPU publishes a chunk's flag
-- without writing its data, and the NPU's check finds the sum wrong.

-- Word i of chunk k.
local function value(k, i)
	return (k * 1000003 + i * 7919) % 4294967296
end

return {
	sites = {"stream.drop"},

	-- ready flags at 0 and 4 (the GPU writes them), done flags on a
	-- 128-byte pair of lines of their own at 128 and 132 (the NPU's), the
	-- NPU's sum and count in result.
	buffers = function(a)
		return {data = 2 * a.words * 4, flags = 256, result = 64}
	end,

	run = function(p, a)
		local line, data, flags = p.startup, p.buffers.data, p.buffers.flags
		local seen = p:load(line, 0)
		while seen == p.WAIT do
			seen = p:wait(line, 0, seen)
		end
		p:event("observe", seen)
		if seen ~= p.RUN then
			return
		end
		local chunk = {}
		for k = 1, a.chunks do
			local half = (k - 1) % 2
			if k > 2 then
				local done = p:load(flags, 128 + 4 * half)
				while done < k - 2 do
					done = p:wait(flags, 128 + 4 * half, done)
				end
			end
			for i = 1, a.words do
				chunk[i] = value(k, i)
			end
			if p:fault("stream.drop") ~= "skip" then
				p:write(data, half * a.words * 4, chunk)
			end
			p:store(flags, 4 * half, k)
			p:event("chunk.sent", k)
		end
	end,
}
