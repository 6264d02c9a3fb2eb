-- START may come before the NPU is submitted: the engine must refuse it.
function scenario(s)
  local x = s.startup{rounds = 1, credits = 1}
  x:submit_gpu()
  if s.choose(2) == 1 then
    x:start()
  end
  x:submit_npu()
  x:start()
  x:wait(1)
  x:close(1)
  s.reset()
end
