-- Take, re-enter or report the holder's remaining lease, in one atomic step.
-- KEYS[1] lock hash (field = owner id, value = hold count)   KEYS[2] fencing counter
-- ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] holds the caller believes it already has
-- ARGV[4] how long the fencing counter is kept after it last changed, in ms
-- The plain lock also passes KEYS[3], its clients' turns (turns.lua), and ARGV[5]: 1 if the caller will
-- wait (its client then takes a turn), ARGV[6]: how long a freed lock is kept for the client whose turn it
-- is, in ms, ARGV[7]: its release channel.
-- A fair lock passes KEYS[3], KEYS[4] instead (its waiting line, see line.lua) and ARGV[5]: how long the
-- caller's place in the line is kept (0: it will not wait, so it takes no place). It takes a free lock
-- only at the head of the line, and a busy reply then says when to try again at the latest.
-- A client that takes the lock on its turn announces '-', the line it was first in and its lease, so that a
-- waiting client that is not in it (it went while that client took its time) looks again and takes a turn,
-- and the clients behind it in line look once that lease ends (it may end unreleased, announced by nobody).
-- Last come the other kind's hash and fencing counter (the fair lock's for a plain one, the plain lock's for a
-- fair one): KEYS[4], KEYS[5] for a plain lock, KEYS[5], KEYS[6] for a fair one. The two kinds keep apart keys,
-- so a first acquisition refuses while the other kind is held. A plain lock's first attempt asks whether either
-- hash exists in its first call (EXISTS of both): on the common path, a free lock, that one call answers both
-- questions and its counter (KEYS[5]) is never read. A fair one reads the plain counter in the call that reads
-- its own, which says whether the last plain hold was released; only if not (held, expired or force-unlocked),
-- or if there is no counter, is the plain hash looked at: the counter is kept only for ARGV[4] after it last
-- changed, and a hold the watchdog renews may outlive it.
-- Returns {holds, token}: holds >= 1 acquired (on re-entry the token of the hold it enters),
-- {0, pttl} held by another owner (or kept for another client's turn), {-1, 0} the caller's earlier hold is
-- gone (expired or force-unlocked), {-2, 0} the other kind holds the lock.
-- (announce.lua, fence.lua and turns.lua are prepended for a plain lock; for a fair one, line.lua instead of
-- turns.lua: each path calls only its own kind's functions)
-- numbers are read where a path needs them: each tonumber is a strtod, and the common path needs none
local expected = ARGV[3] == '0' and 0 or tonumber(ARGV[3])
local fair = #KEYS == 6
-- a plain first attempt: whether the other kind holds the lock (nil: not known yet, see below)
local other_held = nil
local pttl = -2
if expected == 0 and not fair then
  -- one call for the common path: 0, neither this lock nor the fair one of its name is held
  local found = redis.call('exists', KEYS[1], KEYS[4])
  if found > 0 then
    pttl = redis.call('pttl', KEYS[1])
    other_held = found > (pttl == -2 and 0 or 1)
  else
    other_held = false
  end
else
  -- one call tells a free lock (-2) from a busy one, and gives a busy one's lease for the reply
  pttl = redis.call('pttl', KEYS[1])
end
local holds = 0
local other = nil -- a field of another owner: the holder
if pttl ~= -2 then
  -- one field as a rule: the caller's holds, or the holder, in the one call
  local fields = redis.call('hgetall', KEYS[1])
  for i = 1, #fields, 2 do
    if fields[i] == ARGV[1] then
      holds = tonumber(fields[i + 1])
    else
      other = fields[i]
    end
  end
end
-- by its owner's hand, not by expiry; see the replay case below
local replaced = false
if expected == 0 and holds > 0 then
  -- the caller knows of no hold, so this one is its own: a replayed first acquisition, or one the client
  -- lost track of (a release that never reached Redis, an acquisition that timed out but ran). Owner ids
  -- are unique per client instance, so no other process can match. Either way: a new hold, a new token
  redis.call('hdel', KEYS[1], ARGV[1])
  holds = 0
  replaced = true
  pttl = redis.call('pttl', KEYS[1]) -- the hash went with its only field
end
if holds < expected then
  return {-1, 0}  -- the caller's hold is gone (expired or force-unlocked)
end
if expected > 0 then
  -- a re-entry: the count becomes what the caller will believe. Set, not added to, so that a replayed
  -- re-entry never counts twice, and counts that failed releases left behind go
  redis.call('hset', KEYS[1], ARGV[1], expected + 1)
  -- re-entry may lengthen the lease, never shorten what an outer hold asked for
  local lease = tonumber(ARGV[2])
  if pttl < lease then
    redis.call('pexpire', KEYS[1], lease)
  end
  -- third: the lease before, which a re-entry no replica acknowledged is given back with (release.lua)
  return {expected + 1, tonumber((parse_fence(redis.call('get', KEYS[2])))) or 0, pttl}
end

local keep = 0
if pttl ~= -2 or fair then
  keep = tonumber(ARGV[5] or 0)
end
if pttl ~= -2 then
  if fair and keep > 0 then
    line_join(KEYS[3], KEYS[4], ARGV[1], line_now(), keep)
    return {0, math.min(pttl, math.floor(keep / 3))} -- back before its place lapses
  end
  local turn = not fair and keep > 0 and other and turns(announce)
  -- the owner id starts with its client's id, which holds no ':'
  local client = turn and turn.client(ARGV[1])
  if turn and string.sub(other, 1, #client) ~= client then
    -- a client waits for another one's hold: it takes a turn (its own holds pass between its threads)
    local queue = redis.call('get', KEYS[3]) or ''
    -- twice the holder's lease: a waiter looks again when that lease would end, and a late look (a busy
    -- machine) must still find its place when the holder renewed
    local keep_line = 2 * math.max(pttl, 0) + tonumber(ARGV[6])
    if not turn.queued(queue, client) then
      redis.call('set', KEYS[3], queue .. client, 'px', keep_line)
    elseif redis.call('pttl', KEYS[3]) < keep_line then
      -- the holder's lease was renewed since the line was set: the line lasts as long, with its clients in it
      redis.call('pexpire', KEYS[3], keep_line)
    end
  end
  return {0, pttl}
end
if fair then
  local now = line_now()
  local head, kept = line_head(KEYS[3], KEYS[4], now)
  if head and head ~= ARGV[1] then
    if keep > 0 then
      line_join(KEYS[3], KEYS[4], ARGV[1], now, keep)
    end
    -- the head was told and is on its way; if it died, its place lapses when kept ends
    return {0, math.max(1, math.min(kept - now, math.floor(math.max(keep, 3) / 3)))}
  end
  if head then
    line_leave(KEYS[3], KEYS[4], head)
  end
end

-- read only when a token is issued: a busy reply needs no counter; the turns come in the same call
local current, floor, released, queue, client
if fair then
  local texts = redis.call('mget', KEYS[2], KEYS[6])
  -- the plain lock holds it unless its counter says its last hold was released
  local _, _, plain_released = parse_fence(texts[2])
  if plain_released ~= '1' and redis.call('exists', KEYS[5]) == 1 then
    return {-2, 0}
  end
  current, floor, released = parse_fence(texts[1])
else
  if other_held then
    return {-2, 0}
  end
  local texts = redis.call('mget', KEYS[2], KEYS[3])
  current, floor, released = parse_fence(texts[1])
  queue = texts[2]
  local turn = queue and turns(announce)
  client = turn and turn.client(ARGV[1])
  if turn and turn.first(queue) ~= client then
    if not replaced then
      if tonumber(ARGV[5] or 0) > 0 and not turn.queued(queue, client) then
        -- in line now, so the announcement of the turn taken does not have to wake this client to join
        redis.call('set', KEYS[3], queue .. client, 'keepttl')
      end
      return {0, math.max(1, redis.call('pttl', KEYS[3]))} -- another client's turn: back when it lapses at the latest
    end
    queue = false -- the caller's own hold, replayed: it goes on as before, the line stays as it is
  end
end
if replaced then
  released = '1' -- what the replay replaces ended by its owner's hand: a retried release of it stays clean
end
-- the clock floor keeps tokens increasing even if the counter is gone (kept only for ARGV[4]): the token is
-- the later of the clock in µs and the last token + 1. While the clock leads, as it does but for bursts of more
-- than one token per µs, the clock's text is the token: same-length digit strings compare as their numbers
local now = redis.call('time')
local usec = now[2]
if #usec < 6 then
  usec = string.rep('0', 6 - #usec) .. usec
end
local text = now[1] .. usec
if current and #current >= #text and (#current > #text or current >= text) then
  -- %d: a bare Lua number may be written in exponent form and then never equal the token again
  text = string.format('%d', math.max(tonumber(now[1]) * 1000000 + tonumber(now[2]), (tonumber(current) or 0) + 1))
end
local token = tonumber(text)
if released ~= '1' or not floor then
  floor = text -- the last hold expired or was force-unlocked: the run of clean releases starts over
end
-- strings, not numbers: Redis turns a Lua number into a command argument at a cost of its own
redis.call('hset', KEYS[1], ARGV[1], '1')
redis.call('pexpire', KEYS[1], ARGV[2])
redis.call('set', KEYS[2], text .. ':' .. floor .. ':0', 'px', ARGV[4])
if queue then
  -- this client's turn, used: the rest of the line waits for the next release
  local rest = string.sub(queue, #client + 1)
  if rest == '' then
    redis.call('del', KEYS[3])
  else
    redis.call('set', KEYS[3], rest, 'px', 2 * tonumber(ARGV[2]) + tonumber(ARGV[6]))
  end
  announce(ARGV[7], '-' .. queue .. ARGV[2])
end
return {1, token}
