-- wrk script: mixed /search queries (words, prefixes, typos, codes) with a demo key.
-- Used by benches/http_load.sh; see docs/benchmarks.md.
local queries = {
  "jordan%201%20chicago", "dunk%20low%20panda", "yeezy%20350%20zebra", "samba%20og",
  "new%20balance%20550", "gel%20kayano%2014", "jordan%204%20military%20blue",
  "air%20force%201%20triple%20white", "9060%20sea%20salt", "jordon%201%20chicgo",
  "yezy%20slate", "new%20balence%20550", "jodran%20mocha", "dunk%20lo", "samb", "campus%2000",
}
local i = 0
request = function()
  i = i + 1
  local q = queries[(i % #queries) + 1]
  return wrk.format("GET", "/search?query=" .. q, { ["Authorization"] = "demo-pro" })
end
