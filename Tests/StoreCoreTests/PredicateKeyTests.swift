import Foundation
import PersistentStores
import Testing

private enum UserKeys {
    static let name = PredicateKey<String?>("name")
    static let firstName = PredicateKey<String>("firstName")
    static let lastName = PredicateKey<String>("lastName")
    static let age = PredicateKey<Int64>("age")
    static let team = PredicateKey<ObjectID?>("team")
    static let teamName = PredicateKey<String?>("team.name")
    static let postTitles = PredicateKey<String>("posts.title")
    static let posts = PredicateKey<[ObjectID]>("posts")
}

@Suite struct PredicateKeyTests {
    @Test func typedKeysBuildTheSamePredicatesAsFormatStrings() throws {
        let crew = ObjectID(storeIdentifier: "S", entityName: "Team", reference: .int(1))
        let pairs: [(FetchPredicate, String, [any PredicateArgument])] = [
            (UserKeys.age > 30, "age > 30", []),
            (UserKeys.age >= 30 && UserKeys.age <= 40, "age >= 30 AND age <= 40", []),
            (UserKeys.age < 3 || UserKeys.age != 5 || UserKeys.age == 7, "age < 3 OR age != 5 OR age == 7", []),
            (UserKeys.name.beginsWith("A", options: .caseInsensitive), "name BEGINSWITH[c] 'A'", []),
            (UserKeys.name.endsWith("z") && UserKeys.name.contains("q", options: [.caseInsensitive, .diacriticInsensitive]),
             "name ENDSWITH 'z' AND name CONTAINS[cd] 'q'", []),
            (UserKeys.name.like("a*") || UserKeys.name.matches("[a-z]+"), "name LIKE 'a*' OR name MATCHES '[a-z]+'", []),
            (UserKeys.name.equals("x", options: .caseInsensitive), "name ==[c] 'x'", []),
            (UserKeys.name == nil, "name == nil", []),
            (UserKeys.team != nil, "team != nil", []),
            (UserKeys.team == crew, "team == %@", [crew]),
            (UserKeys.teamName == "Crew", "team.name == 'Crew'", []),
            (UserKeys.age.in([1, 2]), "age IN {1, 2}", []),
            (UserKeys.age.between(1, 9), "age BETWEEN {1, 9}", []),
            (UserKeys.firstName == UserKeys.lastName, "firstName == lastName", []),
            (UserKeys.postTitles.any.contains("swift"), "ANY posts.title CONTAINS 'swift'", []),
            (UserKeys.postTitles.all.beginsWith("a"), "ALL posts.title BEGINSWITH 'a'", []),
            (UserKeys.postTitles.none == "x", "NONE posts.title == 'x'", []),
            (UserKeys.posts.count > 2, "posts.@count > 2", []),
            (!(UserKeys.age > 3), "NOT age > 3", []),
            (PredicateKey<Team?>("team").appending(PredicateKey<String?>("name")) == "Crew", "team.name == 'Crew'", []),
        ]
        for (built, format, arguments) in pairs {
            #expect(built == (try FetchPredicate(format: format, argumentArray: arguments)), "\(format)")
        }
    }

    @Test func managedObjectsAreEvaluableAndStandForTheirIDs() throws {
        let context = ManagedObjectContext(coordinator: try TypedSubclassTests.coordinator())
        let crew = try context.insert(Team.self)
        crew.name = "Crew"
        let fire = try context.insert(Team.self)
        fire.name = "Fire"
        let jordan = try context.insert(Player.self)
        jordan.lastName = "Gordon"
        jordan.team = crew
        let onCrew = try FetchPredicate(format: "team == %@", crew)
        #expect(try onCrew.evaluate(with: jordan))
        #expect(try !FetchPredicate(format: "team == %@", fire).evaluate(with: jordan))
        #expect(try FetchPredicate(format: "team.name == 'Crew' AND lastName BEGINSWITH[c] 'g'").evaluate(with: jordan))
        #expect(try FetchPredicate(format: "ANY players.lastName == 'Gordon' AND players.@count == 1").evaluate(with: crew))
        #expect(try FetchPredicate(format: "players CONTAINS %@", jordan).evaluate(with: crew))
        #expect(try FetchPredicate(format: "SELF IN %@", [crew, fire]).evaluate(with: fire))
        let sorted = try SortKey.sort([fire, crew], by: [SortKey("name")]) { $0 }
        #expect(sorted.map(\.objectID) == [crew.objectID, fire.objectID])
    }
}
