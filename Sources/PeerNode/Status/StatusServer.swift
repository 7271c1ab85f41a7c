import Transport

/// The read-only status API (`status_listen`): JSON endpoints, `/metrics` and the
/// dashboard, over HTTP/1.1 on the daemon's event loop (`HTTPServerListener`), every
/// request authenticated (`StatusAuth`). Started last by the daemon, stopped first.
final class StatusServer: Sendable {
    let listener: HTTPServerListener
    var port: Int { listener.port }

    private init(listener: HTTPServerListener) {
        self.listener = listener
    }

    /// Binds `address` and serves. The token file is read or made first, so a bad one stops
    /// the start before anything listens.
    static func start(address: NodeConfig.HostPort, reader: StatusReader, sessions: StatusSessions,
                      loop: EventLoop) async throws(DaemonError) -> StatusServer {
        let token = try StatusToken.loadOrCreate(datadir: reader.services.config.datadir)
        let router = StatusRouter(reader: reader, auth: StatusAuth(token: token, sessions: sessions))
        // A status page needs few connections; short timeouts free them from idle browsers.
        let configuration = HTTPServer.Configuration(limits: .server, idleTimeoutMilliseconds: 30_000,
                                                     requestTimeoutMilliseconds: 10_000, maxConnections: 32)
        let server = HTTPServer(configuration: configuration, sleeper: loop.sleeper) { request in
            await router.handle(request)
        }
        do {
            let listener = try await HTTPServerListener.start(server: server, host: address.host, port: address.port, loop: loop)
            return StatusServer(listener: listener)
        } catch {
            throw .misconfigured(key: "status_listen", reason: "cannot listen on \(address): \(ErrorText.describe(error))",
                                 fix: "set status_listen to a free port on this machine (127.0.0.1:PORT), or remove it")
        }
    }

    func close() async {
        await listener.close()
    }
}
