import Bitcoin
import Lightning
import Transport

/// One simulated node's LND REST endpoint: its own loopback port and macaroon, serving
/// `LNDRESTHandler` over HTTP/1.1 until stopped, over TLS like LND when given where to
/// write its certificate.
///
///     let server = try await LNDRESTServer.start(network: network, node: "bob", loop: loop,
///                                                tlsCertificatePath: dir + "/tls.cert")
///     // https://127.0.0.1:\(server.port), trusting only tls.cert,
///     // header Grpc-Metadata-macaroon: \(server.macaroonHex)
///     await server.stop()
///
/// Like LND, the server makes a fresh self-signed certificate (ECDSA P-256, the host's IP
/// and `localhost`) at start and writes only the certificate; a client that speaks plain
/// HTTP to it gets LND's "Client sent an HTTP request to an HTTPS server". Without a path
/// it serves plain HTTP (LND's `no-rest-tls`, loopback only).
public final class LNDRESTServer: Sendable {
    public let handler: LNDRESTHandler
    public let host: String
    public let port: Int
    /// Where the server's `tls.cert` is; nil: plain HTTP.
    public let tlsCertificatePath: String?
    /// The certificate's SHA-256 (what a client should see); nil: plain HTTP.
    public let tlsFingerprint: String?
    private let listener: TCPListener
    private let acceptor: Task<Void, Never>

    private init(handler: LNDRESTHandler, host: String, tls: (path: String, fingerprint: String)?, listener: TCPListener,
                 acceptor: Task<Void, Never>) {
        self.handler = handler
        self.host = host
        tlsCertificatePath = tls?.path
        tlsFingerprint = tls?.fingerprint
        self.port = listener.port
        self.listener = listener
        self.acceptor = acceptor
    }

    public var node: String { handler.node }
    public var macaroon: [UInt8] { handler.macaroon }
    /// What a client sends in `Grpc-Metadata-macaroon` (and what the hub prints).
    public var macaroonHex: String { handler.macaroon.hex }
    public var url: String { "\(tlsCertificatePath == nil ? "http" : "https")://\(host):\(port)" }

    /// Binds `host:port` (0: any free port) and serves `node`.
    /// - Parameters:
    ///   - macaroons: the node's root key and macaroons; by default a fresh random root
    ///     key, so every hub run has fresh credentials.
    ///   - bestBlock: the tip's height and hash in hex for `getinfo`, read together.
    ///   - publish: where `PublishTransaction` sends a transaction (`LNDRESTHandler.publishing(to:)`).
    ///   - tlsCertificatePath: where to write the fresh certificate (replacing any file
    ///     there: a restarted LND may have a new one too); nil: plain HTTP.
    public static func start(network: LightningNetwork, node: String, host: String = "127.0.0.1", port: Int = 0,
                             macaroons: LNDMacaroonAuthority = LNDMacaroonAuthority(), loop: EventLoop,
                             configuration: HTTPServer.Configuration = HTTPServer.Configuration(),
                             bestBlock: @escaping @Sendable () -> (height: Int, hash: String)? = { nil },
                             publish: @escaping @Sendable (Transaction) throws(LNDRPCError) -> Void = LNDRESTHandler.noChain,
                             tlsCertificatePath: String? = nil) async throws -> LNDRESTServer {
        let handler = try LNDRESTHandler(network: network, node: node, macaroons: macaroons,
                                         bestBlock: bestBlock, publish: publish)
        let http = HTTPServer(configuration: configuration, sleeper: loop.sleeper, streamingHandler: handler.handle)
        var tls: TLSServerContext?
        if let tlsCertificatePath {
            let identity = try TLSIdentity(host: host)
            try identity.writeCertificate(to: tlsCertificatePath)
            tls = try TLSServerContext(identity: identity)
        }
        let listener = try await TCPListener.bind(host: host, port: port, loop: loop)
        let sleeper = loop.sleeper
        let acceptor = Task { [tls] in
            await withDiscardingTaskGroup { group in
                // accept() returns nil once the listener is closed, and throws when the
                // task is cancelled: either ends the loop, and the group cancels the rest.
                while let connection = try? await listener.accept() {
                    group.addTask {
                        guard let tls else { return await http.serve(connection: connection) }
                        // The handshake runs in this connection's task over memory BIOs; a
                        // failed one (plain HTTP, a stalled or refusing client) ends only it.
                        guard let stream = try? await TLSStream.accept(over: connection, context: tls, sleeper: sleeper) else {
                            return
                        }
                        await http.serve(connection: stream)
                    }
                }
                group.cancelAll()
            }
        }
        let described = tls.map { (path: tlsCertificatePath ?? "", fingerprint: $0.identity.fingerprint) }
        return LNDRESTServer(handler: handler, host: host, tls: described, listener: listener, acceptor: acceptor)
    }

    /// Stops accepting, closes every connection (open streams end) and waits for them.
    public func stop() async {
        acceptor.cancel()
        await listener.close()
        await acceptor.value
    }
}
