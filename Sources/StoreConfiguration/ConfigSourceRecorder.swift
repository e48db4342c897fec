import Configuration
import Synchronization

/// Remembers, per key, which provider answered the last lookup (or failed it), so errors about
/// a configuration value can name where it came from. Give it to the `ConfigReader` as its
/// access reporter; ``StoreConfigurationSources`` does.
public final class ConfigSourceRecorder: AccessReporter, Sendable {
    /// What the providers said about one key.
    public struct Answer: Sendable {
        /// The provider that supplied the value, or that failed to supply it as the requested type.
        public var providerName: String?
        /// The providers asked, in order.
        public var providersAsked: [String]
        /// Why the value could not be used as the requested type, if it could not.
        public var problem: String?
    }

    private let answers = Mutex<[String: Answer]>([:])

    /// Creates an empty recorder.
    public init() {}

    /// Records which provider answered `event`'s key.
    public func report(_ event: AccessEvent) {
        var answer = Answer(providerName: nil, providersAsked: event.providerResults.map(\.providerName), problem: nil)
        for result in event.providerResults {
            switch result.result {
            case .success(let lookup) where lookup.value != nil:
                answer.providerName = result.providerName
            case .failure(let error):
                answer.providerName = result.providerName
                answer.problem = "\(error)"
            default:
                continue
            }
            break
        }
        if answer.problem == nil, let conversionError = event.conversionError {
            answer.problem = "\(conversionError)"
        }
        let key = event.metadata.key.description
        answers.withLock { $0[key] = answer }
    }

    /// The last answer for the absolute key `key` (components joined with ".").
    public func answer(forKey key: String) -> Answer? {
        answers.withLock { $0[key] }
    }
}
