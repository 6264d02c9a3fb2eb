-- os.date("!*t") fields, yday consistent with %j, for fixed times in UTC.
local function show(t)
  local d = os.date("!*t", t)
  print(d.year, d.month, d.day, d.yday, d.wday, d.hour, d.min, d.sec, d.isdst,
    d.yday == tonumber(os.date("!%j", t)), os.date("!%Y-%m-%d %H:%M:%S %j %a %b", t))
end
show(0)
show(86400 * 40)
show(86400 * 365 + 3600 * 13 + 61)
show(951782400) -- 2000-02-29
show(1703980800 + 86399) -- 2023-12-31 23:59:59
print(os.date("!%d/%m/%y", 86400 * 40), type(os.date()), type(os.time()))
print(os.date("*t", 86400 * 40).yday == tonumber(os.date("%j", 86400 * 40)))
