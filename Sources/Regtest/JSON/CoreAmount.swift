/// Amounts at the JSON edge, as Bitcoin Core writes and reads them. Inside the hub every
/// amount is an integer number of satoshis; only these functions turn one into BTC text
/// or back, digit by digit, never through a Double.
public enum CoreAmount {
    public static let satoshisPerCoin: Int64 = 100_000_000
    /// Core's MAX_MONEY: no amount parameter may exceed 21 million BTC.
    public static let maxMoney: Int64 = 21_000_000 * satoshisPerCoin

    /// `ValueFromAmount`: BTC with exactly eight decimals, `-` for negatives (`0.00010000`).
    public static func format(_ satoshis: Int64) -> String {
        let magnitude = satoshis.magnitude
        let whole = magnitude / UInt64(satoshisPerCoin)
        let fraction = String(magnitude % UInt64(satoshisPerCoin))
        return (satoshis < 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: 8 - fraction.count) + fraction
    }

    /// `ParseFixedPoint(text, 8)`: a decimal number (optionally with an exponent, as JSON
    /// allows) to an integer count of 1e-8 units. Nil when it has more than eight
    /// significant decimals, is not a number, or is too large.
    public static func parse(_ text: String) -> Int64? {
        var bytes = Substring(text).utf8[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        }
        var digits: [UInt8] = []
        var decimals = 0
        var seenPoint = false
        var exponent = 0
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits.append(byte - UInt8(ascii: "0"))
                if seenPoint { decimals += 1 }
            } else if byte == UInt8(ascii: ".") && !seenPoint {
                seenPoint = true
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                let rest = String(Substring(bytes[bytes.index(after: index)...]))
                guard let value = Int(rest.hasPrefix("+") ? String(rest.dropFirst()) : rest),
                      abs(value) < 64 else { return nil }
                exponent = value
                break
            } else {
                return nil
            }
            index = bytes.index(after: index)
        }
        guard !digits.isEmpty else { return nil }
        // value = digits * 10^(exponent - decimals); in units of 1e-8: shift by 8.
        var shift = exponent - decimals + 8
        while shift < 0 {
            guard let last = digits.last, last == 0 else { return nil }
            digits.removeLast()
            shift += 1
        }
        var units: Int64 = 0
        for digit in digits + [UInt8](repeating: 0, count: shift) {
            let (times, overflow1) = units.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2, sum < 1_000_000_000_000_000_000 else { return nil }
            units = sum
        }
        return negative ? -units : units
    }
}
