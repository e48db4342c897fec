/// A point in the persistent history of a coordinator's stores (Core Data's
/// `NSPersistentHistoryToken`): for each store that records history, the last transaction seen.
/// Tokens are values: keep one (it is `Codable`) and ask for the history after it.
public struct HistoryToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Store identifier → the number of the last transaction seen in that store.
    public var transactions: [String: Int64]

    /// A token; an empty one is before every transaction.
    public init(transactions: [String: Int64] = [:]) {
        self.transactions = transactions
    }

    /// The later of two tokens, store by store.
    public func merging(_ other: HistoryToken) -> HistoryToken {
        HistoryToken(transactions: transactions.merging(other.transactions) { max($0, $1) })
    }

    /// "store: n, …".
    public var description: String {
        transactions.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}
