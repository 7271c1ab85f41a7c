/// Bitcoin Core's decimal amounts (`1.00000000`, `0.00002000`) read exactly from their JSON
/// text. Core prints amounts as fixed-point BTC with 8 decimals; going through a Double
/// would turn 0.1 BTC into 9,999,999.999… sat and make two nodes disagree on a fee.
public enum BitcoinDecimal {
    /// Satoshis per bitcoin.
    public static let satoshisPerBitcoin: Int64 = 100_000_000

    /// The satoshis in a BTC amount written as plain decimal text: an optional `-`, digits,
    /// and an optional fraction of at most 8 digits (more only when the extra digits are
    /// zeros). Nil for anything else: exponents, a fraction finer than a satoshi, a value
    /// beyond Int64.
    public static func satoshis(fromBitcoin text: String) -> Int64? {
        guard let (negative, whole, fraction) = plainDecimal(Substring(text).utf8) else { return nil }
        // Digits past the eighth must be zeros: they would be fractions of a satoshi.
        guard fraction.dropFirst(8).allSatisfy({ $0 == UInt8(ascii: "0") }) else { return nil }

        var sats: Int64 = 0
        for digit in whole {
            guard let next = append(digit, to: sats) else { return nil }
            sats = next
        }
        let fractionDigits = Array(fraction.prefix(8))
        for index in 0..<8 {
            let digit = index < fractionDigits.count ? fractionDigits[index] : UInt8(ascii: "0")
            guard let next = append(digit, to: sats) else { return nil }
            sats = next
        }
        return negative ? -sats : sats
    }

    /// The satoshis in a BTC amount written as any JSON number, an exponent allowed (an
    /// Electrum server prints small floats as Python does, `2e-05`), rounded away from zero
    /// to a whole satoshi: a fee rate a fraction of a satoshi above 1,000 sat/kvB is 1,001,
    /// and a negative amount never reads as 0. Nil for text that is no number, and for a
    /// value beyond Int64 (or an exponent of more than four digits).
    public static func satoshisRoundedAwayFromZero(fromNumber text: String) -> Int64? {
        let utf8 = Substring(text).utf8
        let mantissa = utf8.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        guard let (negative, whole, fraction) = plainDecimal(mantissa) else { return nil }
        var exponent = 0
        if mantissa.endIndex < utf8.endIndex {
            var digits = utf8[mantissa.endIndex...].dropFirst()
            let minus = digits.first == UInt8(ascii: "-")
            if minus || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy(isDigit) else { return nil }
            exponent = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            if minus { exponent = -exponent }
        }
        // The number is its digits × 10^(exponent − fraction digits), so its satoshis are
        // the digits shifted by `shift` places: zeros appended, or digits dropped (any of
        // them not zero rounds the magnitude up).
        let digits = Array(whole) + Array(fraction)
        let shift = exponent - fraction.count + 8
        let dropped = shift < 0 ? min(digits.count, -shift) : 0
        var sats: Int64 = 0
        for digit in digits.dropLast(dropped) + [UInt8](repeating: UInt8(ascii: "0"), count: max(0, shift)) {
            guard let next = append(digit, to: sats) else { return nil }
            sats = next
        }
        if digits.suffix(dropped).contains(where: { $0 != UInt8(ascii: "0") }) {
            guard sats < Int64.max else { return nil }
            sats += 1
        }
        return negative ? -sats : sats
    }

    /// `[-]digits[.digits]` split into its sign, whole digits and fraction digits; nil for
    /// anything else (no digit before the point, none after it, any other character).
    private static func plainDecimal(_ text: Substring.UTF8View)
        -> (negative: Bool, whole: Substring.UTF8View, fraction: Substring.UTF8View)? {
        let negative = text.first == UInt8(ascii: "-")
        let unsigned = negative ? text.dropFirst() : text
        let whole = unsigned.prefix { $0 != UInt8(ascii: ".") }
        var fraction = unsigned.dropFirst(whole.count)
        if !fraction.isEmpty {
            fraction = fraction.dropFirst()
            guard !fraction.isEmpty else { return nil }
        }
        guard !whole.isEmpty, whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit) else { return nil }
        return (negative, whole, fraction)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func append(_ digit: UInt8, to value: Int64) -> Int64? {
        let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
        guard !overflow else { return nil }
        let (sum, overflowAdd) = shifted.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
        return overflowAdd ? nil : sum
    }
}
