import Foundation
import Hummingbird
import PersistentStores

/// A team as the API shows it.
public struct TeamRecord: ResponseCodable, Equatable, Sendable {
    /// The team's key in its store.
    public var id: String
    /// The name.
    public var name: String
    /// The city, if known.
    public var city: String?
    /// The keys of its players.
    public var players: [String]
    /// The row version (also the response's `ETag`).
    public var version: Int64
}

/// A player as the API shows it.
public struct PlayerRecord: ResponseCodable, Equatable, Sendable {
    /// The player's key in its store.
    public var id: String
    /// The name.
    public var name: String
    /// The shirt number, if any.
    public var number: Int?
    /// The team's key, if the player has a team.
    public var team: String?
    /// The row version (also the response's `ETag`).
    public var version: Int64
}

/// One page of a list.
public struct Page<Item: Codable & Sendable>: ResponseCodable, Sendable {
    /// The items of the page.
    public var items: [Item]
    /// How many items match the filter in all.
    public var total: Int
}

/// A new team, or the fields of a team to change (`PATCH`: absent fields are kept).
public struct TeamInput: Codable, Sendable {
    /// The name.
    public var name: String?
    /// The city.
    public var city: String?

    /// A team input.
    public init(name: String? = nil, city: String? = nil) {
        self.name = name
        self.city = city
    }
}

/// A new player, or the fields of a player to change.
public struct PlayerInput: Codable, Sendable {
    /// The name.
    public var name: String?
    /// The shirt number.
    public var number: Int?
    /// The team's key.
    public var team: String?

    /// A player input.
    public init(name: String? = nil, number: Int? = nil, team: String? = nil) {
        self.name = name
        self.number = number
        self.team = team
    }
}

extension ReferenceObject {
    /// The key the API shows: the integer, the UUID or the string.
    var apiKey: String {
        switch self {
        case .int(let value): return String(value)
        case .uuid(let value): return value.uuidString
        case .string(let value): return value
        }
    }

    /// The reference object of an API key, read as the kinds of key stores make.
    init(apiKey: String) {
        if let value = Int64(apiKey) {
            self = .int(value)
        } else if let value = UUID(uuidString: apiKey) {
            self = .uuid(value)
        } else {
            self = .string(apiKey)
        }
    }
}

extension ManagedObject {
    /// The object's key in its store ("" before its first save).
    var apiKey: String { objectID.referenceObject?.apiKey ?? "" }

    /// The object as a team record.
    var teamRecord: TeamRecord {
        TeamRecord(
            id: apiKey, name: value(forKey: "name", as: String.self) ?? "", city: value(forKey: "city", as: String.self),
            players: objects(forKey: "players").map(\.apiKey).sorted(), version: rowVersion)
    }

    /// The object as a player record.
    var playerRecord: PlayerRecord {
        PlayerRecord(
            id: apiKey, name: value(forKey: "name", as: String.self) ?? "", number: value(forKey: "number", as: Int.self),
            team: object(forKey: "team")?.apiKey, version: rowVersion)
    }
}
