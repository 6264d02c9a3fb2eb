---@meta resident

-- Lua language-server definitions (LuaLS, `---@meta`) for residentlua's module
-- "resident". Nothing here runs: it tells editors what the API is, so they
-- complete and check it. Use it by adding this folder to the workspace
-- library, for example in .luarc.json:
--
--   { "workspace.library": ["docs"], "runtime.version": "Lua 5.1" }
--
-- docs/lua-api.md describes every function with an example.

---A number of seconds (finite, zero or more). Virtual in simulated time.
---@alias resident.Seconds number

---A size in bytes: a number, or a string with a binary unit such as "64", "4KiB", "2MiB", "1GiB".
---@alias resident.Size integer|string

---@alias resident.Mode "sim"|"realtime"
---@alias resident.Wait "spin"|"hybrid"|"block" spin: a core per device and one for the host; hybrid: poll, yield, then block; block: park at once
---@alias resident.GPUQueue "aql"|"pm4"
---@alias resident.Queue "pm4"|"aql"|"sdma"|"xdna"
---@alias resident.State "undecided"|"running"|"aborted"|"retired"|"poisoned"|"closed"|"quarantined"
---@alias resident.Outcome "retired"|"quarantined"
---@alias resident.ErrorKind "busy"|"unsupported"|"device"|"publish"|"budget"|"invalid"|"stale"
---The runtime's fault sites, or a site a program declares (its sites = {...}: lower-case words joined by dots).
---@alias resident.Site "gpu.dispatch"|"npu.dispatch"|"gpu.run"|"npu.run"|"npu.drain"|"gpu.complete"|"npu.complete"|"host.publish"|"memory.alloc"|"payload.corrupt"|string

---A protocol error, as raised by the module and returned by pcall. tostring(err) is "<kind>: <message>".
---@class resident.Error
---@field kind resident.ErrorKind what went wrong
---@field op string the operation that failed, such as "submit_npu" or "dispatch"
---@field message string what happened and what to do

---Timing overrides: a profile and any figures, in seconds or as Go durations ("10us").
---@class resident.TimingOptions
---@field profile? "ideal"|"published" the profile the overrides start from
---@field aql_dispatch? number|string AQL packet written to kernel start
---@field pm4_dispatch? number|string PM4 submission to kernel start
---@field xdna_dispatch? number|string XDNA command to NPU program start
---@field host_to_gpu? number|string a host store becomes visible to a polling GPU: a GPU program's load of a line
---@field npu_dma_line? number|string the NPU moves one 64-byte line by DMA: an NPU program's load, read or drain of a line
---@field completion? number|string a retirement is noticed by the host
---@field stall? number|string the longest stall of a device's step; above zero, each step's cost varies, drawn from the seed (0: exact figures)

---@class resident.GPUOptions
---@field queues? resident.Queue[] queue families in ordinal order (default {"pm4", "aql", "sdma"})
---@field fine_grained? boolean false: no fine-grained memory, so startup is unsupported (default true)
---@field name? string the device's name (default "gpu0")
---@field backend? "sim"|"cuda" "cuda": a real NVIDIA GPU runs the GPU half as a resident kernel (real time only; default "sim")

---@class resident.NPUOptions
---@field queues? resident.Queue[] queue families in ordinal order (default {"xdna"})
---@field name? string the device's name (default "npu0")

---@class resident.FabricOptions
---@field mode? resident.Mode simulated (deterministic by seed) or real time
---@field wait? resident.Wait how a real-time fabric waits (default "hybrid"; ignored in simulated time)
---@field seed? integer the seed of every random choice; 0 or nil: chosen and reported
---@field timing? "ideal"|"published"|resident.TimingOptions
---@field budget? resident.Size the memory budget (default "1GiB")
---@field gpu? resident.GPUOptions
---@field npu? resident.NPUOptions|false false: a fabric without an NPU

---@class resident.Fabric
---@field mode resident.Mode
---@field wait resident.Wait
---@field seed integer
---@field timing "ideal"|"published"|"custom"
---@field budget integer the budget's limit in bytes
---@field devices string[] device names in fabric order
---@field gpu string "sim", or the real GPU, such as "cuda: NVIDIA H200 (sm_90)"
---@field figures table<string, number> every timing figure in seconds

---The built-in exchange, or two programs of your own (docs/programs.md).
---@class resident.StartupOptions
---@field gpu? resident.GPUQueue|resident.Program|resident.Kernel the built-in exchange's GPU queue (default "aql"), or your GPU program
---@field npu? resident.Program your NPU program, with a GPU program
---@field rounds? integer the built-in exchange's generations, 1 to 1000000 (default 1)
---@field credits? integer the built-in exchange's ring slots, 1 to 64 (default 1)
---@field slot_bytes? resident.Size the built-in exchange's bytes per slot, a multiple of 8 from 8 to 1MiB (default 64)
---@field queue? resident.GPUQueue your GPU program's queue (default "aql")
---@field buffers? table<string, resident.Size> buffers your programs reach besides the startup line, by name; sizes here override what the programs declare
---@field args? table what both programs receive as args: numbers, strings, booleans and tables of them

---A device program written in Lua (docs/programs.md). tostring(prog) is "program <name>".
---@class resident.Program
---@field name string the program's file, or the name given to its source

---A user's PTX kernel as a GPU program (docs/cuda.md). tostring(k) is "kernel <entry> (<file>)".
---@class resident.Kernel

---@class resident.KernelOptions
---@field ptx string the PTX file
---@field entry string the kernel's name in it
---@field args? string[] names of startup's args whose whole-number values fill the kernel's block, in order

---@class resident.ProgramOptions
---@field file? string the program's file
---@field source? string the program's text, instead of a file
---@field name? string with source: the name messages give it (default "program")
---@field instructions? integer Lua instructions it may run between two memory operations, 1000 to 1e12 (default 1e7)
---@field check_instructions? integer Lua instructions its check and buffers function may run in all, 1000 to 1e12 (default 1e8)

---One participant's timeline, in seconds of fabric time; nil when the step never happened.
---@class resident.DeviceStats
---@field device string the device's name
---@field accepted? number the host saw the dispatch accepted
---@field observed? number the program saw the decision
---@field retired? number the program retired
---@field kernel_observed? number real GPU only: the kernel saw the decision, by its own clock aligned with the fabric's
---@field kernel_retired? number real GPU only: the kernel retired, by its own clock
---@field error? string the error it retired with

---@class resident.Verification
---@field ok boolean every generation consumed once, in order, checksum right
---@field rounds integer generations expected
---@field verified integer generations that passed
---@field problem? string the first thing wrong

---@class resident.Stats
---@field id integer
---@field seed integer the seed of the session's fabric
---@field state resident.State
---@field gpu_queue resident.GPUQueue
---@field rounds? integer the built-in exchange's; none for a session of programs
---@field credits? integer the built-in exchange's; none for a session of programs
---@field slot_bytes? integer the built-in exchange's; none for a session of programs
---@field bytes? integer the built-in exchange's payload bytes moved and verified; none for a session of programs
---@field decision? "run"|"abort"
---@field decided? number when the host recorded the decision
---@field gpu resident.DeviceStats
---@field npu resident.DeviceStats
---@field verification? resident.Verification the built-in exchange's, after a RUN session retired
---@field programs? {gpu: string, npu: string} a session of programs: their names
---@field check? {ok: boolean, problem?: string} a session of programs, once a RUN session retired: what their checks found
---@field suspected_hang? string real time only: why the session is suspected of a hang, with the deadlines that were given

---@class resident.Event
---@field seq integer position in the fabric's stream
---@field time number seconds of fabric time
---@field actor string "host" or a device name
---@field session integer
---@field kind string see docs/protocol.md, Events
---@field a number
---@field b number
---@field detail string

---@class resident.Quarantine
---@field session integer
---@field label string why, in words
---@field since number when it began, in seconds of fabric time
---@field bytes integer memory kept
---@field waiting string[] devices that must still be reset

---@class resident.Budget
---@field limit integer bytes allowed
---@field charged integer bytes held, quarantined included
---@field quarantined integer bytes held by quarantines

---@class resident.Violation
---@field invariant integer 1 to 8, as in docs/protocol.md
---@field session integer
---@field message string
---@field events integer how many of the session's events led to it

---A resident GPU–NPU session. tostring(s) is like "session 3 (running, aql, rounds=1000, credits=4, slot_bytes=64)".
---@class Session
---@field id integer the session's number in events (read-only)
---@field state resident.State where it stands (read-only)
local Session = {}

---Dispatches the GPU participant, once. A rejected dispatch publishes ABORT for the peer, then raises the device's error.
function Session:submit_gpu() end

---Dispatches the NPU participant, once. A rejected dispatch publishes ABORT for the peer, then raises the device's error.
function Session:submit_npu() end

---Publishes RUN; busy unless both participants were accepted.
function Session:start() end

---Publishes ABORT, before a decision only (busy after start).
function Session:abort() end

---Joins both participants under one deadline: true when both retired, false on timeout.
---@param seconds resident.Seconds
---@return boolean retired
function Session:wait(seconds) end

---Whether a decision was made and every accepted participant retired, without waiting.
---@return boolean
function Session:is_complete() end

---The drop path: aborts if undecided, joins for up to seconds (default 10), releases or quarantines.
---@param seconds? resident.Seconds
---@return resident.Outcome
function Session:close(seconds) end

---What the session did: shape, bytes, decision, per-device timeline, verification.
---@return resident.Stats
function Session:stats() end

---The session's events still held by its fabric, oldest first.
---@return resident.Event[]
function Session:events() end

---@class resident
resident = {}

---Makes a new fabric and makes it current (invalid while sessions are open); without an argument, describes the current one.
---@param opts? resident.FabricOptions
---@return resident.Fabric
function resident.fabric(opts) end

---Makes a device program written in Lua, from a file or a source string, for resident.startup{gpu = ..., npu = ...}.
---@param opts resident.ProgramOptions
---@return resident.Program
function resident.program(opts) end

---Makes a GPU program of your own PTX kernel, for a fabric whose GPU is real (--gpu cuda), to run beside an NPU program.
---@param opts resident.KernelOptions
---@return resident.Kernel
function resident.kernel(opts) end

---Makes a session on the fabric's first GPU and NPU: the built-in exchange, or two programs of your own.
---@param opts? resident.StartupOptions
---@return Session
function resident.startup(opts) end

---@param s Session
function resident.submit_gpu(s) end

---@param s Session
function resident.submit_npu(s) end

---@param s Session
function resident.start(s) end

---@param s Session
function resident.abort(s) end

---@param s Session
---@param seconds resident.Seconds
---@return boolean retired
function resident.wait(s, seconds) end

---@param s Session
---@return boolean
function resident.is_complete(s) end

---@param s Session
---@param seconds? resident.Seconds
---@return resident.Outcome
function resident.close(s, seconds) end

---@param s Session
---@return resident.Stats
function resident.stats(s) end

---@param s Session
---@return resident.Event[]
function resident.events(s) end

---The sessions not yet closed, oldest first.
---@return Session[]
function resident.sessions() end

---Sets a fault site's chain of terms `[p%][N*]action[(arg)]` joined by `->`; "off" clears it.
---@param site resident.Site
---@param term string
function resident.fault(site, term) end

---The configured fault sites and their terms.
---@return table<resident.Site, string>
function resident.faults() end

---Clears every fault site.
function resident.clear_faults() end

---Resets a device ("gpu", "npu" or a name): stops what runs on it and ends quarantines whose devices were all reset.
---@param device "gpu"|"npu"|string
function resident.reset(device) end

---The quarantines in force, oldest first.
---@return resident.Quarantine[]
function resident.quarantined() end

---The memory budget.
---@return resident.Budget
function resident.budget() end

---The protocol oracle's violations; a correct engine has none.
---@return resident.Violation[]
function resident.violations() end

---The fabric's clock in seconds (virtual in simulated time).
---@return number
function resident.now() end

---The current fabric's seed.
---@return integer
function resident.seed() end

---Runs one randomized protocol trial (the engine's campaign harness) on a fabric of its own and returns what it found.
---@param opts? {seed?: integer, sessions?: integer, rounds?: integer, credits?: integer, faults?: integer, mode?: "sim"|"realtime", gpu?: resident.Program, npu?: resident.Program, args?: table<string, number|string|boolean>}
---@return {ok: boolean, seed: integer, settled: boolean, events: integer, digest: string, elapsed: number, outcomes: table<string, integer>, faults: string[], fired: table<string, integer>, violations: {invariant: integer, session: integer, message: string}[], problems: string[], report: string}
function resident.trial(opts) end

---Model checking: explores every schedule of the built-in scenario, or of a scenario script, within bounds and returns the shortest counterexample of each invariant broken; with replay, reruns one schedule.
---@param opts? {scenario?: string, programs?: {[1]: resident.Program, [2]: resident.Program}, args?: table<string, number|string|boolean>, rounds?: integer, credits?: integer, faults?: integer, preemptions?: integer, steps?: integer, sessions?: integer, misuse?: boolean|integer, prune?: boolean, replay?: string}
---@return {ok: boolean, schedules: integer, states: integer, pruned: integer, truncated: integer, made: integer, decided: integer, retired: integer, exhausted: boolean, elapsed: number, scenario_errors: integer, scenario_error?: string, counterexamples: {invariant: integer, violation: string, replay: string, length: integer, steps: string[], events: string[], text: string}[], report: string}|{ok: boolean, steps: string[], violations: {invariant: integer, session: integer, message: string, events: string[]}[]}
function resident.check(opts) end

---Checks traces, recorded runs of any implementation of the session (docs/traces.md), against the oracle's invariants and returns what it found.
---@param file string
---@param ... string more traces, merged by time
---@return {ok: boolean, events: integer, sessions: integer, checked: integer[], not_checked: {invariant: integer, why: string}[], violations: {invariant: integer, text: string, message: string, session: integer, file: string, line: integer, event: string, count: integer, events: string[]}[], truncated?: string, report: string}
function resident.validate(file, ...) end

---What a check scenario's function scenario(c) gets from the model checker (docs/checking.md); the scenario drives sessions with this module's functions.
---@class resident.CheckScenario
---@field choose fun(n: integer, what?: string): integer a host-side choice from 0 to n-1, which the checker varies from run to run; what says what is chosen, in a counterexample
---@field reset fun() resets every device and checks that nothing is left charged
---@field args table<string, number|string|boolean> the scenario's arguments by name (the command's --arg k=v)
---@field rounds integer the built-in exchange's rounds (the command's --rounds): an argument of that pair, not a bound
---@field credits integer the built-in exchange's credits (the command's --credits): an argument of that pair, not a bound
---@field faults integer the faults bound (0: none)
---@field sessions integer the sessions bound: how many sessions the built-in scenario may make that share the devices
---@field misuse boolean the misuse bound: whether the built-in scenario also makes host calls out of order

---What resident.plot draws, and where.
---@class resident.PlotOptions
---@field file string the picture's file: its extension, .svg or .png, says the format (16 cm x 10 cm; a PNG is 605 x 378 pixels)
---@field kind "cdf"|"lines" "cdf": the distribution of each series' values; "lines": y against x
---@field series table<string, number[]>|table<string, {[1]: number, [2]: number}[]> one line per name (drawn in sorted order): values for "cdf", {x, y} points for "lines"
---@field title? string the picture's title
---@field x? string the x axis' label
---@field y? string the y axis' label ("lines" only)
---@field log_x? boolean a log-scaled x axis (every x must be positive)
---@field log_y? boolean a log-scaled y axis ("lines" only; every y must be positive)

---Draws a script's figures into an SVG or PNG file: each series' distribution as a CDF, or y against x as lines.
---@param opts resident.PlotOptions
function resident.plot(opts) end

---A buffer as a program or a check sees it (docs/programs.md): pass it to the memory operations.
---@class resident.ProgramBuffer
---@field name string the buffer's name
---@field size integer its bytes

---What a program's run(p, args) gets: its view of the session, and one step of the model per memory operation (docs/programs.md).
---@class resident.ProgramHandle
---@field startup resident.ProgramBuffer the startup line: word 0 is the decision
---@field buffers table<string, resident.ProgramBuffer> each buffer the programs declared, by name
---@field args table the same table as run's args
---@field device string the device's name ("gpu0")
---@field kind "gpu"|"npu"
---@field queue "aql"|"pm4"|"xdna"
---@field owner integer the session's id, which tags its events
---@field timing table<string, number> the fabric's timing figures in seconds (host_to_gpu, npu_dma_line, ..., stall), which the runtime charges for memory operations
---@field WAIT integer the startup word before a decision (0)
---@field RUN integer the startup word's RUN (1)
---@field ABORT integer the startup word's ABORT (2)
local ProgramHandle = {}
---Reads the word at off (a byte offset, a multiple of 4) as the program's queue family sees it.
---@param buf resident.ProgramBuffer
---@param off integer
---@return integer
function ProgramHandle:load(buf, off) end
---Waits until the word, as the family sees it, is not old, then reads it.
---@param buf resident.ProgramBuffer
---@param off integer
---@param old integer
---@return integer
function ProgramHandle:wait(buf, off, old) end
---Writes the word with release ordering: publishes this program's plain stores before it, and wakes waiters.
---@param buf resident.ProgramBuffer
---@param off integer
---@param v integer
function ProgramHandle:store(buf, off, v) end
---Writes the word with no ordering of its own and wakes no waiter: another program reads it only after it loaded a later store of this program (rule 8).
---@param buf resident.ProgramBuffer
---@param off integer
---@param v integer
function ProgramHandle:store_plain(buf, off, v) end
---Reads n words in one step (a DMA, a vector load), into a table of its own or into.
---@param buf resident.ProgramBuffer
---@param off integer
---@param n integer
---@param into? integer[]
---@return integer[]
function ProgramHandle:read(buf, off, n, into) end
---Writes #words words with plain stores in one step.
---@param buf resident.ProgramBuffer
---@param off integer
---@param words integer[]
function ProgramHandle:write(buf, off, words) end
---Writes the view's pending stores to memory, in the order they were first made.
---@param buf resident.ProgramBuffer
---@return integer written
function ProgramHandle:drain(buf) end
---Forgets the pending stores.
---@param buf resident.ProgramBuffer
function ProgramHandle:discard(buf) end
---XORs mask into the word in memory, with no ordering.
---@param buf resident.ProgramBuffer
---@param off integer
---@param mask integer
function ProgramHandle:flip(buf, off, mask) end
---Lets modelled time pass.
---@param seconds number
function ProgramHandle:delay(seconds) end
---Stops the program for good: it never retires.
function ProgramHandle:hang() end
---Ends the program, with a device error when a message is given.
---@param message? string
function ProgramHandle:retire(message) end
---Hits a fault site: nil, or the action ("hang", "crash", "delay", "skip", "flip", "error", ...) and its argument.
---@param site resident.Site
---@return string|nil action
---@return string|number|nil argument
function ProgramHandle:fault(site) end
---Records an event of the invocation: observe and the round kinds by their names, any other name as a note.
---@param name string
---@param value? integer
---@param detail? string
function ProgramHandle:event(name, value, detail) end
---The fabric's clock, in seconds.
---@return number
function ProgramHandle:now() end

---What a program's check(c, args) gets once the session retired under RUN: reads of the buffers as the host sees them, during the check only.
---@class resident.CheckHandle
---@field startup resident.ProgramBuffer
---@field buffers table<string, resident.ProgramBuffer>
---@field args table
---@field owner integer
local CheckHandle = {}
---@param buf resident.ProgramBuffer
---@param off integer
---@return integer
function CheckHandle:load(buf, off) end
---@param buf resident.ProgramBuffer
---@param off integer
---@param n integer
---@return integer[]
function CheckHandle:read(buf, off, n) end

---What a campaign's trial(t) gets (docs/campaigns.md).
---@class resident.Trial
---@field seed integer the trial's seed, the campaign's plus index
---@field index integer the trial's index in the campaign, from 0
---@field fabric table the trial's fabric, as resident.fabric() describes it
---@field random fun(m?: integer, n?: integer): number math.random, seeded with the trial's seed
---@field record fun(name: string, value: number) a measurement: a number from 0 to 1e9 under a name of at most 64 bytes
---@field fail fun(msg?: any) the trial fails with msg
---@field args table<string, number|string|boolean> the script's arguments by name (the command's --arg k=v)

-- The command (residentlua) also sets the six verbs as globals.

---@param opts? resident.StartupOptions
---@return Session
function startup(opts) end

---@param s Session
function submit_gpu(s) end

---@param s Session
function submit_npu(s) end

---@param s Session
function start(s) end

---@param s Session
function abort(s) end

---@param s Session
---@param seconds resident.Seconds
---@return boolean retired
function wait(s, seconds) end

return resident
