-- sweep.lua: slot bytes x credits -> throughput and latency of the exchange.
--
--   residentlua --mode sim --seed 1 scripts/sweep.lua [out.csv [rounds [timing [samples [picture]]]]]
--
-- For every pair of slot size and credit count, sessions exchange `rounds`
-- generations (default 32). From s:stats() it takes the time from the
-- decision to the last retirement (the exchange), the time until the NPU
-- observed RUN, and the verified bytes. It prints a table and writes a CSV
-- (default sweep.csv). The fabric keeps the mode and seed of the command
-- line and uses the "published" timing profile unless told otherwise.
--
-- In simulated time the figures are the model's and the same every time,
-- so each cell is one sample; the model charges no time for the GPU's
-- writes, so credits cannot change them (the table says so). In real time
-- the figures are measured and vary: each cell is `samples` sessions
-- (default 5), reported as the median with the smallest and largest.
-- A figure that does not exist (no time passed, the NPU never observed)
-- is n/a.
--
-- It also draws two pictures (resident.plot) of the medians against slot
-- size, one line per credits value: the latency of a round and the
-- throughput. `picture` names them (default: the CSV's name with .svg, so
-- sweep.svg), its extension (.svg or .png) says their format, and the
-- figure goes before it: sweep_latency.svg and sweep_throughput.svg. A cell
-- where no time passed (the figure n/a or 0, as under the "ideal" timing
-- in simulated time) is left out, and a figure with no cell left is not drawn.

local csv_path = arg[1] or "sweep.csv"
local rounds = tonumber(arg[2]) or 32
local fabric = resident.fabric{timing = arg[3] or "published"}
local simulated = fabric.mode == "sim"
local samples = simulated and 1 or (tonumber(arg[4]) or 5)
local picture = arg[5] or (csv_path:gsub("%.[Cc][Ss][Vv]$", "") .. ".svg")

local slot_sizes = {64, 256, 1024, 4096}
local credit_counts = {1, 2, 4}

-- exchange runs one session and returns its figures (nil where absent).
local function exchange(slot_bytes, credits)
  local s = startup{rounds = rounds, credits = credits, slot_bytes = slot_bytes}
  s:submit_gpu()
  s:submit_npu()
  s:start()
  assert(s:wait(10), "the exchange did not retire within 10 s")
  local st = s:stats()
  assert(s:close() == "retired")
  local elapsed = math.max(st.gpu.retired, st.npu.retired) - st.decided
  return {
    bytes = st.bytes,
    elapsed_us = elapsed * 1e6,
    mb_per_s = elapsed > 0 and st.bytes / elapsed / 1e6 or nil,
    round_latency_us = elapsed / st.rounds * 1e6,
    npu_observe_us = st.npu.observed and (st.npu.observed - st.decided) * 1e6 or nil,
    verified = st.verification ~= nil and st.verification.ok,
  }
end

-- summary returns the median, smallest and largest of the values present.
local function summary(values)
  if #values == 0 then return nil end
  table.sort(values)
  local n = #values
  local median = n % 2 == 1 and values[(n + 1) / 2] or (values[n / 2] + values[n / 2 + 1]) / 2
  return {median = median, min = values[1], max = values[n]}
end

local figures = {"elapsed_us", "mb_per_s", "round_latency_us", "npu_observe_us"}

-- cell runs `samples` sessions of one shape and summarizes each figure.
local function cell(slot_bytes, credits)
  local row = {slot_bytes = slot_bytes, credits = credits, rounds = rounds, samples = samples, verified = true}
  local seen = {}
  for _, name in ipairs(figures) do seen[name] = {} end
  for _ = 1, samples do
    local r = exchange(slot_bytes, credits)
    row.bytes = r.bytes
    row.verified = row.verified and r.verified
    for _, name in ipairs(figures) do
      if r[name] then table.insert(seen[name], r[name]) end
    end
  end
  for _, name in ipairs(figures) do row[name] = summary(seen[name]) end
  return row
end

local rows = {}
for _, b in ipairs(slot_sizes) do
  for _, c in ipairs(credit_counts) do
    rows[#rows + 1] = cell(b, c)
  end
end

-- fmt formats a figure's median (or its smallest/largest), n/a when absent.
local function fmt(v, which)
  if v == nil then return "n/a" end
  return string.format("%.3f", v[which or "median"])
end

if simulated then
  print("simulated time: one sample per cell; the model charges no time for the GPU's writes,")
  print("so credits do not change these figures (measure them with --mode realtime)")
else
  print(string.format("real time: median of %d samples per cell, [smallest, largest] in the CSV", samples))
end
print(string.format("%10s %7s %6s %8s %12s %12s %14s %12s %8s", "slot_bytes", "credits", "rounds",
  "bytes", "elapsed_us", "MB/s", "us/round", "npu_obs_us", "verified"))
for _, r in ipairs(rows) do
  print(string.format("%10d %7d %6d %8d %12s %12s %14s %12s %8s", r.slot_bytes, r.credits, r.rounds,
    r.bytes, fmt(r.elapsed_us), fmt(r.mb_per_s), fmt(r.round_latency_us), fmt(r.npu_observe_us),
    tostring(r.verified)))
end

-- The CSV: the shape, then each figure's median, smallest and largest.
local header = {"slot_bytes", "credits", "rounds", "samples", "bytes"}
for _, name in ipairs(figures) do
  header[#header + 1] = name
  header[#header + 1] = name .. "_min"
  header[#header + 1] = name .. "_max"
end
header[#header + 1] = "verified"
local f = assert(io.open(csv_path, "w"))
f:write(table.concat(header, ","), "\n")
for _, r in ipairs(rows) do
  local fields = {r.slot_bytes, r.credits, r.rounds, r.samples, r.bytes}
  for _, name in ipairs(figures) do
    fields[#fields + 1] = fmt(r[name])
    fields[#fields + 1] = fmt(r[name], "min")
    fields[#fields + 1] = fmt(r[name], "max")
  end
  fields[#fields + 1] = tostring(r.verified)
  f:write(table.concat(fields, ","), "\n")
end
f:close()
print(string.format("wrote %d rows to %s", #rows, csv_path))

-- The pictures: a figure's medians against slot size, one line per credits
-- value, with the cells where it is n/a or 0 left out.
local function draw(figure, label, what)
  local series, any = {}, false
  for _, r in ipairs(rows) do
    if r[figure] and r[figure].median > 0 then
      local name = "credits=" .. r.credits
      series[name] = series[name] or {}
      table.insert(series[name], {r.slot_bytes, r[figure].median})
      any = true
    end
  end
  local file = picture:gsub("(%.%w+)$", "_" .. what .. "%1")
  if not any then
    print(string.format("no %s to draw (no time passed in any cell); %s not written", what, file))
    return
  end
  resident.plot{file = file, kind = "lines", title = string.format("%s, %d rounds (%s)", what, rounds,
    simulated and "simulated time" or string.format("real time, median of %d", samples)),
    x = "slot bytes", y = label, log_x = true, series = series}
  print(string.format("drew %s against slot size to %s", what, file))
end

draw("round_latency_us", "microseconds per round", "latency")
draw("mb_per_s", "MB/s", "throughput")
