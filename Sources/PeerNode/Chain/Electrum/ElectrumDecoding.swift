import Bitcoin
import Transport

/// Reading the protocol's result shapes into typed values; every mismatch is an
/// `unexpectedResult` naming the method.
enum ElectrumDecoding {
    static func header(_ value: JSONValue?, method: String) throws(ElectrumError) -> [UInt8] {
        guard let hex = value?.stringValue, let bytes = [UInt8](hex: hex), bytes.count == 80 else {
            throw .unexpectedResult(method: method, reason: "a block header is 80 bytes of hex")
        }
        return bytes
    }

    /// `blockchain.block.headers`' result: `{"count": n, "hex": "<n × 160 hex>"}` before
    /// protocol 1.6, `{"count": n, "headers": ["<160 hex>", …]}` from 1.6; either is read.
    /// More headers than `asked`, or a count that is not the headers', is refused.
    static func headers(_ value: JSONValue, asked: Int, method: String) throws(ElectrumError) -> [[UInt8]] {
        guard let count = value["count"]?.int64Value, count >= 0, count <= Int64(asked) else {
            throw .unexpectedResult(method: method, reason: "no count, or more headers than asked for")
        }
        var headers: [[UInt8]] = []
        if let list = value["headers"]?.arrayValue {
            for item in list { headers.append(try header(item, method: method)) }
        } else if let hex = value["hex"]?.stringValue, let bytes = [UInt8](hex: hex), bytes.count % 80 == 0 {
            headers = stride(from: 0, to: bytes.count, by: 80).map { Array(bytes[$0..<$0 + 80]) }
        } else {
            throw .unexpectedResult(method: method, reason: "neither headers nor hex of whole 80-byte headers")
        }
        guard headers.count == Int(count) else {
            throw .unexpectedResult(method: method, reason: "count \(count) for \(headers.count) headers")
        }
        return headers
    }

    static func txid(_ value: JSONValue?, method: String) throws(ElectrumError) -> TransactionID {
        guard let hex = value?.stringValue, let txid = try? TransactionID(hex: hex) else {
            throw .unexpectedResult(method: method, reason: "a txid is 64 hex characters")
        }
        return txid
    }

    static func int(_ value: JSONValue?, _ name: String, method: String) throws(ElectrumError) -> Int {
        guard let number = value?.int64Value, let int = Int(exactly: number) else {
            throw .unexpectedResult(method: method, reason: "\(name) is not an integer")
        }
        return int
    }

    static func array(_ value: JSONValue, method: String) throws(ElectrumError) -> [JSONValue] {
        guard let array = value.arrayValue else { throw .unexpectedResult(method: method, reason: "not a list") }
        return array
    }

    static func history(_ value: JSONValue, method: String) throws(ElectrumError) -> [ElectrumHistoryItem] {
        var items: [ElectrumHistoryItem] = []
        for entry in try array(value, method: method) {
            let fee: Int64? = entry["fee"]?.int64Value
            items.append(ElectrumHistoryItem(txid: try txid(entry["tx_hash"], method: method),
                                             height: try int(entry["height"], "height", method: method), feeSat: fee))
        }
        return items
    }

    /// A fee rate in BTC/kvB as the server prints it (Python writes small floats with an
    /// exponent, `2e-05`), in sat/kvB exactly, rounded up; nil for the protocol's -1 ("no
    /// estimate"). Integer arithmetic on the digits, never a Double: 0.00001 BTC must be
    /// 1000 sat, not 999.
    static func feeRate(_ value: JSONValue, method: String) throws(ElectrumError) -> Int64? {
        guard case .number(let text) = value else { throw .unexpectedResult(method: method, reason: "a fee rate is a number") }
        guard let sat = BitcoinDecimal.satoshisRoundedAwayFromZero(fromNumber: text), sat < Int64.max / 2 else {
            throw .unexpectedResult(method: method, reason: "fee rate \(text) BTC/kvB is not a number of satoshis an Int64 holds")
        }
        return sat < 0 ? nil : sat
    }
}
