import Foundation
@testable import ModelConformance
import PersistentModels

// The tests' own @Model classes; the others (Trip, Accommodation, Sample, Journey) are the
// typed-model conformance cases' (ModelConformance), which these tests use too.

/// `#Unique` and `#Index` over several properties.
@Model
final class Booking {
    #Unique<Booking>([\.guest, \.day], [\.reference])
    #Index<Booking>([\.guest], [\.day, \.guest])

    var guest: String
    var day: Date
    var reference: String
    var status: JourneyStatus = .planned

    init(guest: String, day: Date, reference: String) {
        self.guest = guest
        self.day = day
        self.reference = reference
    }
}
