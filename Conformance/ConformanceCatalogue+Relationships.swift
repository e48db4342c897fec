import StoreCore

extension ConformanceCatalogue {
    /// Relationships and delete rules: #17, #21.
    public static let relationships: [ConformanceCase] = [
        ConformanceCase("inverse updated immediately", behaviour: 17, area: .relationships) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let crew = try stack.context.insert(entityName: "Team")
            let fire = try stack.context.insert(entityName: "Team")
            let player = try stack.context.insert(entityName: "Player")
            try crew.addObject(player, toKey: "players")
            try env.expect(player.object(forKey: "team") === crew, "adding to team.players sets player.team")
            try player.setObject(fire, forKey: "team")
            try env.expect(!crew.objects(forKey: "players").contains(player), "re-parenting removes it from the old team")
            try env.expect(fire.objects(forKey: "players").contains(player), "re-parenting adds it to the new team")
            try crew.setObjects([player], forKey: "players")
            try env.expect(player.object(forKey: "team") === crew, "setObjects sets the inverse")
            try env.expectEqual(fire.objects(forKey: "players").count, 0, "and clears the previous team")
            try crew.removeObject(player, fromKey: "players")
            try env.expect(player.object(forKey: "team") == nil, "removing clears the inverse")
            try stack.context.save()
            try player.setObject(crew, forKey: "team")
            try env.expect(crew.objects(forKey: "players").contains(player), "inverse of saved objects")
        },
        ConformanceCase("league cascade and nullify", behaviour: 21, area: .deleteRules, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let context = stack.context
            func team(_ name: String) throws -> ManagedObject {
                let team = try context.insert(entityName: "Team")
                try team.setValue(name, forKey: "name")
                return team
            }
            func player(_ first: String, _ last: String, _ team: ManagedObject) throws -> ManagedObject {
                let player = try context.insert(entityName: "Player")
                try player.setValue(first, forKey: "firstName")
                try player.setValue(last, forKey: "lastName")
                try player.setObject(team, forKey: "team")
                return player
            }
            let crew = try team("Crew")
            let fire = try team("Fire")
            _ = try team("Revolution")
            _ = try player("Jordan", "Gordon", crew)
            let pat = try player("Pat", "Sprat", crew)
            _ = try player("Bailey", "Staley", crew)
            _ = try player("Terry", "Gary", fire)
            try context.save()
            context.delete(pat)
            try context.save()
            try env.expectEqual(crew.objects(forKey: "players").count, 2, "Crew players after deleting Pat Sprat")
            context.delete(fire)
            try context.save()
            let loaded = try env.reload(stack)
            try env.expectEqual(try loaded.count("Team"), 2, "teams after deleting Fire (\(env.variant))")
            try env.expectEqual(try loaded.count("Player"), 2, "players after the cascade (\(env.variant))")
            let names = Set(try loaded.fetch("Player").compactMap { $0.value(forKey: "lastName", as: String.self) })
            try env.expectEqual(names, ["Gordon", "Staley"], "remaining players")
            let loadedCrew = try loaded.fetch("Team").first { $0.value(forKey: "name") == "Crew" }
            try env.expectEqual(loadedCrew?.objects(forKey: "players").count, 2, "Crew's players (\(env.variant))")
        },
    ]
}
