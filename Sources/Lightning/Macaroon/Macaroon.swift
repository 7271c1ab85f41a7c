import Bitcoin

/// A macaroon in the binary V2 format LND writes (`admin.macaroon` and the others):
/// version byte 2, then packets of (field type byte, uvarint length, data) — location (1,
/// optional) and identifier (2), end of section (0); per caveat location, identifier and
/// verification id (4, third-party only), end of section; an end of section closing the
/// caveats; the signature (6).
///
/// The signature is an HMAC-SHA256 chain: HMAC(key derived from the root key, identifier),
/// then HMAC(previous, caveat identifier) per first-party caveat. Only the service that
/// holds the root key can check it; anyone can read the identifier and caveats, which is
/// how the node checks a macaroon's permissions without asking LND.
public struct Macaroon: Sendable, Equatable {
    public var location: String?
    public var identifier: [UInt8]
    public var caveats: [MacaroonCaveat]
    public var signature: [UInt8]

    enum Field: UInt8 {
        case endOfSection = 0, location = 1, identifier = 2, verificationID = 4, signature = 6
    }

    /// A fresh macaroon from `rootKey`, with no caveats (what LND's bakery mints).
    public init(rootKey: [UInt8], identifier: [UInt8], location: String?) {
        self.location = location
        self.identifier = identifier
        caveats = []
        signature = HMACSHA256.authenticate(key: Self.derivedKey(rootKey), message: identifier)
    }

    /// The same macaroon narrowed by a first-party condition (as `lncli constrainmacaroon`).
    public func adding(condition: String) -> Macaroon {
        var narrowed = self
        let identifier = Array(condition.utf8)
        narrowed.caveats.append(MacaroonCaveat(identifier: identifier))
        narrowed.signature = HMACSHA256.authenticate(key: signature, message: identifier)
        return narrowed
    }

    /// True when the chain recomputed from `rootKey` ends at this signature. Third-party
    /// caveats are never satisfied here (LND issues none), so they fail it. Compared in
    /// constant time, so a guesser learns nothing from the time taken.
    public func verifies(rootKey: [UInt8]) -> Bool {
        var chained = HMACSHA256.authenticate(key: Self.derivedKey(rootKey), message: identifier)
        for caveat in caveats {
            guard caveat.isFirstParty else { return false }
            chained = HMACSHA256.authenticate(key: chained, message: caveat.identifier)
        }
        guard chained.count == signature.count else { return false }
        var difference: UInt8 = 0
        for index in chained.indices { difference |= chained[index] ^ signature[index] }
        return difference == 0
    }

    /// go-macaroon and libmacaroons key the chain with HMAC("macaroons-key-generator", root
    /// key), so a root key of any length gives a 32-byte key.
    static func derivedKey(_ rootKey: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticate(key: Array("macaroons-key-generator".utf8), message: rootKey)
    }

    // MARK: encoding

    public var encoded: [UInt8] {
        var out: [UInt8] = [2]
        if let location { Self.append(.location, Array(location.utf8), to: &out) }
        Self.append(.identifier, identifier, to: &out)
        out.append(Field.endOfSection.rawValue)
        for caveat in caveats {
            if let location = caveat.location { Self.append(.location, Array(location.utf8), to: &out) }
            Self.append(.identifier, caveat.identifier, to: &out)
            if let vid = caveat.verificationID { Self.append(.verificationID, vid, to: &out) }
            out.append(Field.endOfSection.rawValue)
        }
        out.append(Field.endOfSection.rawValue)
        Self.append(.signature, signature, to: &out)
        return out
    }

    private static func append(_ field: Field, _ data: [UInt8], to out: inout [UInt8]) {
        out.append(field.rawValue)
        ProtoWire.appendVarint(UInt64(data.count), to: &out)
        out += data
    }

    // MARK: decoding

    public init(decoding bytes: [UInt8]) throws(MacaroonError) {
        guard bytes.first == 2 else { throw .notVersion2(firstByte: bytes.first) }
        var reader = PacketReader(bytes: bytes, offset: 1)
        var packet = try reader.next()
        if packet.field == .location {
            location = String(decoding: packet.data, as: UTF8.self)
            packet = try reader.next()
        } else {
            location = nil
        }
        guard packet.field == .identifier else { throw .malformed("no identifier") }
        identifier = packet.data
        guard try reader.next().field == .endOfSection else { throw .malformed("the identifier section does not end") }
        var caveats: [MacaroonCaveat] = []
        while true {
            packet = try reader.next()
            if packet.field == .endOfSection { break }
            var caveat = MacaroonCaveat(identifier: [])
            if packet.field == .location {
                caveat.location = String(decoding: packet.data, as: UTF8.self)
                packet = try reader.next()
            }
            guard packet.field == .identifier else { throw .malformed("caveat \(caveats.count + 1) has no identifier") }
            caveat.identifier = packet.data
            packet = try reader.next()
            if packet.field == .verificationID {
                caveat.verificationID = packet.data
                packet = try reader.next()
            }
            guard packet.field == .endOfSection else { throw .malformed("caveat \(caveats.count + 1) does not end") }
            caveats.append(caveat)
        }
        self.caveats = caveats
        packet = try reader.next()
        guard packet.field == .signature, packet.data.count == 32 else { throw .malformed("no 32-byte signature") }
        signature = packet.data
        guard reader.offset == bytes.count else { throw .malformed("\(bytes.count - reader.offset) bytes after the signature") }
    }

    private struct PacketReader {
        let bytes: [UInt8]
        var offset: Int

        mutating func next() throws(MacaroonError) -> (field: Field, data: [UInt8]) {
            guard offset < bytes.count else { throw .malformed("it ends early") }
            guard let field = Field(rawValue: bytes[offset]) else { throw .malformed("unknown field type \(bytes[offset])") }
            offset += 1
            if field == .endOfSection { return (field, []) }
            guard let length = ProtoWire.readVarint(bytes, at: &offset), length <= UInt64(bytes.count - offset) else {
                throw .malformed("a field's length runs past the end")
            }
            let data = Array(bytes[offset..<offset + Int(length)])
            offset += Int(length)
            return (field, data)
        }
    }
}
