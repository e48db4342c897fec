import ArgumentParser
import Foundation
import PersistentStores

/// `storectl validate <store>`: loads every object and checks that references resolve, that
/// inverses agree and that values meet the model's validation rules; one line per problem
/// (entity, object, property) and a non-zero exit when there is any.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check references, inverses and validation rules of every object; non-zero exit on problems.")

    @Argument(help: "The store file (default: the configured stores).")
    var store: String?

    @OptionGroup var options: CommonOptions

    func run() throws {
        let console = Console.current
        let opened = try options.openStores(path: store)
        let coordinator = opened.coordinator
        let model = opened.model
        let context = ManagedObjectContext(coordinator: coordinator)
        var everything: [(String, [ObjectID])] = []
        for name in opened.entityNames {
            var request = FetchRequest(entityName: name)
            request.includesSubentities = false
            everything.append((name, try context.fetchObjectIDs(request)))
        }
        var progress = Progress("Validating", total: everything.reduce(0) { $0 + $1.1.count }, quiet: options.quiet)
        var problems: [String] = []
        var checked = 0
        func problem(_ id: ObjectID, _ property: String?, _ text: String) {
            problems.append("\(id.entityName) \(ObjectPrinter.shortID(id))\(property.map { " \($0)" } ?? ""): \(text)")
        }
        for (name, ids) in everything {
            for id in ids {
                checked += 1
                progress.update(checked)
                do {
                    _ = try coordinator.node(for: id)
                } catch {
                    problem(id, nil, "cannot be read: \(Self.message(error))")
                    continue
                }
                for relationship in model.relationships(of: name) where !relationship.isTransient {
                    let destinations: [ObjectID]
                    do {
                        destinations = try coordinator.relatedObjectIDs(relationship.name, of: id)
                    } catch {
                        problem(id, relationship.name, "cannot be read: \(Self.message(error))")
                        continue
                    }
                    let inverse = model.inverse(of: relationship)
                    for destination in destinations {
                        guard model.isEntity(destination.entityName, kindOf: relationship.destinationEntityName) else {
                            problem(id, relationship.name, "points to \(destination), a \(destination.entityName), not a \(relationship.destinationEntityName)")
                            continue
                        }
                        do {
                            _ = try coordinator.node(for: destination)
                        } catch {
                            problem(id, relationship.name, "points to \(destination), which does not exist")
                            continue
                        }
                        guard let inverse else { continue }
                        let back = (try? coordinator.relatedObjectIDs(inverse.name, of: destination)) ?? []
                        if !back.contains(id) {
                            problem(id, relationship.name, "points to \(destination), whose inverse \(inverse.name) does not point back")
                        }
                    }
                }
                do {
                    let object = try context.existingObject(with: id)
                    for error in object.validationProblems() {
                        let underlying = error.underlyingErrors.isEmpty ? [error] : error.underlyingErrors
                        for failure in underlying { problem(id, failure.propertyName, "\(failure.message) (\(failure.code))") }
                    }
                    context.refresh(object, mergeChanges: false)
                } catch {
                    problem(id, nil, "cannot be loaded: \(Self.message(error))")
                }
            }
        }
        for line in problems { console.print(line) }
        console.print("\(checked) object\(checked == 1 ? "" : "s") checked, \(problems.count) problem\(problems.count == 1 ? "" : "s")")
        if !problems.isEmpty { throw ExitCode(1) }
    }

    private static func message(_ error: any Error) -> String {
        (error as? StoreError)?.message ?? "\(error)"
    }
}
