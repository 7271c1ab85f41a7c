import Bitcoin
import Transport

/// A call's positional parameters after named ones were placed and types checked, with
/// readers that fail the way Core's helpers (`ParseHashV`, `AmountFromValue`, ...) do.
public struct RPCParameters: Sendable {
    public let values: [JSONValue]
    let arguments: [RPCArgument]

    /// The parameter at `index`, nil when absent or null.
    public subscript(index: Int) -> JSONValue? {
        guard index < values.count, values[index] != .null else { return nil }
        return values[index]
    }

    public func string(_ index: Int) -> String? { self[index]?.stringValue }

    public func bool(_ index: Int, default value: Bool) -> Bool {
        if case .bool(let flag)? = self[index] { return flag }
        return value
    }

    /// An integer parameter; UniValue refuses a number with a fraction or out of range.
    public func int(_ index: Int, default value: Int) throws(RPCError) -> Int {
        guard let parameter = self[index] else { return value }
        return try RPCParameters.integer(parameter)
    }

    static func integer(_ value: JSONValue) throws(RPCError) -> Int {
        guard case .number(let text) = value else { throw .type("JSON value is not an integer as expected") }
        guard let integer = Int(text) else { throw .misc("JSON integer out of range") }
        return integer
    }

    /// Core's `ParseVerbosity`: a number, or a boolean meaning 1 or 0.
    public func verbosity(_ index: Int, default value: Int) throws(RPCError) -> Int {
        switch self[index] {
        case nil: return value
        case .bool(let flag)?: return flag ? 1 : 0
        case let parameter?: return try RPCParameters.integer(parameter)
        }
    }

    /// Core's `ParseHashV`: exactly 64 hex digits, named in the error by `name`.
    public func hashHex(_ index: Int, name: String) throws(RPCError) -> [UInt8] {
        try RPCParameters.hashHex(string(index) ?? "", name: name)
    }

    /// `ParseHashV` of a value inside a parameter (`ParseHashO` of an object's member).
    static func hashHex(_ text: String, name: String) throws(RPCError) -> [UInt8] {
        guard text.utf8.count == 64 else {
            throw .invalidParameter("\(name) must be of length 64 (not \(text.utf8.count), for '\(text)')")
        }
        guard let bytes = [UInt8](hex: text) else {
            throw .invalidParameter("\(name) must be hexadecimal string (not '\(text)')")
        }
        return bytes
    }

    public func blockHash(_ index: Int, name: String = "blockhash") throws(RPCError) -> BlockHash {
        let bytes = try hashHex(index, name: name)
        return try! BlockHash(bytes: bytes.reversed())
    }

    public func txid(_ index: Int, name: String = "txid") throws(RPCError) -> TransactionID {
        let bytes = try hashHex(index, name: name)
        return try! TransactionID(bytes: bytes.reversed())
    }

    /// Core's `AmountFromValue`: BTC as a number or string, in satoshis; nil when absent.
    public func amount(_ index: Int) throws(RPCError) -> Int64? {
        guard let parameter = self[index] else { return nil }
        let text: String
        switch parameter {
        case .number(let number): text = number
        case .string(let string): text = string
        default: throw .type("Amount is not a number or string")
        }
        guard let satoshis = CoreAmount.parse(text) else { throw .type("Invalid amount") }
        guard satoshis >= 0, satoshis <= CoreAmount.maxMoney else { throw .type("Amount out of range") }
        return satoshis
    }
}
