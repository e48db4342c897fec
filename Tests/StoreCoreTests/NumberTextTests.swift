import StoreCore
import Testing

@Suite("Numbers written as text")
struct NumberTextTests {
    /// The fast path reads a double from its bytes exactly as `Double(text)` does, and declines
    /// (nil) every text it does not take, which the stores then read by the general path.
    @Test func doublesReadFromTheBytesAgreeWithTheDecimalParser() throws {
        var generator = SystemRandomNumberGenerator()
        var texts = ["0", "-0", "0.0", "-0.0", "1", "123.456", "9007199254740992", "9007199254740993", "0.1", "1234.5670000000001",
                     "00012.50", "1.", ".5", "-", "", " 1", "1e5", "inf", "nan", "+1", "1.2.3", "0.0000000000000000000001",
                     "0.00000000000000000000001", "12345678901234567890", "336046917.00164198875427246094"]
        for _ in 0..<20_000 {
            let value = Double.random(in: -1e9...1e9, using: &generator)
            texts += [value.description, ((value * 1000).rounded() / 1000).description]
        }
        var fast = 0
        for text in texts {
            guard let parsed = Array(text.utf8).withUnsafeBufferPointer(NumberText.plainDouble) else { continue }
            fast += 1
            let expected = try #require(Double(text), "\(text)")
            #expect(parsed.bitPattern == expected.bitPattern, "\(text)")
        }
        #expect(fast > 20_000)  // most writer-form doubles take the fast path
        for text in ["1.", ".5", "-", "", " 1", "1e5", "inf", "nan", "+1", "1.2.3", "12345678901234567890",
                     "0.00000000000000000000001", "336046917.00164198875427246094"] {
            #expect(Array(text.utf8).withUnsafeBufferPointer(NumberText.plainDouble) == nil, "\(text)")
        }
    }

    @Test func integersAndDecimalsAreCheckedStrictly() {
        #expect(NumberText.isInteger("-12") && NumberText.isInteger("+0") && !NumberText.isInteger("12abc") && !NumberText.isInteger("-"))
        #expect(NumberText.isDecimal("1.5e-3") && NumberText.isDecimal(".5") && !NumberText.isDecimal("1e") && !NumberText.isDecimal("12abc"))
    }
}
