import Bitcoin
import Lightning

/// A request target split as the gateway's router sees it: percent-decoded path
/// segments and query parameters (Go's `url.ParseQuery`: `+` is a space).
struct LNDTarget {
    var segments: [String]
    var query: [String: String]

    init(_ target: String) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        segments = parts[0].split(separator: "/").map { LNDTarget.percentDecoded(Substring($0), plusIsSpace: false) }
        var query: [String: String] = [:]
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = LNDTarget.percentDecoded(keyValue[0], plusIsSpace: true)
                // The first value of a repeated key is the one the gateway uses.
                if query[key] == nil {
                    query[key] = keyValue.count > 1 ? LNDTarget.percentDecoded(keyValue[1], plusIsSpace: true) : ""
                }
            }
        }
        self.query = query
    }

    /// A path segment or query value holding `bytes`: base64 (URL-safe, as LND asks; the
    /// gateway takes the standard alphabet too where it survives the URL), padded: LND
    /// 0.18's gateway decodes with Go's padded decoders and refuses a value without its
    /// `=`, so the hub takes only the form every version since takes.
    static func bytes(_ text: String, field: String) throws(LNDRPCError) -> [UInt8] {
        guard text.utf8.count % 4 == 0, let bytes = LNDBase64.decode(text) else {
            throw LNDRPCError(.invalidArgument, "type mismatch, parameter: \(field), error: illegal base64 data")
        }
        return bytes
    }

    private static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
               let value = [UInt8](hex: String(decoding: iterator.prefix(2), as: UTF8.self)) {
                bytes += value
                iterator = iterator.dropFirst(2)
            } else if byte == UInt8(ascii: "+") && plusIsSpace {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
