-- Every trial returns "fine" but the one of index 1, which raises an error
-- whose __tostring loops for ever.
function trial(t)
  if t.index == 1 then error(setmetatable({}, {__tostring = function() while true do end end})) end
  return "fine"
end
