-- End the holds of one side of a read-write lock, or of both, whoever holds them, and wake the waiters that may
-- go now. Retried releases of those holds then find them gone, and report them lost.
-- KEYS[1] lock hash (layout: rw-state.lua, prepended)   ARGV[1] writers' release channel
-- ARGV[2] readers' release channel   ARGV[3] which holds: 'w' the write hold, 'r' the read holds, '' every hold
-- Returns 1 if a hold was ended, 0 if there was none of that side.
local hash, side = KEYS[1], ARGV[3]
local state = rw_state(hash, rw_now())
if side == '' then
  if redis.call('del', hash) == 0 then
    return 0
  end
  announce(ARGV[2], '')
  announce(ARGV[1], '')
  return 1
end
if side == 'w' then
  if not state.writer then
    return 0
  end
  rw_drop(hash, state.writer)
  announce(ARGV[2], '') -- every waiting reader may go now
  if state.readers == 0 then
    announce(ARGV[1], '') -- and one waiting writer, if no reader is inside
  end
  return 1
end
if state.readers == 0 then
  return 0
end
local flat = redis.call('hgetall', hash)
for i = 1, #flat, 2 do
  local suffix = string.sub(flat[i], -2)
  if suffix ~= ':e' and suffix ~= ':t' and suffix ~= ':i' and suffix ~= ':g' and suffix ~= ':w' then
    rw_drop(hash, flat[i])
  end
end
if not state.writer then
  announce(ARGV[1], '') -- the last reader out: one waiting writer may go
end
return 1
