import Foundation
import HTTPTypes
import Hummingbird
import PersistentStores

/// The routes of the League API over a store. Each request works in a context of its own
/// (a `ManagedObjectContext` made for it, used on its task only), so requests run
/// concurrently and see each other's saves.
///
/// | route | does |
/// |---|---|
/// | `GET /teams?filter=&sort=&limit=&offset=` | a page of teams; `filter` is a predicate (`name BEGINSWITH 'A'`) |
/// | `POST /teams` | creates a team (201, `ETag`) |
/// | `GET /teams/:id` | one team (`ETag`: its row version) |
/// | `PATCH /teams/:id` | changes it; with `If-Match`, only from that version (else 409) |
/// | `DELETE /teams/:id` | deletes it and its players (cascade) |
/// | the same for `/players` | a player's `team` is a team's key; deleting one leaves the team |
///
/// Errors are JSON `{"error": {"message": …}}`: 400 for a bad filter or body (the framework's
/// message), 404 for an unknown key, 409 for an update from an old version or one that lost a
/// race with another save (optimistic locking, 133020), 422 for a value the model refuses.
public struct LeagueRoutes: Sendable {
    /// The store the routes work on.
    public let store: LeagueStore

    /// Routes over a store.
    public init(store: LeagueStore) { self.store = store }

    /// A router with the routes.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("teams") { request, _ in try list(request, entity: "Team") { $0.teamRecord } }
        router.get("players") { request, _ in try list(request, entity: "Player") { $0.playerRecord } }
        router.get("teams/:id") { _, context in try show(context, entity: "Team") { $0.teamRecord } }
        router.get("players/:id") { _, context in try show(context, entity: "Player") { $0.playerRecord } }
        router.post("teams") { request, context in
            let input = try await request.decode(as: TeamInput.self, context: context)
            return try create(entity: "Team", { try applyTeam(input, to: $0, creating: true) }, record: { $0.teamRecord })
        }
        router.post("players") { request, context in
            let input = try await request.decode(as: PlayerInput.self, context: context)
            return try create(entity: "Player", { try applyPlayer(input, to: $0, creating: true) }, record: { $0.playerRecord })
        }
        router.patch("teams/:id") { request, context in
            let input = try await request.decode(as: TeamInput.self, context: context)
            return try update(request, context, entity: "Team", { try applyTeam(input, to: $0, creating: false) }, record: { $0.teamRecord })
        }
        router.patch("players/:id") { request, context in
            let input = try await request.decode(as: PlayerInput.self, context: context)
            return try update(request, context, entity: "Player", { try applyPlayer(input, to: $0, creating: false) }, record: { $0.playerRecord })
        }
        router.delete("teams/:id") { _, context in try delete(context, entity: "Team") }
        router.delete("players/:id") { _, context in try delete(context, entity: "Player") }
        return router
    }

    // MARK: Handlers

    private func list<Record: Codable & Sendable>(
        _ request: Request, entity: String, _ record: (ManagedObject) -> Record
    ) throws -> Page<Record> {
        let query = request.uri.queryParameters
        var fetch = FetchRequest(entityName: entity)
        do {
            if let filter = query["filter"], !filter.isEmpty {
                fetch.predicate = try FetchPredicate(format: String(filter))
            }
            if let sort = query["sort"], !sort.isEmpty {
                fetch.sortKeys = sort.split(separator: ",").map { key in
                    key.hasPrefix("-") ? SortKey(String(key.dropFirst()), ascending: false) : SortKey(String(key), ascending: true)
                }
            }
        } catch let error as StoreError {
            throw HTTPError(.badRequest, message: "filter: \(error.message)")
        }
        let limit = try query["limit"].map { try count($0, name: "limit") } ?? 50
        let offset = try query["offset"].map { try count($0, name: "offset") } ?? 0
        let context = ManagedObjectContext(coordinator: store.coordinator)
        // The filter and the sort keys are checked against the model when the request runs: a
        // key the entity lacks is the client's error too.
        return try mapped(clientErrorCodes: [134060]) {
            let total = try context.count(for: fetch)
            fetch.fetchLimit = limit
            fetch.fetchOffset = offset
            return Page(items: try context.fetch(fetch).map(record), total: total)
        }
    }

    private func show<Record: ResponseEncodable>(
        _ context: BasicRequestContext, entity: String, _ record: (ManagedObject) -> Record
    ) throws -> EditedResponse<Record> {
        let objects = ManagedObjectContext(coordinator: store.coordinator)
        let object = try existing(context, entity: entity, in: objects)
        return EditedResponse(headers: [.eTag: etag(object)], response: record(object))
    }

    private func create<Record: ResponseEncodable>(
        entity: String, _ apply: (ManagedObject) throws -> Void, record: (ManagedObject) -> Record
    ) throws -> EditedResponse<Record> {
        let context = ManagedObjectContext(coordinator: store.coordinator)
        // A new player joins its team's to-many: concurrent creations all change the team, and
        // each keeps the others' players (property-level merge; the new object's values win).
        context.mergePolicy = .mergeByPropertyObjectTrump
        return try mapped {
            let object = try context.insert(entityName: entity)
            try apply(object)
            try context.save()
            return EditedResponse(status: .created, headers: [.eTag: etag(object)], response: record(object))
        }
    }

    private func update<Record: ResponseEncodable>(
        _ request: Request, _ context: BasicRequestContext, entity: String, _ apply: (ManagedObject) throws -> Void,
        record: (ManagedObject) -> Record
    ) throws -> EditedResponse<Record> {
        let objects = ManagedObjectContext(coordinator: store.coordinator)
        let object = try existing(context, entity: entity, in: objects)
        if let expected = request.headers[.ifMatch] {
            guard expected == etag(object) else {
                throw HTTPError(
                    .conflict, message: "\(entity) \(object.apiKey) is at version \(object.rowVersion), not \(expected): read it again")
            }
            // A save between this read and this save is a conflict too (optimistic locking, 133020).
            objects.mergePolicy = .error
        } else {
            // Without a version to hold to, changes to different properties both stay; the
            // same property takes this request's value.
            objects.mergePolicy = .mergeByPropertyObjectTrump
        }
        return try mapped {
            try apply(object)
            try objects.save()
            return EditedResponse(headers: [.eTag: etag(object)], response: record(object))
        }
    }

    private func delete(_ context: BasicRequestContext, entity: String) throws -> HTTPResponse.Status {
        let objects = ManagedObjectContext(coordinator: store.coordinator)
        let object = try existing(context, entity: entity, in: objects)
        return try mapped {
            objects.delete(object)
            try objects.save()
            return .noContent
        }
    }

    // MARK: Values

    private func applyTeam(_ input: TeamInput, to team: ManagedObject, creating: Bool) throws {
        if let name = input.name {
            try team.setValue(name, forKey: "name")
        } else if creating {
            throw HTTPError(.badRequest, message: "a team needs a name")
        }
        if let city = input.city { try team.setValue(city, forKey: "city") }
    }

    private func applyPlayer(_ input: PlayerInput, to player: ManagedObject, creating: Bool) throws {
        if let name = input.name {
            try player.setValue(name, forKey: "name")
        } else if creating {
            throw HTTPError(.badRequest, message: "a player needs a name")
        }
        if let number = input.number { try player.setValue(number, forKey: "number") }
        if let key = input.team {
            guard let context = player.managedObjectContext, let team = try find("Team", key: key, in: context) else {
                throw HTTPError(.unprocessableContent, message: "no team \(key)")
            }
            try player.setObject(team, forKey: "team")
        }
    }

    // MARK: Helpers

    /// The object a route's `:id` names, or 404.
    private func existing(_ context: BasicRequestContext, entity: String, in objects: ManagedObjectContext) throws -> ManagedObject {
        let key = try context.parameters.require("id")
        guard let object = try mapped({ try find(entity, key: key, in: objects) }) else {
            throw HTTPError(.notFound, message: "no \(entity.lowercased()) \(key)")
        }
        return object
    }

    /// The object of `entity` with an API key in the store, filled; nil when there is none.
    private func find(_ entity: String, key: String, in context: ManagedObjectContext) throws -> ManagedObject? {
        guard let store = self.store.coordinator.persistentStores.first else { return nil }
        let id = ObjectID(storeIdentifier: store.identifier, entityName: entity, reference: ReferenceObject(apiKey: key))
        do {
            return try context.existingObject(with: id)
        } catch let error as StoreError where error.code == .managedObjectReferentialIntegrity || error.code == .persistentStoreOperation {
            return nil
        }
    }

    private func etag(_ object: ManagedObject) -> String { "\"\(object.rowVersion)\"" }

    private func count(_ text: Substring, name: String) throws -> Int {
        guard let value = Int(text), value >= 0 else {
            throw HTTPError(.badRequest, message: "\(name) must be a whole number ≥ 0, not \(text)")
        }
        return value
    }

    /// Runs `body`, turning the framework's errors into HTTP errors with its message.
    /// `clientErrorCodes` are codes that can only come from the request's own input here (400).
    private func mapped<T>(clientErrorCodes: Set<Int> = [], _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            let code = error.code.rawValue
            let status: HTTPResponse.Status
            switch code {
            case 133020, 133021: status = .conflict
            case 1550...1690: status = .unprocessableContent
            case _ where clientErrorCodes.contains(code): status = .badRequest
            default: status = .internalServerError
            }
            throw HTTPError(status, message: error.message)
        }
    }
}
