-- Part of a bucket script call's cost, for bench/callgrind-script.ts --script: what any bucket
-- script pays per call whatever it computes. Same KEYS and ARGV as lua/bucket.lua (unread).
--   KEYS   the buckets (already prefixed), read with one MGET
--   ARGV   lua/bucket.lua's arguments (ignored)
-- Reply: { 1, 'ok', 4000, 'ok', 4000, ... }, one pair per key, the shape of lua/bucket.lua's.
local got = redis.call('MGET', unpack(KEYS))
local time = redis.call('TIME')
local reply = { 1 }
for i = 1, #KEYS do reply[2 * i], reply[2 * i + 1] = 'ok', 4000 end
return reply
