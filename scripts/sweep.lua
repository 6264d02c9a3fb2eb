-- sweep.lua: slot bytes x credits -> throughput and latency of the exchange.
--
--   residentlua --mode sim --seed 1 scripts/sweep.lua [out.csv [rounds [timing]]]
--
-- For every pair of slot size and credit count, one session exchanges
-- `rounds` generations (default 32). From s:stats() it takes the time from
-- the decision to the last retirement (the exchange), the time until the NPU
-- observed RUN, and the verified bytes. It prints a table and writes a CSV
-- (default sweep.csv). The fabric keeps the mode and seed of the command
-- line and uses the "published" timing profile unless told otherwise:
-- in simulated time the figures are the model's, in real time they are
-- measured.

local csv_path = arg[1] or "sweep.csv"
local rounds = tonumber(arg[2]) or 32
resident.fabric{timing = arg[3] or "published"}

local slot_sizes = {64, 256, 1024, 4096}
local credit_counts = {1, 2, 4}

local function exchange(slot_bytes, credits)
  local s = startup{rounds = rounds, credits = credits, slot_bytes = slot_bytes}
  s:submit_gpu()
  s:submit_npu()
  s:start()
  assert(s:wait(10), "the exchange did not retire within 10 s")
  local st = s:stats()
  assert(s:close() == "retired")
  local last = math.max(st.gpu.retired, st.npu.retired)
  local elapsed = last - st.decided
  return {
    slot_bytes = slot_bytes,
    credits = credits,
    rounds = st.rounds,
    bytes = st.bytes,
    elapsed_us = elapsed * 1e6,
    throughput_mbps = elapsed > 0 and st.bytes / elapsed / 1e6 or 0,
    round_latency_us = elapsed / st.rounds * 1e6,
    npu_observe_us = (st.npu.observed - st.decided) * 1e6,
    verified = st.verification ~= nil and st.verification.ok,
  }
end

-- The CSV's columns and the format of each.
local columns = {
  {"slot_bytes", "%d"}, {"credits", "%d"}, {"rounds", "%d"}, {"bytes", "%d"},
  {"elapsed_us", "%.3f"}, {"throughput_mbps", "%.3f"}, {"round_latency_us", "%.3f"},
  {"npu_observe_us", "%.3f"}, {"verified", "%s"},
}

local rows = {}
for _, b in ipairs(slot_sizes) do
  for _, c in ipairs(credit_counts) do
    rows[#rows + 1] = exchange(b, c)
  end
end

print(string.format("%10s %7s %6s %8s %12s %12s %14s %12s %8s", "slot_bytes", "credits", "rounds",
  "bytes", "elapsed_us", "MB/s", "us/round", "npu_obs_us", "verified"))
for _, r in ipairs(rows) do
  print(string.format("%10d %7d %6d %8d %12.3f %12.3f %14.3f %12.3f %8s", r.slot_bytes, r.credits,
    r.rounds, r.bytes, r.elapsed_us, r.throughput_mbps, r.round_latency_us, r.npu_observe_us,
    tostring(r.verified)))
end

local f = assert(io.open(csv_path, "w"))
local header = {}
for i, c in ipairs(columns) do header[i] = c[1] end
f:write(table.concat(header, ","), "\n")
for _, r in ipairs(rows) do
  local fields = {}
  for i, c in ipairs(columns) do
    fields[i] = string.format(c[2], type(r[c[1]]) == "boolean" and tostring(r[c[1]]) or r[c[1]])
  end
  f:write(table.concat(fields, ","), "\n")
end
f:close()
print(string.format("wrote %d rows to %s", #rows, csv_path))
