/// The cases of the behaviour catalogue, grouped by area in the extensions of this type
/// (`ConformanceCatalogue+<Area>.swift`). ``ConformanceSuite/allCases`` lists them all.
public enum ConformanceCatalogue {}
