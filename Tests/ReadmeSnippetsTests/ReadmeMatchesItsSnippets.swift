import Foundation
import Testing

/// Every ```swift block of README.md is a whole file that a test target compiles and runs, so
/// the README cannot drift from the code.
///
/// The line before each block names its file, relative to the package root:
///
///     <!-- snippet: Tests/ReadmeSnippetsTests/UsingIt.swift -->
///     ```swift
///     …the whole file…
///     ```
///
/// The marker is an HTML comment, so it does not show on a rendered page. To add a block, put
/// the file in a test target (this one, or an example's tests) so it is compiled and run, paste
/// it whole into the README and put the marker above it.
struct ReadmeSnippet {
    /// The path the marker names.
    let path: String
    /// The block's text.
    let code: String
    /// The README line of the opening fence (1-based).
    let line: Int

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The blocks of a Markdown text; a block without a marker has an empty path.
    static func blocks(in markdown: String) -> [ReadmeSnippet] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var snippets: [ReadmeSnippet] = []
        var index = 0
        while index < lines.count {
            guard lines[index].trimmingCharacters(in: .whitespaces) == "```swift" else {
                index += 1
                continue
            }
            let opening = index
            var body: [String] = []
            index += 1
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                body.append(lines[index])
                index += 1
            }
            index += 1
            let marker = opening > 0 ? lines[opening - 1].trimmingCharacters(in: .whitespaces) : ""
            var path = ""
            if marker.hasPrefix("<!-- snippet:"), marker.hasSuffix("-->") {
                path = String(marker.dropFirst("<!-- snippet:".count).dropLast(3)).trimmingCharacters(in: .whitespaces)
            }
            snippets.append(ReadmeSnippet(path: path, code: body.joined(separator: "\n"), line: opening + 1))
        }
        return snippets
    }
}

@Test func everyReadmeSwiftBlockIsACompiledFile() throws {
    let readme = try String(contentsOf: ReadmeSnippet.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let snippets = ReadmeSnippet.blocks(in: readme)
    #expect(snippets.count >= 6)
    for snippet in snippets {
        guard !snippet.path.isEmpty else {
            Issue.record("README.md line \(snippet.line): a ```swift block without a <!-- snippet: <path> --> line above it")
            continue
        }
        // Every Swift file under these folders belongs to a target the test command builds; a
        // file in a test target (or an example's tests) also runs.
        #expect(
            snippet.path.hasSuffix(".swift") && ["Tests/", "Examples/", "Sources/"].contains { snippet.path.hasPrefix($0) },
            "README.md line \(snippet.line): \(snippet.path) is not a Swift file of a target, so nothing compiles it")
        let url = ReadmeSnippet.packageRoot.appendingPathComponent(snippet.path)
        guard let file = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record("README.md line \(snippet.line): \(snippet.path) does not exist")
            continue
        }
        let expected = file.hasSuffix("\n") ? String(file.dropLast()) : file
        if snippet.code != expected {
            let readmeLines = snippet.code.split(separator: "\n", omittingEmptySubsequences: false)
            let fileLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(readmeLines, fileLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(readmeLines.count, fileLines.count)
            let inReadme = first < readmeLines.count ? "\"\(readmeLines[first])\"" : "nothing"
            let inFile = first < fileLines.count ? "\"\(fileLines[first])\"" : "nothing"
            Issue.record(
                "README.md line \(snippet.line) differs from \(snippet.path) at its line \(first + 1): README has \(inReadme), the file has \(inFile)")
        }
    }
}

@Test func theSnippetReaderFindsMarkersAndBlocksWithoutThem() {
    let markdown = """
        text
        <!-- snippet: Tests/X/A.swift -->
        ```swift
        let a = 1
        ```
        ```sh
        echo no
        ```
        ```swift
        let b = 2
        ```
        """
    let blocks = ReadmeSnippet.blocks(in: markdown)
    #expect(blocks.map(\.path) == ["Tests/X/A.swift", ""])
    #expect(blocks.map(\.code) == ["let a = 1", "let b = 2"])
    #expect(blocks.map(\.line) == [3, 9])
}
