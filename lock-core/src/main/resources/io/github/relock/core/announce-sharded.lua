-- Replaces announce.lua on a Redis Cluster: SPUBLISH reaches the lock's shard only (the channel carries the
-- lock's hash tag, so its slot); a server without it (before Redis 7) gets PUBLISH, which its waiters hear.
local function announce(channel, message)
  local reply = redis.pcall('spublish', channel, message)
  if type(reply) == 'table' and reply.err then
    redis.call('publish', channel, message)
  end
end
