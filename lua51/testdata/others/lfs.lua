-- A pure Lua stand-in for LuaFileSystem (a C module), so that Penlight's
-- pl.path loads in both interpreters; it asks the shell (test, ls, mkdir,
-- rmdir, touch) what LuaFileSystem would ask the C library.
local lfs = {}
local function q(p) return "'" .. p:gsub("'", "'\\''") .. "'" end
local function sh(cmd) return os.execute(cmd .. " 2>/dev/null") == 0 end
lfs.attributes = function(p, what)
  local a
  if sh("test -d " .. q(p)) then a = {mode = "directory", size = 4096}
  elseif sh("test -e " .. q(p)) then
    local f = io.open(p, "rb"); local n = f and f:seek("end") or 0; if f then f:close() end
    a = {mode = "file", size = n}
  else return nil, p .. ": No such file or directory" end
  if what then return a[what] end
  return a
end
lfs.symlinkattributes = lfs.attributes
lfs.currentdir = function() local f = io.popen("pwd"); local d = f:read("*l"); f:close(); return d end
lfs.dir = function(p)
  local f = io.popen("ls -a " .. q(p))
  return function() local l = f:read("*l"); if not l then f:close() end; return l end
end
local function run(cmd) return function(p) if sh(cmd .. " " .. q(p)) then return true end return nil, p .. ": failed" end end
lfs.mkdir, lfs.rmdir, lfs.touch = run("mkdir"), run("rmdir"), run("touch")
lfs.chdir = function() return nil, "lfs stand-in: chdir not available" end
return lfs
