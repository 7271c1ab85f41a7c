import Transport

/// A message the server sends on its own (no `id`): a new tip for
/// `blockchain.headers.subscribe`, a new status for `blockchain.scripthash.subscribe`.
public struct ElectrumNotification: Sendable, Equatable {
    public let method: String
    public let params: [JSONValue]

    public init(method: String, params: [JSONValue]) {
        self.method = method
        self.params = params
    }

    /// The new tip, when this is a headers notification.
    public var headerTip: ElectrumHeaderTip? {
        guard method == ElectrumMethod.headersSubscribe, let first = params.first else { return nil }
        return try? ElectrumHeaderTip(decoding: first, method: method)
    }

    /// The script hash and its new status (nil: no history), when this is a scripthash
    /// notification.
    public var scriptHashStatus: (scriptHash: ElectrumScriptHash, status: String?)? {
        guard method == ElectrumMethod.scriptHashSubscribe, params.count == 2,
              let hex = params[0].stringValue, let scriptHash = ElectrumScriptHash(hex: hex) else { return nil }
        if params[1] == .null { return (scriptHash, nil) }
        guard let status = params[1].stringValue else { return nil }
        return (scriptHash, status)
    }
}
