-- START may come before the NPU is submitted: the engine must refuse it,
-- raising a busy error.
function scenario(c)
  local s = startup{rounds = 1, credits = 1}
  s:submit_gpu()
  if c.choose(2, "an early start") == 1 then
    local ok, err = pcall(s.start, s)
    assert(not ok and err.kind == "busy", "an early start was not refused as busy")
  end
  s:submit_npu()
  s:start()
  s:wait(1)
  s:close(1)
  c.reset()
end
