/// The model's probable spelling of the entity names a Core Data XML file upper-cases
/// (`VEHICLEPICTURE` for `VehiclePicture`), for reports made without the model.
///
/// The file keeps no other spelling (its property names are lower-cased, and older files
/// carry no metadata), so word boundaries come from the only vocabulary the file has: the
/// other entity names. A name is cut where another entity's name begins it or follows a cut
/// (`VEHICLE` + `PICTURE`), longest match first, and each part is capitalised (`Vehicle` +
/// `Picture`; a part that is another entity's name is spelled as that name is). This is a
/// guess, shown beside the file's spelling and never used to read or write a store:
/// `PERSONNEL` beside `PERSON` reads as `PersonNel`, and a name with no other entity name in
/// it is only capitalised (`TODOITEM` → `Todoitem`). Loading a file maps its names to the
/// model's case-insensitively and needs no guess.
enum XMLEntityNameSpelling {
    /// The shortest remainder kept as a word of its own: a cut that would leave fewer letters
    /// is not made (`PERSONS` beside `PERSON` stays `Persons`).
    static let shortestWord = 3

    /// The most entity names cut at each other, and the longest name cut: a file is untrusted
    /// input, and cutting costs up to (names × length)² byte comparisons. Models have far
    /// fewer, shorter names; beyond either bound a name is only capitalised.
    static let namesCut = 200
    static let longestNameCut = 100

    /// The probable model spelling of each of `fileNames` (the `object/@type` values of one
    /// file), keyed by the file's spelling.
    static func probableModelNames(for fileNames: some Collection<String>) -> [String: String] {
        let cutting = fileNames.count <= namesCut
        let vocabulary = cutting ? fileNames.map { Array($0.utf8) }.filter { !$0.isEmpty && $0.count <= longestNameCut } : []
        // Shortest first: a name cut at another entity's name spells that part as the other
        // name was spelled (`TEAMMEMBERROLE` beside `TEAMMEMBER` beside `TEAM`: `TeamMemberRole`).
        var spelled: [[UInt8]: String] = [:]
        for bytes in Set(fileNames.map { Array($0.utf8) }).sorted(by: { $0.count < $1.count }) {
            guard cutting, bytes.count <= longestNameCut else {
                spelled[bytes] = capitalised(bytes)
                continue
            }
            let others = vocabulary.filter { $0 != bytes }
            spelled[bytes] = words(of: bytes, using: others).map { spelled[$0] ?? capitalised($0) }.joined()
        }
        var names: [String: String] = [:]
        for name in fileNames { names[name] = spelled[Array(name.utf8)] }
        return names
    }

    /// `name` cut into the entity names of `vocabulary` it starts with or continues with,
    /// longest first, and the text between them.
    private static func words(of name: [UInt8], using vocabulary: [[UInt8]]) -> [[UInt8]] {
        var words: [[UInt8]] = []
        var pending: [UInt8] = []
        var index = 0
        while index < name.count {
            let rest = name[index...]
            let match = vocabulary
                .filter { rest.starts(with: $0) && (rest.count == $0.count || rest.count - $0.count >= shortestWord) }
                .max { $0.count < $1.count }
            if let match, pending.isEmpty || pending.count >= shortestWord {
                if !pending.isEmpty { words.append(pending) }
                pending = []
                words.append(match)
                index += match.count
            } else {
                pending.append(name[index])
                index += 1
            }
        }
        if !pending.isEmpty { words.append(pending) }
        return words
    }

    /// The word with its first letter upper-cased and the rest lower-cased.
    private static func capitalised(_ word: [UInt8]) -> String {
        let text = String(decoding: word, as: UTF8.self)
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst().lowercased()
    }
}
