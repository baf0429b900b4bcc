-- read-reply.lua plus one SET … PXAT per key (a constant state expiring at a constant instant, ms),
-- for bench/callgrind-script.ts --script: the floor of lua/bucket.lua's design (one key per
-- bucket, an expiry on every write) without any of its arithmetic.
--   KEYS   the buckets (already prefixed), read with one MGET and each written once
--   ARGV   lua/bucket.lua's arguments (ignored)
-- Reply: { 1, 'ok', 4000, 'ok', 4000, ... }, one pair per key.
local got = redis.call('MGET', unpack(KEYS))
local time = redis.call('TIME')
for i = 1, #KEYS do redis.call('SET', KEYS[i], 'abcdef0123456:1', 'PXAT', 1900000000000) end
local reply = { 1 }
for i = 1, #KEYS do reply[2 * i], reply[2 * i + 1] = 'ok', 4000 end
return reply
