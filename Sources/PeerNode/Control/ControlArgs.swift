import HTLC
import Offers
import Transport

/// Typed reads of a request's `args`, each failing with `invalid_request` naming the
/// argument and what it should be.
struct ControlArgs {
    let command: String
    let value: JSONValue

    func string(_ name: String) throws(ControlError) -> String {
        guard let text = try optionalString(name) else {
            throw .invalidRequest("\(command) needs \"\(name)\"")
        }
        return text
    }

    func optionalString(_ name: String) throws(ControlError) -> String? {
        guard let field = value[name], field != .null else { return nil }
        guard let text = field.stringValue, !text.isEmpty else {
            throw .invalidRequest("\(command): \"\(name)\" must be a non-empty string")
        }
        return text
    }

    func optionalBool(_ name: String) throws(ControlError) -> Bool? {
        guard let field = value[name], field != .null else { return nil }
        guard let flag = field.boolValue else { throw .invalidRequest("\(command): \"\(name)\" must be true or false") }
        return flag
    }

    /// A positive amount in satoshis (at most 21 million BTC).
    func amount(_ name: String) throws(ControlError) -> Int64 {
        guard let field = value[name] else { throw .invalidRequest("\(command) needs \"\(name)\" (satoshis)") }
        guard let amount = field.int64Value, amount > 0, amount <= 2_100_000_000_000_000 else {
            throw .invalidRequest("\(command): \"\(name)\" must be a whole number of satoshis above 0")
        }
        return amount
    }

    func optionalInt(_ name: String, in range: ClosedRange<Int64>) throws(ControlError) -> Int64? {
        guard let field = value[name], field != .null else { return nil }
        guard let number = field.int64Value, range.contains(number) else {
            throw .invalidRequest("\(command): \"\(name)\" must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A fee rate in sat/vB with up to 3 decimals (a whole sat per kvB), from 0.001 to 10,000.
    func optionalFeeRate(_ name: String) throws(ControlError) -> FeeRate? {
        guard let field = value[name], field != .null else { return nil }
        let problem = ControlError.invalidRequest("\(command): \"\(name)\" must be a number of sat/vB above 0, at most 10000, "
                                                  + "with at most 3 decimals")
        guard case .number(let text) = field else { throw problem }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = Int64(parts[0]), whole >= 0, whole <= 10_000 else { throw problem }
        var fraction: Int64 = 0
        if parts.count == 2 {
            guard parts[1].count <= 3, let digits = Int64(parts[1]), digits >= 0 else { throw problem }
            fraction = digits * [100, 10, 1][parts[1].count - 1]
        }
        let perKvB = whole * 1_000 + fraction
        guard perKvB > 0, perKvB <= 10_000_000, let rate = try? FeeRate(satPerKvB: perKvB) else { throw problem }
        return rate
    }

    func bool(_ name: String, default defaultValue: Bool) throws(ControlError) -> Bool {
        guard let field = value[name], field != .null else { return defaultValue }
        guard let flag = field.boolValue else { throw .invalidRequest("\(command): \"\(name)\" must be true or false") }
        return flag
    }
}

extension ControlArgs {
    /// `contract_type` (`taproot_boltz` or `p2wsh_v2`), `max_fee_sat`, and where the
    /// command takes them `quote_id` (`pay` commits an earlier quote) and `from` (`pay`,
    /// `quote`, `max`: which balance pays).
    func swapOptions(quote: Bool, from: Bool = false) throws(ControlError) -> SwapOptions {
        var options = SwapOptions()
        if let name = try optionalString("contract_type") {
            guard let type = ContractType(rawValue: name), !type.isRetired else {
                throw .invalidRequest("\(command): \"contract_type\" must be one of "
                                      + ContractType.allCases.map(\.rawValue).joined(separator: ", ") + ", not \"\(name)\"")
            }
            options.contractType = type
        }
        if let id = try optionalString("quote_id") {
            guard quote else { throw .invalidRequest("\(command) takes no \"quote_id\"; only pay commits an earlier quote") }
            options.quoteID = id
        }
        options.maxFeeSat = try optionalInt("max_fee_sat", in: 0...2_100_000_000_000_000)
        if let name = try optionalString("from") {
            guard from else { throw .invalidRequest("\(command) takes no \"from\"; pay, quote and max choose the balance") }
            guard let source = RailSource(rawValue: name) else {
                throw .invalidRequest("\(command): \"from\" must be savings or spending, not \"\(name)\"")
            }
            options.source = source
        }
        return options
    }
}
