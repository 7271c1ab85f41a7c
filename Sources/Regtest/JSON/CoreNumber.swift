/// Numbers Core writes as doubles (`difficulty`, `verificationprogress`). UniValue prints
/// them like `%.16g`: 16 significant digits, trailing zeros dropped, scientific notation
/// (with an exponent of at least two digits) below 1e-4 or from 1e16 on.
enum CoreNumber {
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == 0 { return "0" }
        // Swift's shortest round-trip digits, rounded to 16 significant digits.
        var (digits, exponent) = decimalDigits(abs(value))
        if digits.count > 16 {
            let roundUp = digits[16] >= 5
            digits = Array(digits[..<16])
            if roundUp {
                var index = 15
                while index >= 0 {
                    if digits[index] == 9 {
                        digits[index] = 0
                        index -= 1
                    } else {
                        digits[index] += 1
                        break
                    }
                }
                if index < 0 {
                    digits.insert(1, at: 0)
                    digits.removeLast()
                    exponent += 1
                }
            }
        }
        while digits.count > 1, digits.last == 0 { digits.removeLast() }
        let text = digits.map(String.init).joined()
        var result: String
        if exponent < -4 || exponent >= 16 {
            result = String(text.prefix(1)) + (text.count > 1 ? "." + text.dropFirst() : "")
            let magnitude = abs(exponent)
            result += (exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") + String(magnitude)
        } else if exponent < 0 {
            result = "0." + String(repeating: "0", count: -exponent - 1) + text
        } else if text.count > exponent + 1 {
            result = String(text.prefix(exponent + 1)) + "." + text.dropFirst(exponent + 1)
        } else {
            result = text + String(repeating: "0", count: exponent + 1 - text.count)
        }
        return (value < 0 ? "-" : "") + result
    }

    /// The significant digits of Swift's shortest representation and the decimal exponent
    /// of the first one (`4.5e-10` -> [4, 5], -10).
    private static func decimalDigits(_ value: Double) -> ([Int], Int) {
        let text = "\(value)"
        let parts = text.split(separator: "e", maxSplits: 1)
        let exponentPart = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts[0]
        let pieces = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let whole = pieces[0]
        let fraction = pieces.count > 1 ? pieces[1] : ""
        var digits = (whole + fraction).compactMap { $0.wholeNumberValue }
        var exponent = whole.count - 1 + exponentPart
        while digits.first == 0 && digits.count > 1 {
            digits.removeFirst()
            exponent -= 1
        }
        return (digits, exponent)
    }

    /// Core's `GetDifficulty`: the difficulty-1 target divided by the block's target,
    /// computed from the compact bits as Core does (mantissa and exponent as doubles).
    static func difficulty(bits: UInt32) -> Double {
        var shift = Int((bits >> 24) & 0xff)
        var difficulty = Double(0x0000_ffff) / Double(bits & 0x00ff_ffff)
        while shift < 29 {
            difficulty *= 256.0
            shift += 1
        }
        while shift > 29 {
            difficulty /= 256.0
            shift -= 1
        }
        return difficulty
    }
}
