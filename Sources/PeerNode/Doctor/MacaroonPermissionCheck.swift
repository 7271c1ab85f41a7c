import Lightning

/// What the node makes of its macaroon file without asking LND (asking would itself need
/// `macaroon:read`): the permissions in LND's identifier against those of the calls the
/// node makes in its roles (`LNDCall.calls(provider:payee:broadcasts:)`), and the caveats, which
/// are reported and never refused here (LND checks them; an unknown one may be LND's).
public struct MacaroonPermissionCheck: Sendable, Equatable {
    public var permissions: Set<LNDPermission>
    /// Each permission the node needs and the macaroon lacks, with the calls that need it.
    public var missing: [Missing]
    /// First-party conditions such as `ipaddr 10.0.0.2` or `time-before ...`.
    public var caveats: [String]

    public struct Missing: Sendable, Equatable, CustomStringConvertible {
        public var permission: LNDPermission
        public var calls: [String]

        public var description: String { "\(permission) (\(calls.joined(separator: ", ")))" }
    }

    /// Decodes `bytes` (the file's contents) and checks them for a provider or a client,
    /// for a node that takes Lightning payments from its contacts (`payee`), and for one
    /// that broadcasts through LND beside an Electrum server it does not run (`broadcasts`).
    public init(bytes: [UInt8], provider: Bool, payee: Bool = false, broadcasts: Bool = false) throws(MacaroonError) {
        let macaroon = try Macaroon(decoding: bytes)
        let id = try LNDMacaroonID(decoding: macaroon.identifier)
        permissions = id.permissions
        missing = LNDCall.missing(from: id.permissions, for: LNDCall.calls(provider: provider, payee: payee, broadcasts: broadcasts))
            .map { Missing(permission: $0.permission, calls: $0.calls.map(\.name)) }
        caveats = macaroon.caveats.map { $0.isFirstParty ? $0.condition : "third-party caveat at \($0.location ?? "?")" }
    }

    public var isSufficient: Bool { missing.isEmpty }

    /// The `lncli bakemacaroon` line that gives the node exactly what it needs.
    public static func bakeCommand(provider: Bool, payee: Bool = false, broadcasts: Bool = false) -> String {
        let needed = Set(LNDCall.calls(provider: provider, payee: payee, broadcasts: broadcasts).map(\.permission)).sorted()
        return "lncli bakemacaroon --save_to peernode.macaroon " + needed.map(\.description).joined(separator: " ")
    }

    /// One sentence naming what is missing, for the start-up refusal and `doctor`.
    public func problem(role: String) -> String {
        "the macaroon lacks \(missing.map(\.description).joined(separator: ", ")), which a \(role) needs"
    }
}
