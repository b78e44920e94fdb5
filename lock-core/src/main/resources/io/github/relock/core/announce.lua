-- Prepended to every script that announces a release (see LuaScript): PUBLISH, which a Redis Cluster copies to
-- every node; announce-sharded.lua replaces it on a cluster.
local function announce(channel, message)
  redis.call('publish', channel, message)
end
