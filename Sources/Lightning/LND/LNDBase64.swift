/// Base64 as LND's REST gateway uses it (RFC 4648), written here because the node's
/// modules do not import Foundation.
///
/// LND writes `bytes` fields in standard base64 with padding. It reads them in either
/// alphabet, padded or not, and in URLs (a query value, a path segment) they must be in
/// the URL-safe alphabet, since `+` and `/` mean something else there.
public enum LNDBase64 {
    private static let standardAlphabet: [UInt8] =
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet: [UInt8] =
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Standard alphabet with padding: what LND writes in JSON.
    public static func encode(_ bytes: [UInt8]) -> String {
        encode(bytes, alphabet: standardAlphabet)
    }

    /// URL-safe alphabet with padding: for a hash in a URL path or query (`=` is then
    /// percent-encoded by the caller where it needs to be).
    public static func encodeURLSafe(_ bytes: [UInt8]) -> String {
        encode(bytes, alphabet: urlAlphabet)
    }

    /// Decodes either alphabet, with or without padding; nil for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        var padding = 0
        for character in text.utf8 {
            if character == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            // Data after padding is not base64.
            guard padding == 0, let value = sextet(character) else { return nil }
            values.append(value)
        }
        guard padding == 0 || (values.count + padding) % 4 == 0, padding <= 2 else { return nil }
        // One leftover character carries 6 bits: not even a byte.
        guard values.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index < values.count {
            let group = values[index..<min(index + 4, values.count)]
            var accumulator: UInt32 = 0
            for value in group { accumulator = accumulator << 6 | UInt32(value) }
            accumulator <<= UInt32(6 * (4 - group.count))
            let produced = group.count - 1
            for position in 0..<produced { output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(16 - 8 * position))) }
            index += 4
        }
        return output
    }

    private static func encode(_ bytes: [UInt8], alphabet: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = min(3, bytes.count - index)
            var group: UInt32 = 0
            for offset in 0..<3 {
                group = group << 8 | (offset < remaining ? UInt32(bytes[index + offset]) : 0)
            }
            for position in 0..<4 {
                if position <= remaining {
                    output.append(alphabet[Int(group >> UInt32(18 - 6 * position) & 0x3F)])
                } else {
                    output.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
