import Bitcoin
import Lightning
import Transport

/// One simulated node's macaroon service, as LND's: a secret root key, the three
/// macaroons LND bakes at its first start (admin, invoice, readonly: LND's permission
/// sets, LND's identifier), and the check its gRPC interceptor makes on every call —
/// exactly one macaroon, a signature chain that ends right from the root key, and the
/// call's permission (`LNDCall`) among the identifier's operations.
///
/// Stricter than LND in one way: LND checks first-party caveats it knows (`ipaddr`,
/// `time-before`, ...), the simulator checks none, so it refuses every caveat rather than
/// ignore one (a constrained macaroon would otherwise pass where LND refuses it).
public struct LNDMacaroonAuthority: Sendable {
    /// LND writes `location "lnd"` into every macaroon.
    public static let location = "lnd"

    private let rootKey: [UInt8]
    public let admin: Macaroon
    public let invoice: Macaroon
    public let readOnly: Macaroon

    /// - Parameter rootKey: nil draws 32 random bytes (LND's root key size).
    public init(rootKey: [UInt8]? = nil) {
        let key = rootKey ?? Self.random(32)
        self.rootKey = key
        admin = Self.bake(rootKey: key, permissions: LNDPermission.admin)
        invoice = Self.bake(rootKey: key, permissions: LNDPermission.invoice)
        readOnly = Self.bake(rootKey: key, permissions: LNDPermission.readOnly)
    }

    /// A macaroon for any permissions, as `lncli bakemacaroon` makes (tests use it for a
    /// macaroon missing exactly one permission).
    public func bake(_ permissions: Set<LNDPermission>) -> Macaroon {
        Self.bake(rootKey: rootKey, permissions: permissions)
    }

    static func bake(rootKey: [UInt8], permissions: Set<LNDPermission>) -> Macaroon {
        let id = LNDMacaroonID(nonce: random(16), permissions: permissions)
        return Macaroon(rootKey: rootKey, identifier: id.encoded, location: location)
    }

    /// nil when the request may make `call`, else LND's refusal (all code 2, HTTP 500:
    /// the interceptor returns plain errors).
    func check(_ headers: HTTPHeaders, for call: LNDCall) -> LNDRPCError? {
        let values = headers["grpc-metadata-macaroon"]
        guard values.count == 1 else {
            return values.isEmpty ? .missingMacaroon : LNDRPCError(.unknown, "expected 1 macaroon, got \(values.count)")
        }
        guard let bytes = [UInt8](hex: values[0]), let macaroon = try? Macaroon(decoding: bytes),
              macaroon.verifies(rootKey: rootKey),
              let id = try? LNDMacaroonID(decoding: macaroon.identifier) else {
            return .macaroonMismatch
        }
        if let caveat = macaroon.caveats.first {
            // The bakery's wording (`caveat %q not satisfied: ...`); LND's own reasons name
            // the macaroon too, which is how a client tells a refused credential.
            return LNDRPCError(.unknown, "caveat \"\(caveat.condition)\" not satisfied: the simulator checks no macaroon caveats")
        }
        guard id.permissions.contains(call.permission) else { return .permissionDenied }
        return nil
    }

    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
