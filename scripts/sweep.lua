-- sweep.lua: slot bytes x credits -> time per round and throughput of the exchange.
--
--   residentlua --mode sim --seed 1 scripts/sweep.lua [out.csv [rounds [timing [samples [picture]]]]]
--
-- For every pair of slot size and credit count, sessions exchange `rounds`
-- generations (default 32). The figures come from the session's events: a
-- round ends when the NPU returns its credit, so
--   first_round_us  is the time from the decision to the end of round 1
--                   (it holds the NPU's start and its first sight of RUN),
--   round_us        is the steady-state time of one round: from the end of
--                   round 1 to the end of the last, divided by the rounds
--                   between them (n/a with one round),
--   MB_per_s        is slot_bytes / round_us, the steady-state throughput,
--   elapsed_us      is the whole exchange, decision to the last retirement,
--   npu_observe_us  is the time from the decision until the NPU saw RUN.
-- It prints a table and writes a CSV (default sweep.csv, which also has the
-- payload bytes), a row as each cell finishes. The fabric keeps the mode and seed of the command line and
-- uses the "published" timing profile unless told otherwise.
--
-- In simulated time the figures are the model's, charged exactly (stall 0:
-- without the published timing's jitter) and the same every time, so each
-- cell is one sample; the model charges no time for the GPU's writes
-- (they are posted), so credits cannot change them (the table says so). In real time
-- the figures are measured and vary: each cell is `samples` sessions
-- (default 5), reported as the median with the smallest and largest.
-- A figure that does not exist (no time passed, the NPU never observed)
-- is n/a.
--
-- It also draws two pictures (resident.plot) of the medians against slot
-- size, one line per credits value: the time per round and the
-- throughput. `picture` names them (default: the CSV's name with .svg, so
-- sweep.svg), its extension (.svg or .png) says their format, and the
-- figure goes before it: sweep_latency.svg and sweep_throughput.svg. A cell
-- without the figure (n/a with a single round, or 0 where no time passed, as
-- under the "ideal" timing in simulated time) is left out, and a figure with
-- no cell left is not drawn.

local usage = "usage: sweep.lua [out.csv [rounds [timing [samples [picture]]]]]"

-- refuse ends the script with a one-line message, before anything runs.
local function refuse(msg)
  io.stderr:write("sweep.lua: ", msg, "\n", usage, "\n")
  os.exit(1)
end

-- count reads argument i as a whole number of at least 1 (default def).
local function count(i, what, def)
  if arg[i] == nil then return def end
  local n = tonumber(arg[i])
  if not n or n ~= math.floor(n) or n < 1 then
    refuse(string.format("%s must be a whole number of at least 1, got %q", what, arg[i]))
  end
  return n
end

local csv_path = arg[1] or "sweep.csv"
local rounds = count(2, "rounds", 32)
local timing = arg[3] or "published"
local picture = arg[5] or (csv_path:gsub("%.[Cc][Ss][Vv]$", "") .. ".svg")
local ext = (picture:match("%.(%w+)$") or ""):lower()
if ext ~= "svg" and ext ~= "png" then
  refuse(string.format("the picture %q must end in .svg or .png", picture))
end
-- The CSV is opened first, so that a path that cannot be written fails now,
-- not after the whole sweep.
local csv, why = io.open(csv_path, "w")
if not csv then refuse("cannot write the CSV: " .. why) end

local fabric = resident.fabric{timing = timing}
local simulated = fabric.mode == "sim"
if simulated then
  -- One sample a cell: the figures exactly, without the published stalls.
  fabric = resident.fabric{timing = {profile = timing, stall = 0}}
end
local samples = simulated and 1 or count(4, "samples", 5)

local slot_sizes = {64, 256, 1024, 4096}
local credit_counts = {1, 2, 4}

-- rounds_ended returns the time the first and the last round seen ended
-- (the NPU's credit events) and how many rounds lie between them.
local function rounds_ended(s)
  local first, last
  for _, e in ipairs(s:events()) do
    if e.kind == "credit" then
      if not first or e.b < first.b then first = e end
      if not last or e.b > last.b then last = e end
    end
  end
  return first, last
end

-- exchange runs one session and returns its figures (nil where absent).
local function exchange(slot_bytes, credits)
  local s = startup{rounds = rounds, credits = credits, slot_bytes = slot_bytes}
  s:submit_gpu()
  s:submit_npu()
  s:start()
  assert(s:wait(10), "the exchange did not retire within 10 s")
  local st = s:stats()
  local first, last = rounds_ended(s)
  assert(s:close() == "retired")
  local elapsed = math.max(st.gpu.retired, st.npu.retired) - st.decided
  local r = {
    bytes = st.bytes,
    elapsed_us = elapsed * 1e6,
    npu_observe_us = st.npu.observed and (st.npu.observed - st.decided) * 1e6 or nil,
    verified = st.verification ~= nil and st.verification.ok,
  }
  if first and first.b == 1 then
    r.first_round_us = (first.time - st.decided) * 1e6
  end
  if first and last and last.b > first.b then
    r.round_us = (last.time - first.time) / (last.b - first.b) * 1e6
    r.MB_per_s = r.round_us > 0 and slot_bytes / r.round_us or nil -- bytes per µs are MB/s
  end
  return r
end

-- summary returns the median, smallest and largest of the values present.
local function summary(values)
  if #values == 0 then return nil end
  table.sort(values)
  local n = #values
  local median = n % 2 == 1 and values[(n + 1) / 2] or (values[n / 2] + values[n / 2 + 1]) / 2
  return {median = median, min = values[1], max = values[n]}
end

local figures = {"elapsed_us", "first_round_us", "round_us", "MB_per_s", "npu_observe_us"}

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

-- fmt formats a figure's median (or its smallest/largest), n/a when absent.
local function fmt(v, which)
  if v == nil then return "n/a" end
  return string.format("%.3f", v[which or "median"])
end

-- The CSV: the shape, then each figure's median, smallest and largest.
local header = {"slot_bytes", "credits", "rounds", "samples", "payload_bytes"}
for _, name in ipairs(figures) do
  header[#header + 1] = name
  header[#header + 1] = name .. "_min"
  header[#header + 1] = name .. "_max"
end
header[#header + 1] = "verified"
csv:write(table.concat(header, ","), "\n")

if simulated then
  print("simulated time: one sample per cell; the model charges no time for the GPU's writes,")
  print("so credits do not change these figures (measure them with --mode realtime)")
else
  print(string.format("real time: median of %d samples per cell, [smallest, largest] in the CSV", samples))
end
local columns = "%10s %7s %6s %10s %14s %8s %8s %14s %8s"
print(string.format(columns, "slot_bytes", "credits", "rounds", "elapsed_us",
  "first_round_us", "round_us", "MB_per_s", "npu_observe_us", "verified"))

local rows = {}
for _, b in ipairs(slot_sizes) do
  for _, c in ipairs(credit_counts) do
    local r = cell(b, c)
    rows[#rows + 1] = r
    print(string.format(columns, r.slot_bytes, r.credits, r.rounds, fmt(r.elapsed_us),
      fmt(r.first_round_us), fmt(r.round_us), fmt(r.MB_per_s), fmt(r.npu_observe_us), tostring(r.verified)))
    local fields = {r.slot_bytes, r.credits, r.rounds, r.samples, r.bytes}
    for _, name in ipairs(figures) do
      fields[#fields + 1] = fmt(r[name])
      fields[#fields + 1] = fmt(r[name], "min")
      fields[#fields + 1] = fmt(r[name], "max")
    end
    fields[#fields + 1] = tostring(r.verified)
    csv:write(table.concat(fields, ","), "\n")
    csv:flush()
  end
end
csv:close()
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
    print(string.format("no %s to draw (no cell has one: a single round, or no time passed); %s not written", what, file))
    return
  end
  resident.plot{file = file, kind = "lines", title = string.format("%s, %d rounds (%s)", what, rounds,
    simulated and "simulated time" or string.format("real time, median of %d", samples)),
    x = "slot size (bytes)", y = label, log_x = true, series = series}
  print(string.format("drew %s against slot size to %s", what, file))
end

draw("round_us", "time per round, steady state (µs)", "latency")
draw("MB_per_s", "throughput, steady state (MB/s)", "throughput")
