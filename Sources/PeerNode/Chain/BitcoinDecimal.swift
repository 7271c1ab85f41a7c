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
        var utf8 = Substring(text).utf8[...]
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        let whole = utf8.prefix { $0 != UInt8(ascii: ".") }
        var fraction = utf8.dropFirst(whole.count)
        if !fraction.isEmpty {
            fraction = fraction.dropFirst()
            guard !fraction.isEmpty else { return nil }
        }
        guard !whole.isEmpty, whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit) else { return nil }
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
