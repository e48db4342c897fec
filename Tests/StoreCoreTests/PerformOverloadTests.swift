import Foundation
import Testing

/// swiftc and the arguments that let a program import StoreCore from this build (none found: nil).
let typeCheckingCompiler: (swiftc: URL, arguments: [String])? = {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/opt/swift/usr/bin"]
    guard let swiftc = path.map({ URL(fileURLWithPath: $0).appendingPathComponent("swiftc") })
        .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
    else { return nil }
    var folders: [URL] = []
    if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
    folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    guard let modules = folders.flatMap({ [$0, $0.deletingLastPathComponent()] }).map({ $0.appendingPathComponent("Modules") })
        .first(where: { FileManager.default.fileExists(atPath: $0.appendingPathComponent("StoreCore.swiftmodule").path) })
    else { return nil }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return (swiftc, [
        "-typecheck", "-swift-version", "6", "-I", modules.path, "-I", root.appendingPathComponent("Sources/CLibXML2").path,
        "-Xcc", "-I/usr/include/libxml2",
    ])
}()

/// `perform` has two overloads, as in Core Data: one queues a closure and returns at once, one is
/// awaited and returns the closure's value. In top-level code Swift picked the first for
/// `let x = try await context.perform { $0.hasChanges }` and made `x` an empty tuple, with
/// warnings only; the queuing one is now unavailable in asynchronous code, so that line is an
/// error that says what to write. Checked by type-checking small programs against the built
/// modules.
@Suite(.enabled(if: typeCheckingCompiler != nil, "swiftc or the built modules were not found"))
struct PerformOverloadTests {
    /// The diagnostics of type-checking `program` as a program's top-level code.
    func typeCheck(_ program: String) throws -> (status: Int32, diagnostics: String) {
        guard let compiler = typeCheckingCompiler else { throw CocoaError(.featureUnsupported) }  // the suite runs only with one
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("PerformOverload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("main.swift")
        try program.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = compiler.swiftc
        process.arguments = compiler.arguments + [file.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    static let prelude = """
        import StoreCore
        let coordinator = PersistentStoreCoordinator(model: try ObjectModel { Entity("Item") { Attribute("name", .string) } })
        let context = PrivateQueueContext(coordinator: coordinator)

        """

    @Test func anUntypedResultInTopLevelCodeIsAnErrorThatSaysWhatToWrite() throws {
        let result = try typeCheck(Self.prelude + "let x = try await context.perform { $0.hasChanges }\nprint(x)\n")
        #expect(result.status != 0)
        #expect(result.diagnostics.contains("await the perform that returns the closure's value"), "\(result.diagnostics)")
    }

    @Test func theAwaitedPerformReturnsTheValueAndTheQueuingOneStaysForSynchronousCode() throws {
        let result = try typeCheck(
            Self.prelude + """
                let x: Bool = try await context.perform { $0.hasChanges }
                let flag: Bool = x
                func later() { context.perform { _ in print("queued") } }
                func inAFunction() async throws -> Bool { try await context.perform { $0.hasChanges } }
                print(flag)
                """)
        #expect(result.status == 0, "\(result.diagnostics)")
        #expect(!result.diagnostics.contains("error"), "\(result.diagnostics)")
    }
}
