// SwiftData sample code: only `import SwiftData` is changed, to `import PersistentModels`.
import Foundation
import PersistentModels

@Model
final class LivingAccommodation {
    var address: String
    var placeName: String
    var hasReservation: Bool
    var trip: Trip?

    init(address: String, placeName: String, hasReservation: Bool) {
        self.address = address
        self.placeName = placeName
        self.hasReservation = hasReservation
    }
}
