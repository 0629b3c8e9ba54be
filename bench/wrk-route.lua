-- wrk's script for one route of the bench (bench/wrk.mjs sets the variables):
-- the method, headers and body; addresses that vary (BENCH_ADDRESSES: `unique`,
-- a new query string on every request, or `mixed`, a share of those among a
-- set of popular addresses); a stop after BENCH_STOP_AFTER responses. It ends
-- with one line of JSON that bench/wrk.mjs reads, its own CPU time included.
local path = os.getenv("BENCH_PATH") or "/"
local addresses = os.getenv("BENCH_ADDRESSES")
local prefix = os.getenv("BENCH_PREFIX") or "wrk"
local popular = tonumber(os.getenv("BENCH_POPULAR") or "1")
local unique_share = tonumber(os.getenv("BENCH_UNIQUE_SHARE") or "0")
local stop_after = tonumber(os.getenv("BENCH_STOP_AFTER") or "0")

wrk.method = os.getenv("BENCH_METHOD") or "GET"
wrk.path = path
wrk.body = os.getenv("BENCH_BODY")
for name, value in (os.getenv("BENCH_HEADERS") or ""):gmatch("([^:\n]+): ([^\n]*)") do
  wrk.headers[name] = value
end

-- wrk builds its request once unless the script defines request(): only varying addresses pay for Lua per request.
if addresses == "unique" or addresses == "mixed" then
  local count = 0
  local separator = path:find("?", 1, true) and "&" or "?"
  local function unique ()
    count = count + 1
    return path .. separator .. "unique=" .. prefix .. "-" .. count
  end
  local function next_path ()
    if addresses == "unique" or math.random() < unique_share then return unique() end
    return path .. separator .. "popular=" .. math.random(0, popular - 1)
  end
  function request ()
    return wrk.format(nil, next_path())
  end
end

-- Likewise response(): wrk parses every response for Lua only when it is defined.
if stop_after > 0 then
  local seen = 0
  function response ()
    seen = seen + 1
    if seen >= stop_after then wrk.thread:stop() end
  end
end

-- utime + stime of this process, in clock ticks (fields 14 and 15 of /proc/self/stat).
local function cpu_ticks ()
  local file = io.open("/proc/self/stat")
  if not file then return -1 end
  local stat = file:read("*a")
  file:close()
  local fields = {}
  for field in stat:match("%) (.*)"):gmatch("%S+") do fields[#fields + 1] = field end
  return tonumber(fields[12]) + tonumber(fields[13])
end

function done (summary, latency)
  local errors = summary.errors
  io.write(string.format(
    "\nBENCH_RESULT {\"requests\":%d,\"durationMicros\":%d,\"bytes\":%d,\"errors\":{\"connect\":%d,\"read\":%d,\"write\":%d,\"status\":%d,\"timeout\":%d},\"latencyMicros\":{\"p50\":%d,\"p99\":%d,\"max\":%d},\"cpuTicks\":%d}\n",
    summary.requests, summary.duration, summary.bytes,
    errors.connect, errors.read, errors.write, errors.status, errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.max, cpu_ticks()))
end
