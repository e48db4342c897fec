import StoreCore

extension PredicateCorpus {
    /// Predicates on `User`'s attributes where SQL and memory once answered differently (each
    /// found by differential fuzzing, `Fuzz/` `fuzz-predicate-diff`, and fixed), with neighbours
    /// of each. They have no expected sets of their own: on every data set holding users, a
    /// store must return exactly the users the evaluator (`PredicateEvaluator`) accepts on
    /// their values as stored (``labelsAccepted(by:among:)``). `$nan` stands for `Double.nan`
    /// (``edgePredicate(_:)`` substitutes it).
    public static let edgeFormats: [String] = [
        // Members of a literal collection that are key paths compare with nil as `==` does.
        "age IN {10, age,30}", "age IN {age}", "age IN {age, nil}",
        // A literal collection on the left compares each member (ANY without a modifier).
        "{1 , age}= nil", "{1, age} != nil", "{1, age} == 1", "ANY {age, 2} == nil", "ALL {age, 2} > 1", "NONE {age, 2} == 2",
        "{age} BETWEEN {1, 30}", "{1, age} IN {1, 2}", "{} == nil", "ALL {} == nil",
        // A NaN constant orders before every number (SQL would order its stored form after).
        "age/ 4 =<$nan", "age > $nan", "age >= $nan", "$nan < age", "$nan >= age", "age BETWEEN {$nan, 50}",
        "age BETWEEN {1, $nan}", "age != $nan", "name > $nan",
        // A division by zero is nil, and so is arithmetic that gives NaN.
        "age / no=> 14", "age / 0 >= 14", "age / 0 < 14", "age / 0 == nil", "age / 0 != nil", "age/ 4 =<0/0", "0/0 == nil",
        "age / (age - 10) > 0", "age / (age - 10) == nil", "age / 0.0 != 3", "NOT (age / NO > 1)",
        "age * 1e999 < 5", "age * 1e999 == nil", "age - 1e999 < 0", "1e999 - 1e999 == nil", "age > 1e999 - 1e999",
        "age * 1e999 - age * 1e999 == nil", "(age + 1e999) - 1e999 == nil", "age * 2.5 == 25",
        // A number compared with a date never holds (the date is not its seconds).
        "age + 1 < now()", "age + 1 > now()", "age + 1 != now()", "age * 1.5 < now()",
        // Values of different kinds are never equal or ordered; nil equals nil.
        "@count < name", "age < name", "age >= name", "age == name", "age != name", "name > age * 2", "admin < name",
        "createdAt > age", "createdAt == age", "name != createdAt", "age BETWEEN {name, 100}", "age BETWEEN {0, name}",
        "age IN {name, 10}", "name IN {age}", "NOT (age IN {createdAt})",
        // An object (a to-one) and a value of another kind: equal only when both are nil.
        "---age=team", "age == team", "team == age", "team != -age", "NOT (team == age)", "team == name", "name != team",
        "team IN {age}", "team IN {age, nil}", "age IN {team}", "NOT (age IN {team, 1})",
        "age BETWEEN {team, 100}", "team == createdAt", "ANY team == age",
        // Objects of different entities are never equal.
        "team == SELF", "SELF == team", "team != SELF", "SELF IN {team}", "team IN {SELF, nil}", "NOT (SELF == team)",
        // A key path on a literal collection applies to each member.
        "age IN {10, age}.title ", "{10, age}.title == nil", "ANY {10, age}.title == nil", "age IN {}.title",
        // IN with nil on either side is an equality with nil.
        "age IN 88799/0", "age IN nil", "name IN nil", "nil IN age", "nil IN name", "nil IN {1, age}", "nil IN {1, 2}",
        "NOT (age IN nil)", "nil IN {}",
        // -0.0 is 0.
        "-----age --age =- .0", "age - age == -0.0", "age * 0 != -0.0", "age > -0.0", "age IN {-0.0, 10}", "age BETWEEN {-0.0, 15}",
        // A modifier over a single value: nil is a collection of none.
        "ANY admin != YES+2", "ANY age != 10", "ALL age != 10", "NONE age == 10", "NOT (ANY age < 100)",
        "ANY nil == age", "ALL nil == age", "NONE age / 0 == nil", "ANY age / 0 == nil",
    ]

    /// The predicate of one of ``edgeFormats``, `$nan` substituted.
    public static func edgePredicate(_ format: String) throws -> FetchPredicate {
        try FetchPredicate(format: format).withSubstitutionVariables(["nan": Double.nan])
    }

    /// The labels of `objects` (label → object: a store node's attributes, a managed object)
    /// that the evaluator accepts for `predicate`: what a store must return for one of
    /// ``edgeFormats``. Judge the objects as stored: a user inserted through a context has the
    /// model's default age, 0, where its seed has none.
    public static func labelsAccepted(by predicate: FetchPredicate, among objects: [String: any PredicateEvaluable]) throws -> Set<String> {
        let evaluator = PredicateEvaluator(now: referenceDate)
        var accepted: Set<String> = []
        for (label, object) in objects where try evaluator.evaluate(predicate, with: object) { accepted.insert(label) }
        return accepted
    }
}
