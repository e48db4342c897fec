import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Defaults and relationships of every shape: #16, #18, #19, #20.
    public static let graph: [ConformanceCase] = [
        ConformanceCase("default values on insert", behaviour: 16, area: .crud, runsAfterReopen: true) { env in
            let shapes = try env.openStack(try ConformanceModels.shapes())
            let circle = try shapes.context.insert(entityName: "Circle")
            try env.expectEqual(circle.value(forKey: "radius"), .double(8.0), "Circle.radius on insert")
            try shapes.context.save()
            let loaded = try env.reload(shapes)
            try env.expectEqual(try loaded.fetch("Circle").first?.value(forKey: "radius"), .double(8.0), "Circle.radius after \(env.variant)")
            let users = try env.openStack(try ConformanceModels.users(), url: .some(env.storeURL("users")))
            try env.expectEqual(try users.context.insert(entityName: "User").value(forKey: "age"), .int(0), "User.age on insert")
        },
        ConformanceCase("one-to-many, one-to-one, many-to-many survive", behaviour: 18, area: .relationships, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.shapes())
            let canvas = try insert(stack.context, "Canvas")
            let transform = try insert(stack.context, "Transform", ["scale": .double(2)])
            try canvas.setObject(transform, forKey: "transform")
            let polygon = try insert(stack.context, "Polygon", ["color": "red"])
            for i in 0..<3 {
                try insert(stack.context, "Vertex", ["index": .int(Int64(i))]).setObject(polygon, forKey: "polygon")
            }
            let circle = try insert(stack.context, "Circle", ["color": "blue"])
            try canvas.setObjects([polygon, circle], forKey: "shapes")
            try stack.context.save()
            let loaded = try env.reload(stack)
            let loadedCanvas = try require(try loaded.fetch("Canvas").first, "canvas")
            try env.expectEqual(loadedCanvas.object(forKey: "transform")?.value(forKey: "scale"), .double(2), "canvas.transform (one-to-one)")
            try env.expect(loadedCanvas.object(forKey: "transform")?.object(forKey: "canvas") === loadedCanvas, "transform.canvas (one-to-one inverse)")
            try env.expectEqual(names(loadedCanvas.objects(forKey: "shapes"), "color"), ["blue", "red"], "canvas.shapes (many-to-many)")
            let loadedPolygon = try first(loaded, "Polygon", where: "color", is: "red")
            try env.expectEqual(loadedPolygon.objects(forKey: "vertices").count, 3, "polygon.vertices (one-to-many)")
            try env.expect(loadedPolygon.objects(forKey: "canvases").first === loadedCanvas, "shape.canvases (many-to-many inverse)")
            try env.expect(loadedPolygon.objects(forKey: "vertices").allSatisfy { $0.object(forKey: "polygon") === loadedPolygon }, "vertex.polygon")
        },
        ConformanceCase("self many-to-many survives", behaviour: 18, area: .relationships, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.accounts())
            let a = try insert(stack.context, "Account", ["name": "a"])
            let b = try insert(stack.context, "Account", ["name": "b"])
            let c = try insert(stack.context, "Account", ["name": "c"])
            try a.addObject(b, toKey: "transferTo")
            try b.addObject(c, toKey: "transferTo")
            try env.expect(b.objects(forKey: "transferFrom").contains(a), "inverse of a self relationship before save")
            try stack.context.save()
            let loaded = try env.reload(stack)
            let loadedB = try first(loaded, "Account", where: "name", is: "b")
            try env.expectEqual(names(loadedB.objects(forKey: "transferTo")), ["c"], "b.transferTo after \(env.variant)")
            try env.expectEqual(names(loadedB.objects(forKey: "transferFrom")), ["a"], "b.transferFrom after \(env.variant)")
        },
        ConformanceCase("relationships without inverse survive", behaviour: 18, area: .relationships, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.orgChart())
            let org = try insert(stack.context, "Organization", ["id": 1, "name": "Org"])
            let boss = try insert(stack.context, "Person", ["id": 1, "name": "Boss"])
            let workers = try (2...4).map { try insert(stack.context, "Person", ["id": .int(Int64($0)), "name": .string("W\($0)")]) }
            try org.setObject(boss, forKey: "leader")
            try boss.setObjects(workers, forKey: "employees")
            try stack.context.save()
            let loaded = try env.reload(stack)
            let loadedOrg = try require(try loaded.fetch("Organization").first, "organization")
            let leader = try require(loadedOrg.object(forKey: "leader"), "leader")
            try env.expectEqual(leader.value(forKey: "name"), "Boss", "organization.leader after \(env.variant)")
            try env.expectEqual(names(leader.objects(forKey: "employees")), ["W2", "W3", "W4"], "leader.employees after \(env.variant)")
        },
        ConformanceCase("to-one to an abstract parent keeps the concrete entity", behaviour: 19, area: .relationships, runsAfterReopen: true) { env in
            let model = try ObjectModel {
                Entity("Shape", abstract: true) { Attribute("color", .string) }
                Entity("Circle", parent: "Shape") { Attribute("radius", .float) }
                Entity("Polygon", parent: "Shape")
                Entity("Holder") {
                    Attribute("name", .string)
                    Relationship("shape", to: "Shape")
                    Relationship("shapes", to: "Shape", toMany: true)
                }
            }
            let stack = try env.openStack(model)
            let circle = try insert(stack.context, "Circle", ["color": "red"])
            let polygon = try insert(stack.context, "Polygon", ["color": "blue"])
            try insert(stack.context, "Holder", ["name": "circle"]).setObject(circle, forKey: "shape")
            try insert(stack.context, "Holder", ["name": "polygon"]).setObject(polygon, forKey: "shape")
            try insert(stack.context, "Holder", ["name": "empty"])
            try stack.context.save()
            let loaded = try env.reload(stack)
            let holders = try loaded.fetch("Holder")
            func holder(_ name: String) throws -> ManagedObject {
                try require(holders.first { $0.value(forKey: "name") == .string(name) }, "holder \(name)")
            }
            try env.expectEqual(try holder("circle").object(forKey: "shape")?.entity.name, "Circle", "shape of the circle holder")
            try env.expectEqual(try holder("polygon").object(forKey: "shape")?.entity.name, "Polygon", "shape of the polygon holder")
            try env.expectEqual(try holder("circle").object(forKey: "shape")?.value(forKey: "color"), "red", "the circle's color")
            try env.expect(try holder("empty").object(forKey: "shape") == nil, "a nil to-one stays nil")
            try env.expectEqual(try holder("empty").loadObjects(forKey: "shapes").count, 0, "an empty to-many is empty")
            try env.expectEqual(try loaded.fetch("Shape").count, 2, "fetching the abstract parent finds both")
        },
        ConformanceCase("ordered to-many keeps its order", behaviour: 20, area: .relationships, runsAfterReopen: true) { env in
            let model = try ObjectModel {
                Entity("Playlist") { Relationship("songs", to: "Song", inverse: "playlist", toMany: true, ordered: true) }
                Entity("Song") {
                    Attribute("title", .string)
                    Relationship("playlist", to: "Playlist", inverse: "songs")
                }
            }
            let stack = try env.openStack(model)
            let playlist = try insert(stack.context, "Playlist")
            let titles = ["d", "b", "e", "a", "c"]
            try playlist.setObjects(try titles.map { try insert(stack.context, "Song", ["title": .string($0)]) }, forKey: "songs")
            try stack.context.save()
            let songs = playlist.objects(forKey: "songs")
            try playlist.setObjects([songs[4], songs[0], songs[3], songs[1], songs[2]], forKey: "songs")
            try stack.context.save()
            let loaded = try env.reload(stack)
            let order = try require(try loaded.fetch("Playlist").first, "playlist").objects(forKey: "songs").compactMap { $0.value(forKey: "title", as: String.self) }
            try env.expectEqual(order, ["c", "d", "a", "b", "e"], "song order after \(env.variant)")
        },
    ]
}
