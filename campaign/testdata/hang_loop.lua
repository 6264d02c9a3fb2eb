-- Every trial returns "fine" but the one of index 1, which loops for ever.
function trial(t)
  if t.index == 1 then while true do end end
  return "fine"
end
