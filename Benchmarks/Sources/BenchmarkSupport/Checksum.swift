import Foundation

/// What a contender read, so the work cannot be optimised away and contenders can be checked
/// against each other: the persons of `specs/performance.md` summed field by field.
public struct Checksum: Equatable {
    /// Persons read.
    public var rows = 0
    /// UTF-8 bytes of every name and e-mail.
    public var characters = 0
    /// The sum of the ages.
    public var ages = 0
    /// The sum of the scores.
    public var scores = 0.0
    /// The sum of the birth dates, in seconds since the reference date.
    public var seconds = 0.0

    /// An empty checksum.
    public init() {}

    /// Adds one person's attributes.
    public mutating func add(name: String, email: String, age: Int32, score: Double, born: Date) {
        rows += 1
        characters += name.utf8.count + email.utf8.count
        ages += Int(age)
        scores += score
        seconds += born.timeIntervalSinceReferenceDate
    }
}
