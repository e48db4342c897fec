import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Create, read, update, delete: #11, #13, #14, #15.
    public static let crud: [ConformanceCase] = [0, 1, 10, 1000].map { n in
        ConformanceCase("insert \(n) users and count", behaviour: 11, area: .crud, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.users())
            for i in 0..<n {
                let user = try stack.context.insert(entityName: "User")
                try user.setValue("user\(i)", forKey: "name")
                let nickname = try stack.context.insert(entityName: "Nickname")
                try nickname.setValue("nick\(i)", forKey: "value")
                try nickname.setObject(user, forKey: "user")
            }
            try stack.context.save()
            stack.context.reset()
            let loaded = try env.reload(stack)
            try env.expectEqual(try loaded.count("User"), n, "users after save, reset and \(env.variant)")
            try env.expectEqual(try loaded.count("Nickname"), n, "nicknames")
            try env.expectEqual(try loaded.fetch("User").count, n, "fetched users")
        }
    } + [
        ConformanceCase("ten edits in a row", behaviour: 13, area: .crud, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.users())
            let user = try stack.context.insert(entityName: "User")
            for round in 1...10 {
                try user.setValue("name\(round)", forKey: "name")
                try user.setValue(Int64(round), forKey: "age")
                try stack.context.save()
            }
            let loaded = try env.reload(stack)
            let users = try loaded.fetch("User")
            try env.expectEqual(users.count, 1, "users")
            try env.expectEqual(users.first?.value(forKey: "name"), .string("name10"), "name after ten saves")
            try env.expectEqual(users.first?.value(forKey: "age"), .int(10), "age after ten saves")
        },
        ConformanceCase("delete 10 of 1000", behaviour: 14, area: .crud, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.users())
            for i in 0..<1000 {
                try stack.context.insert(entityName: "User").setValue("user\(i)", forKey: "name")
            }
            try stack.context.save()
            let users = try stack.fetch("User")
            for user in users.prefix(10) { stack.context.delete(user) }
            try env.expectEqual(try stack.count("User"), 990, "count with pending deletes")
            try stack.context.save()
            try env.expectEqual(try stack.count("User"), 990, "count after save")
            let loaded = try env.reload(stack)
            try env.expectEqual(try loaded.count("User"), 990, "count after \(env.variant)")
            let names = Set(try loaded.fetch("User").map { $0.value(forKey: "name") })
            for user in users.prefix(10) {
                try env.expect(!names.contains(user.value(forKey: "name")), "deleted user is gone")
            }
        },
        ConformanceCase("save without changes is a no-op", behaviour: 15, area: .crud) { env in
            let stack = try env.openStack(try ConformanceModels.users())
            try stack.context.insert(entityName: "User").setValue("only", forKey: "name")
            try stack.context.save()
            let url = stack.store.url
            let before = url.flatMap { try? Data(contentsOf: $0) }
            let modified = url.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.modificationDate] as? Date }
            try env.expect(!stack.context.hasChanges, "no changes after save")
            try stack.context.save()
            let other = ManagedObjectContext(coordinator: stack.coordinator)
            try other.save()
            try env.expectEqual(try stack.count("User"), 1, "users after empty saves")
            if env.capabilities.contains(.atomicFile), let url {
                try env.expectEqual(try? Data(contentsOf: url), before, "file bytes after an empty save")
                let after = try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
                try env.expectEqual(after, modified, "file modification date after an empty save")
            }
        },
    ]
}
