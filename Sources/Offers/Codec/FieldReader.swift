import Bitcoin
import Transport

/// Reads a message's fields with the swap/1 rules: a missing required field or one of the
/// wrong type throws (and becomes `invalid_request`), fields nobody asks for are ignored.
/// Errors name the field (our own constant), never the value a peer sent.
public struct FieldReader: Sendable {
    public let members: [String: JSONValue]

    public init(_ members: [String: JSONValue]) {
        self.members = members
    }

    public init(_ value: JSONValue) throws(OffersError) {
        guard let members = value.objectValue else { throw .notAnObject }
        self.members = members
    }

    public func has(_ key: String) -> Bool {
        guard let value = members[key] else { return false }
        return value != .null
    }

    private func required(_ key: String) throws(OffersError) -> JSONValue {
        // null counts as missing: a field set to null carries no value.
        guard let value = members[key], value != .null else { throw .missingField(key) }
        return value
    }

    public func string(_ key: String) throws(OffersError) -> String {
        guard let text = try required(key).stringValue else { throw .wrongType(field: key, expected: "a string") }
        return text
    }

    public func nonEmptyString(_ key: String, maxBytes: Int = 256) throws(OffersError) -> String {
        let text = try string(key)
        guard !text.isEmpty, text.utf8.count <= maxBytes else { throw .valueOutOfRange(field: key) }
        return text
    }

    public func optionalString(_ key: String) throws(OffersError) -> String? {
        has(key) ? try string(key) : nil
    }

    public func bool(_ key: String) throws(OffersError) -> Bool {
        guard let flag = try required(key).boolValue else { throw .wrongType(field: key, expected: "true or false") }
        return flag
    }

    public func int64(_ key: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(OffersError) -> Int64 {
        let value = try required(key)
        guard case .number = value else { throw .wrongType(field: key, expected: "an integer") }
        guard let integer = value.int64Value else { throw .wrongType(field: key, expected: "a plain integer") }
        guard range.contains(integer) else { throw .valueOutOfRange(field: key) }
        return integer
    }

    /// An amount in satoshis: 0 up to 21 million BTC.
    public func sat(_ key: String) throws(OffersError) -> Int64 {
        try int64(key, in: 0...Amounts.maximumSat)
    }

    public func optionalInt64(_ key: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(OffersError) -> Int64? {
        has(key) ? try int64(key, in: range) : nil
    }

    public func uint64(_ key: String) throws(OffersError) -> UInt64 {
        let value = try required(key)
        guard case .number = value else { throw .wrongType(field: key, expected: "an integer") }
        guard let integer = value.uint64Value else { throw .valueOutOfRange(field: key) }
        return integer
    }

    public func int(_ key: String, in range: ClosedRange<Int>) throws(OffersError) -> Int {
        Int(try int64(key, in: Int64(range.lowerBound)...Int64(range.upperBound)))
    }

    public func uint32(_ key: String) throws(OffersError) -> UInt32 {
        UInt32(try int64(key, in: 0...Int64(UInt32.max)))
    }

    public func stringArray(_ key: String, maxCount: Int = 64) throws(OffersError) -> [String] {
        guard let elements = try required(key).arrayValue else { throw .wrongType(field: key, expected: "an array") }
        guard elements.count <= maxCount else { throw .valueOutOfRange(field: key) }
        var texts: [String] = []
        for element in elements {
            guard let text = element.stringValue else { throw .wrongType(field: key, expected: "an array of strings") }
            texts.append(text)
        }
        return texts
    }

    public func objectArray(_ key: String, maxCount: Int = 64) throws(OffersError) -> [FieldReader] {
        guard let elements = try required(key).arrayValue else { throw .wrongType(field: key, expected: "an array") }
        guard elements.count <= maxCount else { throw .valueOutOfRange(field: key) }
        var readers: [FieldReader] = []
        for element in elements {
            guard let members = element.objectValue else { throw .wrongType(field: key, expected: "an array of objects") }
            readers.append(FieldReader(members))
        }
        return readers
    }

    public func object(_ key: String) throws(OffersError) -> FieldReader {
        guard let members = try required(key).objectValue else { throw .wrongType(field: key, expected: "an object") }
        return FieldReader(members)
    }

    public func optionalObject(_ key: String) throws(OffersError) -> FieldReader? {
        has(key) ? try object(key) : nil
    }

    /// Hex of exactly `byteCount` bytes (either case on input; we always write lowercase).
    public func hex(_ key: String, byteCount: Int) throws(OffersError) -> [UInt8] {
        guard let bytes = [UInt8](hex: try string(key)) else { throw .wrongType(field: key, expected: "hex") }
        guard bytes.count == byteCount else { throw .valueOutOfRange(field: key) }
        return bytes
    }

    /// Hex of 1 to `maxBytes` bytes (scripts).
    public func hex(_ key: String, maxBytes: Int) throws(OffersError) -> [UInt8] {
        guard let bytes = [UInt8](hex: try string(key)) else { throw .wrongType(field: key, expected: "hex") }
        guard (1...maxBytes).contains(bytes.count) else { throw .valueOutOfRange(field: key) }
        return bytes
    }

    public func pubky(_ key: String) throws(OffersError) -> Pubky {
        do {
            return try Pubky(parsing: try string(key))
        } catch {
            throw .wrongType(field: key, expected: "a pubky")
        }
    }

    public func publicKey(_ key: String) throws(OffersError) -> PublicKey {
        do {
            return try PublicKey(try hex(key, byteCount: PublicKey.compressedByteCount))
        } catch let error as OffersError {
            throw error
        } catch {
            throw .wrongType(field: key, expected: "a compressed secp256k1 public key")
        }
    }

    /// The `request_id` of a request or reply: 1 to 128 bytes, as the peer layer requires.
    public func requestID() throws(OffersError) -> String {
        try nonEmptyString("request_id", maxBytes: MessageEnvelope.maxRequestIDLength)
    }

    public func rawValue<T: RawRepresentable>(_ key: String, as type: T.Type) throws(OffersError) -> T where T.RawValue == String {
        guard let value = T(rawValue: try string(key)) else { throw .valueOutOfRange(field: key) }
        return value
    }
}
