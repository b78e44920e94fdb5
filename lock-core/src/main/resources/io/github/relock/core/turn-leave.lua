-- A client whose last local waiter of a plain lock gave up leaves the lock's line (turns.lua), so that no freed
-- lock is kept for a client that no longer wants it. If the lock is free and was kept for it, the next client
-- in line gets the turn (announced as a release does); with nobody left, it is free for whoever comes first.
-- KEYS[1] lock hash   KEYS[2] its turns   ARGV[1] the owner id that gave up   ARGV[2] release channel
-- ARGV[3] how long a freed lock is kept for a turn, in ms
-- Returns 1 if the client was in line, 0 otherwise.
local turn = turns(announce)
local client = turn.client(ARGV[1])
local queue = redis.call('get', KEYS[2])
local at = queue and turn.at(queue, client)
if not at then
  return 0
end
local first = at == 1
local rest = string.sub(queue, 1, at - 1) .. string.sub(queue, at + #client)
local kept = first and redis.call('exists', KEYS[1]) == 0 -- the freed lock was kept for this client
if rest == '' then
  redis.call('del', KEYS[2])
  if kept then
    announce(ARGV[2], '') -- open to whoever comes first
  end
elseif kept then
  redis.call('set', KEYS[2], rest)
  turn.announce(KEYS[2], rest, ARGV[2], ARGV[3])
else
  redis.call('set', KEYS[2], rest, 'keepttl')
end
return 1
