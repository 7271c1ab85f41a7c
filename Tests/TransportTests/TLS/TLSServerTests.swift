import COpenSSL
import Synchronization
import Foundation
import XCTest
@testable import Transport

/// The TLS server side (what the hub's LND REST servers run): the identity it makes is
/// read back by the openssl tool, Python's `ssl` client trusting only the written
/// certificate connects (code no one here wrote), our client connects and is refused with
/// another certificate, plain HTTP gets LND's answer, a silent client is dropped.
final class TLSServerTests: XCTestCase {
    private var tools: TLSTestTools!
    private var loop: EventLoop!

    override func setUp() async throws {
        tools = try TLSTestTools()
        loop = try EventLoop()
    }

    override func tearDown() async throws {
        tools.stop()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0, "a libuv handle leaked")
    }

    /// A server that accepts TLS connections and echoes each read back, upper-cased; the
    /// accept errors are kept for the tests that expect one.
    private final class ErrorLog: Sendable {
        let list = Mutex<[TLSError]>([])
        func withLock<R>(_ body: ([TLSError]) -> R) -> R { list.withLock { body($0) } }
    }

    private final class EchoServer: Sendable {
        let listener: TCPListener
        let task: Task<Void, Never>
        let errors = ErrorLog()

        init(loop: EventLoop, context: TLSServerContext, timeoutMilliseconds: UInt64 = 10_000) async throws {
            let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
            self.listener = listener
            let sleeper = loop.sleeper
            let errors = errors
            task = Task {
                await withDiscardingTaskGroup { group in
                    while let connection = try? await listener.accept() {
                        group.addTask {
                            do {
                                let stream = try await TLSStream.accept(over: connection, context: context, sleeper: sleeper,
                                                                        timeoutMilliseconds: timeoutMilliseconds)
                                while let bytes = try await stream.read() {
                                    try await stream.write(Array(String(decoding: bytes, as: UTF8.self).uppercased().utf8))
                                }
                                await stream.close()
                            } catch let error as TLSError {
                                errors.list.withLock { $0.append(error) }
                            } catch {}
                        }
                    }
                    group.cancelAll()
                }
            }
        }

        var port: Int { listener.port }

        func stop() async {
            task.cancel()
            await listener.close()
            await task.value
        }
    }

    private func serve(host: String = "127.0.0.1", timeoutMilliseconds: UInt64 = 10_000) async throws
        -> (server: EchoServer, identity: TLSIdentity, certificate: String) {
        let identity = try TLSIdentity(host: host)
        let certificate = tools.path("tls.cert")
        try identity.writeCertificate(to: certificate)
        let server = try await EchoServer(loop: loop, context: TLSServerContext(identity: identity),
                                          timeoutMilliseconds: timeoutMilliseconds)
        return (server, identity, certificate)
    }

    /// Runs a tool on its own thread (it blocks until the tool exits) and returns its
    /// standard output and error.
    private func runTool(_ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = arguments
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
                let output = Pipe()
                process.standardOutput = output
                process.standardError = output
                process.standardInput = FileHandle.nullDevice
                do {
                    try process.run()
                    let data = output.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: String(decoding: data, as: UTF8.self))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    func testTheCertificateIsLNDsKind() throws {
        let identity = try TLSIdentity(host: "127.0.0.1")
        try identity.writeCertificate(to: tools.path("tls.cert"))
        let text = try tools.run(["openssl", "x509", "-in", tools.path("tls.cert"), "-noout", "-text"])
        XCTAssertTrue(text.contains("ASN1 OID: prime256v1"), text)
        XCTAssertTrue(text.contains("ecdsa-with-SHA256"), text)
        XCTAssertTrue(text.contains("IP Address:127.0.0.1"), text)
        XCTAssertTrue(text.contains("DNS:localhost"), text)
        XCTAssertTrue(text.contains("CA:TRUE"), text)
        XCTAssertTrue(text.contains("TLS Web Server Authentication"), text)
        // Self-signed: it verifies against itself, as the only anchor.
        let verified = try tools.run(["openssl", "verify", "-CAfile", tools.path("tls.cert"), tools.path("tls.cert")])
        XCTAssertTrue(verified.contains("OK"), verified)
        let fingerprint = try tools.run(["openssl", "x509", "-in", tools.path("tls.cert"), "-noout", "-fingerprint", "-sha256"])
        XCTAssertTrue(fingerprint.contains(identity.fingerprint), fingerprint)
        // 14 months, LND's default lifetime: the certificate is still valid in 13.
        XCTAssertNoThrow(try tools.run(["openssl", "x509", "-in", tools.path("tls.cert"), "-noout",
                                        "-checkend", String(13 * 30 * 24 * 3_600)]))
        XCTAssertThrowsError(try tools.run(["openssl", "x509", "-in", tools.path("tls.cert"), "-noout",
                                            "-checkend", String(15 * 30 * 24 * 3_600)]))
        // No private key is in the file.
        let written = try String(contentsOfFile: tools.path("tls.cert"), encoding: .utf8)
        XCTAssertFalse(written.contains("PRIVATE KEY"))
        // Each identity is fresh.
        XCTAssertNotEqual(try TLSIdentity(host: "127.0.0.1").certificateDER, identity.certificateDER)
    }

    func testPythonsClientTrustingOnlyTheWrittenCertificateConnectsByIPAndByLocalhost() async throws {
        let (server, _, certificate) = try await serve()
        for name in ["127.0.0.1", "localhost"] {
            let script = """
                import socket, ssl
                context = ssl.create_default_context(cafile="\(certificate)")
                with socket.create_connection(("127.0.0.1", \(server.port)), timeout=10) as raw:
                    with context.wrap_socket(raw, server_hostname="\(name)") as tls:
                        tls.sendall(b"ping")
                        print(tls.version(), tls.recv(16).decode())
                """
            let output = try await runTool(["python3", "-c", script])
            XCTAssertTrue(output.contains("TLSv1.3 PING"), output)  // "ping" echoed upper-cased
            XCTAssertTrue(output.contains("TLSv1.3"), output)
        }
        // A name the certificate does not carry is refused by Python's hostname check.
        let wrongName = """
            import socket, ssl
            context = ssl.create_default_context(cafile="\(certificate)")
            raw = socket.create_connection(("127.0.0.1", \(server.port)), timeout=10)
            try:
                context.wrap_socket(raw, server_hostname="example.com")
                print("connected")
            except ssl.SSLCertVerificationError as error:
                print("refused", error.verify_message)
            """
        let refused = try await runTool(["python3", "-c", wrongName])
        XCTAssertTrue(refused.hasPrefix("refused"), refused)
        await server.stop()
    }

    func testOurClientConnectsWithTheCertificateAndIsRefusedWithAnother() async throws {
        let (server, identity, certificate) = try await serve()
        let stream = try await TLSHTTPConnector(loop: loop, certificatePath: certificate).connect(host: "127.0.0.1", port: server.port)
        try await stream.write(Array("hello".utf8))
        let answer = try await stream.read()
        XCTAssertEqual(answer.map { String(decoding: $0, as: UTF8.self) }, "HELLO")
        XCTAssertEqual(stream.protocolVersion, "TLSv1.3")
        await stream.close()

        let other = try TLSIdentity(host: "127.0.0.1")
        try other.writeCertificate(to: tools.path("other.cert"))
        let error = await refusal(TLSHTTPConnector(loop: loop, certificatePath: tools.path("other.cert")), port: server.port,
                                  "a certificate other than the server's was accepted")
        if let error {
            guard case .peerCertificateRejected(_, _, let file, let peer) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(peer, identity.fingerprint)
            XCTAssertEqual(file, [other.fingerprint])
        }
        await server.stop()
    }

    /// The error of a connection that must be refused; nil, with `accepted` as the test's
    /// failure, when it was let through.
    private func refusal(_ connector: TLSHTTPConnector, port: Int, _ accepted: String) async -> TLSError? {
        do {
            let stream = try await connector.connect(host: "127.0.0.1", port: port)
            await stream.close()
            XCTFail("\(accepted) (resumed: \(stream.resumed))")
        } catch let error as TLSError {
            return error
        } catch {
            XCTFail("\(error)")
        }
        return nil
    }

    /// Connects with `connector`, has "ping" echoed (the first read, after which the
    /// server's ticket is kept), and returns whether the handshake resumed a session.
    private func echoOnce(_ connector: TLSHTTPConnector, port: Int) async throws -> Bool {
        let stream = try await connector.connect(host: "127.0.0.1", port: port)
        try await stream.write(Array("ping".utf8))
        let answer = try await stream.read()
        XCTAssertEqual(answer.map { String(decoding: $0, as: UTF8.self) }, "PING")
        await stream.close()
        return stream.resumed
    }

    func testAConnectorResumesTheServersSessionOnceAndOnlyWithTheSameCertificates() async throws {
        let (server, identity, certificate) = try await serve()
        let connector = TLSHTTPConnector(loop: loop, certificatePath: certificate)
        let first = try await echoOnce(connector, port: server.port)
        XCTAssertFalse(first, "nothing to resume yet")
        let second = try await echoOnce(connector, port: server.port)
        XCTAssertTrue(second, "the first connection's session is resumed")

        // A session is offered once: a second connection opened before the first has read
        // anything has none left, and makes a full handshake.
        let resuming = try await connector.connect(host: "127.0.0.1", port: server.port)
        let full = try await connector.connect(host: "127.0.0.1", port: server.port)
        XCTAssertTrue(resuming.resumed)
        XCTAssertFalse(full.resumed)
        await resuming.close()
        await full.close()
        // Those two read nothing, so they left no session: this one makes a full handshake
        // and leaves one.
        let third = try await echoOnce(connector, port: server.port)
        XCTAssertFalse(third)

        // The certificate file changes to another server's: the kept sessions must not let
        // this server through, although they were made with it.
        let other = try TLSIdentity(host: "127.0.0.1")
        try other.writeCertificate(to: certificate)
        let error = await refusal(connector, port: server.port, "a session of the old certificate file let the server through")
        if let error {
            guard case .peerCertificateRejected(_, _, let file, let peer) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(peer, identity.fingerprint)
            XCTAssertEqual(file, [other.fingerprint])
        }
        // The server's own certificate again: a new context, with nothing to resume.
        try identity.writeCertificate(to: certificate)
        let afterChange = try await echoOnce(connector, port: server.port)
        XCTAssertFalse(afterChange)
        await server.stop()
    }

    func testAResumedSessionIsRefusedOnceItsCertificateHasExpired() async throws {
        // A certificate valid for two more seconds, and a session of it kept before then.
        let identity = try TLSIdentity(host: "127.0.0.1", validitySeconds: 2)
        let certificate = tools.path("short.cert")
        try identity.writeCertificate(to: certificate)
        let server = try await EchoServer(loop: loop, context: TLSServerContext(identity: identity))
        let connector = TLSHTTPConnector(loop: loop, certificatePath: certificate)
        _ = try await echoOnce(connector, port: server.port)
        try await Task.sleep(nanoseconds: 3_500_000_000)
        // The session's first handshake accepted the certificate; now it has expired.
        if let error = await refusal(connector, port: server.port, "an expired certificate was accepted") {
            guard case .peerCertificateRejected(_, let reason, _, _) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("expired"), reason)
        }
        await server.stop()
    }

    func testPlainHTTPGetsLNDsAnswerAndOurClientNamesIt() async throws {
        let (server, _, _) = try await serve()
        let tcp = try await TCPConnection.connect(host: "127.0.0.1", port: server.port, loop: loop)
        try await tcp.write(Array("GET /v1/getinfo HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        var answer: [UInt8] = []
        while let bytes = try await tcp.read() { answer += bytes }
        await tcp.close()
        let text = String(decoding: answer, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.0 400 Bad Request"), text)
        XCTAssertTrue(text.contains("Client sent an HTTP request to an HTTPS server"), text)
        await server.stop()
        XCTAssertEqual(server.errors.withLock { $0 }, [.plainHTTPClient])
    }

    func testAClientThatNeverFinishesTheHandshakeIsDropped() async throws {
        let (server, _, _) = try await serve(timeoutMilliseconds: 200)
        let tcp = try await TCPConnection.connect(host: "127.0.0.1", port: server.port, loop: loop)
        // Nothing sent: the server closes the connection once its limit passes.
        let started = ContinuousClock.now
        let read = try await tcp.read()
        XCTAssertNil(read)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        await tcp.close()
        await server.stop()
        XCTAssertEqual(server.errors.withLock { $0 }, [.handshakeTimedOut(milliseconds: 200)])
    }

    func testAPythonClientLimitedToTLS11IsRefusedByTheServersMinimum() async throws {
        let (server, _, certificate) = try await serve()
        // Debian's OpenSSL refuses TLS 1.1 itself: this configuration lets Python's client offer it.
        let legacy = try tools.legacyOpenSSLConfig()
        func client(_ version: String) -> String {
            """
            import socket, ssl
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.load_verify_locations(cafile="\(certificate)")
            context.minimum_version = ssl.TLSVersion.TLSv1_1
            context.maximum_version = ssl.TLSVersion.\(version)
            context.set_ciphers("DEFAULT:@SECLEVEL=0")  # TLS 1.1's SHA-1 suites, as the server would need
            raw = socket.create_connection(("127.0.0.1", \(server.port)), timeout=10)
            try:
                tls = context.wrap_socket(raw, server_hostname="localhost")
                print("connected", tls.version())
            except ssl.SSLError as error:
                print("refused", error)
            """
        }
        let old = try await runTool(["python3", "-W", "ignore", "-c", client("TLSv1_1")], environment: ["OPENSSL_CONF": legacy])
        XCTAssertTrue(old.hasPrefix("refused"), old)
        XCTAssertFalse(old.contains("NO_CIPHERS"), "the client must get as far as offering TLS 1.1: \(old)")
        // The same client allowed TLS 1.2 connects: the version is what was refused.
        let allowed = try await runTool(["python3", "-W", "ignore", "-c", client("TLSv1_2")], environment: ["OPENSSL_CONF": legacy])
        XCTAssertTrue(allowed.hasPrefix("connected TLSv1.2"), allowed)
        await server.stop()
        let errors = server.errors.withLock { $0 }
        guard case .handshakeFailed(let reason)? = errors.first else { return XCTFail("\(errors)") }
        XCTAssertTrue(reason.contains("protocol"), "\(errors)")
    }

    func testTheServersMinimumIsTLS12() throws {
        let context = try TLSServerContext(identity: TLSIdentity(host: "127.0.0.1"))
        let session = try TLSSession(server: context)
        XCTAssertEqual(session.configuredMinimumVersion, TLS1_2_VERSION)
    }
}
