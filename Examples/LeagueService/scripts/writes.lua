-- wrk script: a write mix, half POST /players (a new player on a random seeded team), half
-- PATCH /players/:id (a random seeded player's number; no If-Match, so no 409 is expected).
-- The keys come from the files LEAGUE_PLAYER_IDS and LEAGUE_TEAM_IDS name (load.sh writes them).
local function keys(variable)
    local list = {}
    for line in io.lines(os.getenv(variable)) do list[#list + 1] = line end
    return list
end
local players = keys("LEAGUE_PLAYER_IDS")
local teams = keys("LEAGUE_TEAM_IDS")
local headers = { ["Content-Type"] = "application/json" }
local counter = 0

request = function()
    counter = counter + 1
    if counter % 2 == 0 then
        local body = string.format('{"name":"Load %d","number":%d,"team":"%s"}', counter, counter % 99, teams[math.random(#teams)])
        return wrk.format("POST", "/players", headers, body)
    end
    local body = string.format('{"number":%d}', counter % 99)
    return wrk.format("PATCH", "/players/" .. players[math.random(#players)], headers, body)
end
