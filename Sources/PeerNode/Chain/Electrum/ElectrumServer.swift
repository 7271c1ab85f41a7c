import Transport

/// Where the node's Electrum server is and how to reach it (`electrum_server`,
/// `electrum_tls`, `electrum_tls_cert`, `electrum_trusted`).
public struct ElectrumServer: Sendable, Hashable {
    public let host: String
    public let port: Int
    /// The PEM file of the certificate(s) to trust (the server's own, pinned, or its CA);
    /// nil for plain TCP. Read again at each connection, so a renewed certificate is
    /// picked up by the next reconnection.
    public let tlsCertificatePath: String?
    /// The operator runs this server (it follows the operator's own node): zero-conf
    /// claims may rely on what it reports. Otherwise the node waits for confirmations.
    public let trusted: Bool

    public init(host: String, port: Int, tlsCertificatePath: String? = nil, trusted: Bool = false) {
        self.host = host
        self.port = port
        self.tlsCertificatePath = tlsCertificatePath
        self.trusted = trusted
    }

    /// For messages: `electrum://host:port` or `electrums://host:port` (TLS).
    public var url: String { "\(tlsCertificatePath == nil ? "electrum" : "electrums")://\(host):\(port)" }
}
