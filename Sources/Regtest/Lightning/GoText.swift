/// Numbers and times written the way LND's Go code writes them in error messages, so
/// that the hub's messages are LND's byte for byte.
enum GoText {
    /// `fmt.Sprintf("%v", float64(n))`: Go's shortest `%g`, which switches to an exponent
    /// (`3.1536e+07`) once the number has 7 or more integer digits (strconv's `eprec` of 6
    /// for the shortest precision). Exact for every n below 2^53, which covers any
    /// expiry in seconds a person could mean.
    static func float(_ n: UInt64) -> String {
        let digits = String(n)
        guard digits.count > 6 else { return digits }
        var significant = Substring(digits)
        while significant.count > 1, significant.last == "0" { significant = significant.dropLast() }
        let exponent = digits.count - 1
        let mantissa = significant.count == 1 ? String(significant) : "\(significant.first!).\(significant.dropFirst())"
        return mantissa + "e+" + (exponent < 10 ? "0\(exponent)" : String(exponent))
    }

    /// btcutil's `Amount.String()` of `sat`: whole bitcoins as `100000 BTC`, otherwise
    /// eight decimals (`0.00012345 BTC`).
    static func bitcoin(sat: UInt64) -> String {
        let whole = sat / 100_000_000, fraction = sat % 100_000_000
        guard fraction != 0 else { return "\(whole) BTC" }
        let decimals = String(fraction)
        return "\(whole)." + String(repeating: "0", count: 8 - decimals.count) + decimals + " BTC"
    }

    /// `fmt.Sprintf("%v", time.Unix(unix, 0))` on a host whose zone is UTC, as LND's
    /// "invoice expired. Valid until 2026-01-01 00:10:00 +0000 UTC" writes it.
    static func time(unix: UInt64) -> String {
        let days = Int64(unix / 86_400), second = Int(unix % 86_400)
        // Days since 1970 to a proleptic Gregorian date (H. Hinnant's civil_from_days).
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: some BinaryInteger) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(second / 3_600)):\(two(second / 60 % 60)):\(two(second % 60)) +0000 UTC"
    }
}
