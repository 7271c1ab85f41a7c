/// The amount in an invoice's human-readable part: a decimal number of bitcoin, scaled by
/// an optional multiplier letter, held here as whole millisatoshis (never floating point).
///
/// 1 BTC = 10^11 msat, so the multipliers are m = 10^8 msat, u = 10^5, n = 10^2 and
/// p = 10^-1: a `p` amount names whole millisatoshis only when it ends in 0.
enum InvoiceAmount {
    static let msatPerBitcoin: UInt64 = 100_000_000_000
    /// 21 million bitcoin: no real amount is larger, and the bound keeps every product
    /// below UInt64's limit.
    static let maxMsat: UInt64 = 21_000_000 * msatPerBitcoin

    /// Parses the amount text after the currency prefix ("" means no amount).
    static func parse(_ text: Substring) throws(BOLT11Error) -> UInt64? {
        guard !text.isEmpty else { return nil }
        var digits = text
        var multiplier: Character?
        if let last = text.last, !isDigit(last) {
            multiplier = last
            digits = text.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(isDigit) else {
            throw .invalidAmount("it must be a number followed by at most one multiplier letter")
        }
        guard digits.first != "0" else {
            throw .invalidAmount("a positive number without leading zeros is required")
        }
        // A `p` amount is tenths of a millisatoshi: its last digit must be 0, and dropping
        // that digit gives millisatoshis without ever multiplying (pico-bitcoin values
        // near 21 million BTC do not fit in 64 bits, their millisatoshis do).
        if multiplier == "p" {
            guard digits.last == "0" else { throw .subMillisatoshiAmount }
            digits = digits.dropLast()
        }
        // More than 20 digits cannot fit a UInt64 and no bound below would accept it.
        guard digits.count <= 20, let value = UInt64(digits) else { throw .amountTooLarge }

        let msat: UInt64
        switch multiplier {
        case nil: msat = try scaled(value, by: msatPerBitcoin)
        case "m": msat = try scaled(value, by: 100_000_000)
        case "u": msat = try scaled(value, by: 100_000)
        case "n": msat = try scaled(value, by: 100)
        case "p": msat = value
        case let letter?:
            throw .invalidMultiplier(letter)
        }
        guard msat <= maxMsat else { throw .amountTooLarge }
        return msat
    }

    /// The shortest text for `msat`: the largest multiplier that divides it exactly (or
    /// none for whole bitcoin), as BOLT11 says a writer SHOULD.
    static func format(_ msat: UInt64) throws(BOLT11Error) -> String {
        guard msat > 0 else {
            throw .unencodable("an invoice amount must be positive; omit it for an any-amount invoice")
        }
        guard msat <= maxMsat else { throw .amountTooLarge }
        let units: [(msat: UInt64, letter: String)] = [
            (msatPerBitcoin, ""), (100_000_000, "m"), (100_000, "u"), (100, "n"),
        ]
        for unit in units where msat % unit.msat == 0 {
            return "\(msat / unit.msat)\(unit.letter)"
        }
        // Tenths of a millisatoshi: append the digit rather than multiply, which could overflow.
        return "\(msat)0p"
    }

    private static func isDigit(_ character: Character) -> Bool {
        ("0"..."9").contains(character)
    }

    private static func scaled(_ value: UInt64, by factor: UInt64) throws(BOLT11Error) -> UInt64 {
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw .amountTooLarge }
        return product
    }
}
