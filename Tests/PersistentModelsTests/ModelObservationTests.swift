import Foundation
@testable import ModelConformance
import Observation
import PersistentModels
import Synchronization
import Testing

/// `@Model` classes are `Observable`: `withObservationTracking` sees reads of persisted
/// properties and is told of writes, before and after insertion, as with SwiftData.
@Suite struct ModelObservationTests {
    /// How many change notifications a tracking got.
    final class Changes: Sendable {
        private let count = Mutex(0)
        /// Counts one notification.
        func add() { count.withLock { $0 += 1 } }
        /// The notifications so far.
        var value: Int { count.withLock { $0 } }
    }

    /// Tracks the reads `read` makes; the result counts the change notifications.
    private func track(_ read: () -> Void) -> Changes {
        let changes = Changes()
        withObservationTracking(read) {
            changes.add()
        }
        return changes
    }

    @Test func writesOfReadPropertiesAreReported() throws {
        let journey = Journey(code: "A", status: .planned)
        let beforeInsertion = track { _ = journey.code }
        journey.priority = .high
        #expect(beforeInsertion.value == 0, "a property that was not read")
        journey.code = "B"
        #expect(beforeInsertion.value == 1)

        let context = ModelContext(
            try ModelContainer(for: Journey.self, Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.insert(journey)
        let afterInsertion = track {
            _ = journey.status
            _ = journey.legs
        }
        journey.code = "C"
        #expect(afterInsertion.value == 0)
        journey.legs.append(.walk)
        #expect(afterInsertion.value == 1)
        #expect(journey.legs == [.walk])

        // Relationships too.
        let trip = Trip(name: "Lisbon", destination: "PT", start: .now)
        context.insert(trip)
        let stays = track { _ = trip.stays }
        trip.stays.append(Accommodation(name: "Hotel", nights: 2))
        #expect(stays.value == 1)
        #expect(trip.stays.map(\.name) == ["Hotel"])
    }
}
