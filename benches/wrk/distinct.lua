-- wrk script: /search with queries that never repeat, read from the file named by the
-- SOLESCOPE_QUERIES environment variable (URL-encoded, one a line; benches/http_load.sh writes
-- it from the catalogue). wrk runs with 2 threads: thread 1 sends lines 1, 3, 5..., thread 2
-- lines 2, 4, 6..., so no query is sent twice unless the list runs out (reported at the end).
-- SOLESCOPE_QUERIES_SKIP lines are skipped first, so that runs in one session can take
-- different slices of the list (a restart with a cold page cache must not meet warm hits).
-- SOLESCOPE_QUERIES_COUNT, when set, sends only that many lines after the skipped ones, each
-- once, and then stops (to ask an earlier run's queries again, before the time is up).
local queries = {}
for line in io.lines(os.getenv("SOLESCOPE_QUERIES")) do
  queries[#queries + 1] = line
end
local skip = tonumber(os.getenv("SOLESCOPE_QUERIES_SKIP") or "0")
local count = tonumber(os.getenv("SOLESCOPE_QUERIES_COUNT") or "0")
local last = #queries
local first_again = 0
if count > 0 then
  last = math.min(#queries, skip + count)
  first_again = skip
end
local counter = 1
function setup(thread)
  thread:set("id", skip + counter)
  thread:set("lane", counter)
  counter = counter + 1
end
function init(args)
  i = id
end
request = function()
  local q = queries[i]
  i = i + 2
  if i > last then
    i = first_again + lane
    if count > 0 then
      wrk.thread:stop()
    end
  end
  return wrk.format("GET", "/search?query=" .. q, { ["Authorization"] = "demo-pro" })
end
function done(summary, latency, requests)
  local note = ""
  if count > 0 then
    note = " (each once, then stopped)"
  elseif summary.requests > #queries - skip then
    note = " (the list ran out: some queries repeated)"
  end
  io.write(string.format("distinct queries available: %d, requests sent: %d%s\n", last - skip,
    summary.requests, note))
end
