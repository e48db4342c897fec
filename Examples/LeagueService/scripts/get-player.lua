-- wrk script: GET /players/:id for a random seeded player (the keys, one a line, in the file
-- LEAGUE_PLAYER_IDS names; load.sh writes it while seeding).
local ids = {}
for line in io.lines(os.getenv("LEAGUE_PLAYER_IDS")) do ids[#ids + 1] = line end

request = function()
    return wrk.format("GET", "/players/" .. ids[math.random(#ids)])
end
