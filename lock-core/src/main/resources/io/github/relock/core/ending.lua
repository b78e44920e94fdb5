-- Prepended to release.lua and transfer.lua (after fence.lua): what ending a hold reads first, in one place.
-- The fencing counter (KEYS[2]) and, for a plain lock, its turns (KEYS[3]) in the same call, as token, floor,
-- released (see fence.lua) and the turns (nil: none). With no counter at all (it outlived its retention during a
-- hold longer than that) the hash decides, and the counter reads as the ending hold's own, token.
local function read_ending(fair, token)
  local current, floor, released, queue
  if fair then
    current, floor, released = parse_fence(redis.call('get', KEYS[2]))
  else
    local texts = redis.call('mget', KEYS[2], KEYS[3])
    current, floor, released = parse_fence(texts[1])
    queue = texts[2]
  end
  if not current then
    return token, token, '0', queue
  end
  return current, floor, released, queue
end
