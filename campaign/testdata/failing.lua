-- Trials that fail on purpose: every third calls t.fail, every fifth raises.
function trial(t)
  t.record("index", t.index)
  if t.index % 5 == 4 then error("boom at " .. t.index) end
  if t.index % 3 == 2 then t.fail("unlucky " .. t.seed) end
  return "done"
end
