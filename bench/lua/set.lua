-- read-reply.lua plus one plain SET per key (a constant state, no TTL), for
-- bench/callgrind-script.ts --script: what a write without an expiry adds.
--   KEYS   the buckets (already prefixed), read with one MGET and each written once
--   ARGV   lua/bucket.lua's arguments (ignored)
-- Reply: { 1, 'ok', 4000, 'ok', 4000, ... }, one pair per key.
local got = redis.call('MGET', unpack(KEYS))
local time = redis.call('TIME')
for i = 1, #KEYS do redis.call('SET', KEYS[i], 'abcdef0123456:1') end
local reply = { 1 }
for i = 1, #KEYS do reply[2 * i], reply[2 * i + 1] = 'ok', 4000 end
return reply
