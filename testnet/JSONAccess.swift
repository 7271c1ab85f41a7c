import Foundation

/// Reads of `JSONSerialization` output without force casts. Amounts in satoshis are
/// whole numbers; Bitcoin amounts (BTC with 8 decimals, as Core prints them) are turned
/// into satoshis by rounding, which is exact for every amount below 2^53 sat.
enum JSON {
    static func parse(_ text: String) -> Any? {
        guard let data = text.data(using: .utf8) else { return nil }
        return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    /// The first line of `text` that parses as a JSON object.
    static func firstObject(in text: String) -> [String: Any]? {
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("{"), let object = parse(trimmed) as? [String: Any] { return object }
        }
        return nil
    }

    static func object(_ value: Any?) -> [String: Any]? { value as? [String: Any] }

    static func array(_ value: Any?) -> [Any] { value as? [Any] ?? [] }

    static func string(_ value: Any?) -> String? { value as? String }

    static func bool(_ value: Any?) -> Bool? {
        if let flag = value as? Bool { return flag }
        if let number = value as? NSNumber { return number.boolValue }
        return nil
    }

    /// A whole number (JSON number or digits in a string, as LND sends 64-bit values).
    static func int(_ value: Any?) -> Int64? {
        if let text = value as? String { return Int64(text) }
        if let number = value as? NSNumber {
            let double = number.doubleValue
            guard double.rounded() == double, abs(double) < 9e15 else { return nil }
            return number.int64Value
        }
        return nil
    }

    /// A BTC amount (Core's 8-decimal numbers) in satoshis.
    static func sats(btc value: Any?) -> Int64? {
        if let number = value as? NSNumber { return Int64((number.doubleValue * 100_000_000).rounded()) }
        if let text = value as? String, let double = Double(text) { return Int64((double * 100_000_000).rounded()) }
        return nil
    }

    /// The first member named one of `keys`, searched depth-first through objects and
    /// arrays: the engines' result layouts are read by field name, not by position.
    static func find(_ keys: [String], in value: Any?) -> Any? {
        if let object = value as? [String: Any] {
            for key in keys { if let hit = object[key] { return hit } }
            for key in object.keys.sorted() { if let hit = find(keys, in: object[key]) { return hit } }
        } else if let list = value as? [Any] {
            for item in list { if let hit = find(keys, in: item) { return hit } }
        }
        return nil
    }

    /// Every string anywhere inside `value`.
    static func strings(in value: Any?) -> [String] {
        if let text = value as? String { return [text] }
        if let object = value as? [String: Any] { return object.keys.sorted().flatMap { [$0] + strings(in: object[$0]) } }
        if let list = value as? [Any] { return list.flatMap { strings(in: $0) } }
        return []
    }

    /// `value` as one compact line, keys sorted.
    static func line(_ value: Any?) -> String {
        guard let value, JSONSerialization.isValidJSONObject(value),
              let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else {
            return value.map { "\($0)" } ?? "null"
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// `1234567` as `1,234,567 sat`.
func formatSats(_ value: Int64?) -> String {
    guard let value else { return "?" }
    let digits = String(abs(value))
    var grouped = ""
    for (index, character) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
        grouped.append(character)
    }
    return (value < 0 ? "-" : "") + grouped + " sat"
}

/// Millisatoshis shown as satoshis, with the fraction only when there is one.
func formatMsat(_ value: Int64?) -> String {
    guard let value else { return "?" }
    if value % 1_000 == 0 { return formatSats(value / 1_000) }
    // The sign apart: -500 msat is "-0.500 sat", which -500 / 1_000 (0) would lose.
    let whole = formatSats(abs(value) / 1_000)
    return (value < 0 ? "-" : "") + whole.dropLast(4) + String(format: ".%03lld sat", abs(value % 1_000))
}
