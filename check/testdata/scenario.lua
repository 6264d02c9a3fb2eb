-- Both submissions in either order, then START or ABORT, a wait whose
-- deadline may pass, and a close.
function scenario(s)
  local x = s.startup{rounds = s.rounds, credits = s.credits}
  if s.choose(2) == 0 then
    x:submit_gpu()
    x:submit_npu()
  else
    x:submit_npu()
    x:submit_gpu()
  end
  if s.choose(2) == 0 then
    x:start()
  else
    x:abort()
  end
  x:wait(0)
  x:close(1)
  s.reset()
end
