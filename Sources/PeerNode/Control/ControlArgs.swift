import HTLC
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

    func bool(_ name: String, default defaultValue: Bool) throws(ControlError) -> Bool {
        guard let field = value[name], field != .null else { return defaultValue }
        guard let flag = field.boolValue else { throw .invalidRequest("\(command): \"\(name)\" must be true or false") }
        return flag
    }
}

extension ControlArgs {
    /// `contract_type` (`taproot_boltz` or `p2wsh_v2`) and, where `quote` allows it, `quote_id`.
    func swapOptions(quote: Bool) throws(ControlError) -> SwapOptions {
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
        return options
    }
}
