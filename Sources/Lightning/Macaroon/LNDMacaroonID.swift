/// The identifier LND's bakery puts in every macaroon it mints: version byte 3, then a
/// protobuf `MacaroonId { bytes nonce = 1; bytes storageId = 2; repeated Op ops = 3; }`
/// with `Op { string entity = 1; repeated string actions = 2; }`, ops sorted by entity
/// and actions grouped under it. The permissions are in clear: reading them needs no key.
public struct LNDMacaroonID: Sendable, Equatable {
    /// The bakery's identifier format version for ids with operations.
    public static let version: UInt8 = 3
    /// LND keeps one root key, stored under id "0".
    public static let defaultStorageID: [UInt8] = Array("0".utf8)

    public var nonce: [UInt8]
    public var storageID: [UInt8]
    public var permissions: Set<LNDPermission>

    public init(nonce: [UInt8], storageID: [UInt8] = LNDMacaroonID.defaultStorageID, permissions: Set<LNDPermission>) {
        self.nonce = nonce
        self.storageID = storageID
        self.permissions = permissions
    }

    public var encoded: [UInt8] {
        var out: [UInt8] = [Self.version]
        ProtoWire.appendBytes(field: 1, nonce, to: &out)
        ProtoWire.appendBytes(field: 2, storageID, to: &out)
        let grouped = Dictionary(grouping: permissions, by: \.entity)
        for entity in grouped.keys.sorted() {
            var op: [UInt8] = []
            ProtoWire.appendBytes(field: 1, Array(entity.utf8), to: &op)
            for action in grouped[entity]!.map(\.action).sorted() {
                ProtoWire.appendBytes(field: 2, Array(action.utf8), to: &op)
            }
            ProtoWire.appendBytes(field: 3, op, to: &out)
        }
        return out
    }

    public init(decoding identifier: [UInt8]) throws(MacaroonError) {
        guard let version = identifier.first else { throw .notLNDIdentifier("is empty") }
        guard version == Self.version else {
            throw .notLNDIdentifier("has version \(version), not \(Self.version) (a macaroon from before LND's permissions, or not from LND)")
        }
        guard let fields = ProtoWire.lengthDelimitedFields(Array(identifier.dropFirst())) else {
            throw .notLNDIdentifier("is not a readable MacaroonId")
        }
        var nonce: [UInt8] = []
        var storageID: [UInt8] = []
        var permissions: Set<LNDPermission> = []
        for (number, data) in fields {
            switch number {
            case 1: nonce = data
            case 2: storageID = data
            case 3:
                guard let opFields = ProtoWire.lengthDelimitedFields(data) else { throw .notLNDIdentifier("has an unreadable operation") }
                let entity = opFields.filter { $0.field == 1 }.last.map { String(decoding: $0.data, as: UTF8.self) } ?? ""
                for action in opFields where action.field == 2 {
                    permissions.insert(LNDPermission(entity, String(decoding: action.data, as: UTF8.self)))
                }
            default: continue
            }
        }
        // The bakery refuses an id without operations; so does this reader.
        guard !permissions.isEmpty else { throw .notLNDIdentifier("names no permissions") }
        self.nonce = nonce
        self.storageID = storageID
        self.permissions = permissions
    }
}
