-- Both submissions in either order, then START or ABORT, a wait whose
-- deadline may pass, and a close.
function scenario(c)
  local s = startup{rounds = c.rounds, credits = c.credits}
  if c.choose(2, "the order of the submissions") == 0 then
    s:submit_gpu()
    s:submit_npu()
  else
    s:submit_npu()
    s:submit_gpu()
  end
  if c.choose(2, "start or abort") == 0 then
    s:start()
  else
    s:abort()
  end
  s:wait(0)
  s:close(1)
  c.reset()
end
