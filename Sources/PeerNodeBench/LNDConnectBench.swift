import Glibc
import Regtest
import Transport

/// Issue 15's figure: what a fresh connection to the hub's LND REST costs over TLS (TCP
/// connect, the handshake with the node's self-signed P-256 certificate checked against
/// its tls.cert file, read again as the node does) against plain HTTP to the same hub in
/// the same run; and the same with the first `GET /v1/getinfo` answered (what the node
/// pays before its first LND call on a new connection). The hub runs in this process
/// (`RegtestHub`, what `peernode-regtest` runs): one node served over TLS, one in plain
/// HTTP; client and server share the machine, as a node and its LND usually do.
struct LNDConnectBench {
    struct Result {
        var tlsConnect: [Double]
        var plainConnect: [Double]
        var tlsFirstCall: [Double]
        var plainFirstCall: [Double]
    }

    let rounds: Int

    func run(loop: EventLoop) async throws -> Result {
        var template = Array("/tmp/peernode-bench-tls-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchFailure("cannot create a directory under /tmp")
        }
        let directory = String(cString: made)
        let hub = try await RegtestHub.start(RegtestHub.Configuration(credentials: HTTPBasicCredentials(user: "bench", password: "bench"),
                                                                      lightningTLSDirectory: directory), loop: loop)
        let tls = try await hub.lightning.addNode(name: "tls", balanceSat: 0)
        let plain = try await hub.lightning.addNode(name: "plain", balanceSat: 0, plainHTTP: true)
        guard let certificate = tls.tlsCertificatePath else { throw BenchFailure("the hub gave the TLS node no tls.cert") }
        let tlsConnector = TLSHTTPConnector(loop: loop, certificatePath: certificate).connector
        let plainConnector: HTTPClient.Connector = { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) }

        var result = Result(tlsConnect: [], plainConnect: [], tlsFirstCall: [], plainFirstCall: [])
        // Warm-up, then interleaved rounds so load from elsewhere hurts both sides alike.
        for index in 0..<(rounds + 20) {
            let tlsConnect = try await connectSeconds(tlsConnector, port: tls.port)
            let plainConnect = try await connectSeconds(plainConnector, port: plain.port)
            let tlsCall = try await firstCallSeconds(tlsConnector, port: tls.port, macaroonHex: tls.macaroonHex, loop: loop)
            let plainCall = try await firstCallSeconds(plainConnector, port: plain.port, macaroonHex: plain.macaroonHex, loop: loop)
            guard index >= 20 else { continue }
            result.tlsConnect.append(tlsConnect)
            result.plainConnect.append(plainConnect)
            result.tlsFirstCall.append(tlsCall)
            result.plainFirstCall.append(plainCall)
        }
        await hub.stop()
        for name in ["tls"] {
            unlink(directory + "/\(name)/tls.cert")
            rmdir(directory + "/\(name)")
        }
        rmdir(directory)
        return result
    }

    /// Connected (and, over TLS, the handshake done and the certificate accepted), then closed.
    private func connectSeconds(_ connector: HTTPClient.Connector, port: Int) async throws -> Double {
        var stream: (any ByteStream)?
        let seconds = try await timedAsync { stream = try await connector("127.0.0.1", port) }
        await stream?.close()
        return seconds
    }

    /// A new client's first `GET /v1/getinfo`, connection included, answered 200.
    private func firstCallSeconds(_ connector: @escaping HTTPClient.Connector, port: Int, macaroonHex: String,
                                  loop: EventLoop) async throws -> Double {
        var configuration = HTTPClient.Configuration(timeoutMilliseconds: 10_000)
        configuration.headers.add(name: "Grpc-Metadata-macaroon", value: macaroonHex)
        let client = HTTPClient(configuration: configuration, sleeper: loop.sleeper, connector: connector)
        var status = 0
        let seconds = try await timedAsync {
            status = try await client.send(HTTPRequest(method: .get, target: "/v1/getinfo"),
                                           to: HTTPEndpoint(host: "127.0.0.1", port: port)).status.code
        }
        await client.shutDown()
        guard status == 200 else { throw BenchFailure("getinfo answered HTTP \(status)") }
        return seconds
    }

    /// The table rows: medians in ms, TLS against plain HTTP.
    static func report(_ result: Result, into table: inout BenchTable) {
        func median(_ values: [Double]) -> Double { quantile(values.sorted(), 0.5) * 1_000 }
        let connect = (median(result.tlsConnect), median(result.plainConnect))
        let call = (median(result.tlsFirstCall), median(result.plainFirstCall))
        table.add(["5. LND REST connection set-up, p50 (TLS vs plain)", fixed(connect.0, 3) + " ms", fixed(connect.1, 3) + " ms",
                   fixed(connect.0 / connect.1, 1) + "x", "", ""])
        table.add(["   + first GET /v1/getinfo, p50 (TLS vs plain)", fixed(call.0, 3) + " ms", fixed(call.1, 3) + " ms",
                   fixed(call.0 / call.1, 1) + "x", "", ""])
    }

    static func printNotes(rounds: Int) {
        print("5: the regtest hub's LND REST in this process, one node over TLS (its fresh ECDSA P-256 tls.cert,")
        print("   read and checked at every connection, TLS 1.3), one in plain HTTP; \(rounds) interleaved rounds after")
        print("   20 warm-up: TCP connect + handshake until the certificate is accepted (then closed), and a new")
        print("   HTTP client's first getinfo with its connection; bound column = plain HTTP, ratio = TLS / plain.")
    }
}

