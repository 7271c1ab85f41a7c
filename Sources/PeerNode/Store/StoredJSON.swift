import Transport

/// How JSON values (contracts, event data, cached offers) are kept in TEXT columns: the
/// canonical encoding, read back with the same parser the wire uses, under limits wide
/// enough for raw transactions yet bounded so a damaged row cannot exhaust memory.
enum StoredJSON {
    static let limits = JSONParser.Limits(maxLength: 16 * 1024 * 1024, maxDepth: 64)

    /// The canonical text of `value`, after checking that it will parse back under
    /// `limits`: a value that could be written but never read again would strand a swap.
    static func encode(_ value: JSONValue, _ what: String) throws(StoreError) -> String {
        let bytes = value.canonicalBytes
        do {
            _ = try JSONParser.parse(bytes, limits: limits)
        } catch {
            throw .database(operation: "store \(what)", message: "the JSON would not read back (\(error))")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func decode(_ text: String, _ what: String) throws(StoreError) -> JSONValue {
        do {
            return try JSONParser.parse(Array(text.utf8), limits: limits)
        } catch {
            throw .corrupt("\(what) is not valid JSON (\(error))")
        }
    }
}
