/// One of LND's macaroon permissions: an entity and an action, written `entity:action`
/// as `lncli printmacaroon` and `lncli bakemacaroon` write them.
public struct LNDPermission: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var entity: String
    public var action: String

    public init(_ entity: String, _ action: String) {
        self.entity = entity
        self.action = action
    }

    public var description: String { "\(entity):\(action)" }

    /// The bakery's canonical order: by entity, then action.
    public static func < (a: LNDPermission, b: LNDPermission) -> Bool {
        (a.entity, a.action) < (b.entity, b.action)
    }

    // LND's three default macaroons (lnd.go: readPermissions, writePermissions,
    // invoicePermissions; admin is read + write).

    /// `readonly.macaroon`.
    public static let readOnly: Set<LNDPermission> = [
        LNDPermission("onchain", "read"), LNDPermission("offchain", "read"), LNDPermission("address", "read"),
        LNDPermission("message", "read"), LNDPermission("peers", "read"), LNDPermission("info", "read"),
        LNDPermission("invoices", "read"), LNDPermission("signer", "read"), LNDPermission("macaroon", "read"),
    ]

    /// `admin.macaroon`: every read permission and every write one.
    public static let admin: Set<LNDPermission> = readOnly.union([
        LNDPermission("onchain", "write"), LNDPermission("offchain", "write"), LNDPermission("address", "write"),
        LNDPermission("message", "write"), LNDPermission("peers", "write"), LNDPermission("info", "write"),
        LNDPermission("invoices", "write"), LNDPermission("signer", "generate"), LNDPermission("macaroon", "generate"),
        LNDPermission("macaroon", "write"),
    ])

    /// `invoice.macaroon`: invoices and addresses, on-chain read; it cannot pay.
    public static let invoice: Set<LNDPermission> = [
        LNDPermission("invoices", "read"), LNDPermission("invoices", "write"), LNDPermission("address", "read"),
        LNDPermission("address", "write"), LNDPermission("onchain", "read"),
    ]
}
