import COpenSSL
import XCTest
@testable import Transport

/// The TLS client against OpenSSL's server driven by Python's `ssl` module, with
/// certificates made by the openssl tool: the right certificate, another one, an expired
/// one, a server stuck at TLS 1.1, a CA-issued leaf with its host checked, plain HTTP.
final class TLSStreamTests: XCTestCase {
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

    private func get(port: Int, certificate: String) async throws -> HTTPResponse {
        let connector = TLSHTTPConnector(loop: loop, certificatePath: tools.path(certificate))
        let client = HTTPClient(configuration: HTTPClient.Configuration(timeoutMilliseconds: 10_000),
                                sleeper: loop.sleeper, connector: connector.connector)
        do {
            let response = try await client.send(HTTPRequest(method: .get, target: "/v1/getinfo"),
                                                 to: HTTPEndpoint(host: "127.0.0.1", port: port))
            await client.shutDown()
            return response
        } catch {
            await client.shutDown()
            throw error
        }
    }

    private func connectError(port: Int, certificate: String) async -> TLSError? {
        let connector = TLSHTTPConnector(loop: loop, certificatePath: tools.path(certificate))
        do {
            let stream = try await connector.connect(host: "127.0.0.1", port: port)
            await stream.close()
            return nil
        } catch let error as TLSError {
            return error
        } catch {
            XCTFail("not a TLSError: \(error)")
            return nil
        }
    }

    func testTheServersOwnCertificateConnectsAndAnHTTPRequestRoundTrips() async throws {
        try tools.selfSigned("server")
        let port = try tools.startServer(.tls)
        let response = try await get(port: port, certificate: "server.cert")
        XCTAssertEqual(response.status.code, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "hello over TLSv1.3")
    }

    func testAnotherSelfSignedCertificateIsRefusedNamingBothFingerprints() async throws {
        try tools.selfSigned("server")
        try tools.selfSigned("other")
        let port = try tools.startServer(.tls)
        let error = await connectError(port: port, certificate: "other.cert")
        guard case .peerCertificateRejected(let path, _, let fileFingerprints, let peerFingerprint) = error else {
            return XCTFail("expected a refused certificate, got \(String(describing: error))")
        }
        XCTAssertEqual(path, tools.path("other.cert"))
        XCTAssertEqual(peerFingerprint, try tools.fingerprint("server"))
        XCTAssertEqual(fileFingerprints, [try tools.fingerprint("other")])
        XCTAssertTrue(error!.description.contains(peerFingerprint))
    }

    func testAnExpiredCertificateIsRefusedEvenWhenItIsTheOneInTheFile() async throws {
        try tools.selfSigned("server", days: -1)
        let port = try tools.startServer(.tls)
        let error = await connectError(port: port, certificate: "server.cert")
        guard case .peerCertificateRejected(_, let reason, _, _) = error else {
            return XCTFail("expected a refused certificate, got \(String(describing: error))")
        }
        XCTAssertTrue(reason.contains("expired"), reason)
    }

    func testAServerLimitedToTLS11IsRefusedByTheMinimum() async throws {
        try tools.selfSigned("server")
        let legacy = try tools.legacyOpenSSLConfig()
        let port = try tools.startServer(.tls11, environment: ["OPENSSL_CONF": legacy])
        // The server does speak TLS 1.1: openssl's own client, allowed 1.1, gets through.
        let probe = try tools.run(["sh", "-c", "echo | openssl s_client -connect 127.0.0.1:\(port) -tls1_1 -brief 2>&1 || true"],
                                  environment: ["OPENSSL_CONF": legacy])
        XCTAssertTrue(probe.contains("TLSv1.1"), probe)
        let error = await connectError(port: port, certificate: "server.cert")
        guard case .handshakeFailed(let reason) = error else {
            return XCTFail("expected a failed handshake, got \(String(describing: error))")
        }
        XCTAssertTrue(reason.contains("protocol version") || reason.contains("unsupported protocol"), reason)
    }

    func testTheConfiguredMinimumIsTLS12() throws {
        try tools.selfSigned("server")
        let session = try TLSSession(host: "127.0.0.1", anchors: TLSCertificates.read(path: tools.path("server.cert")))
        XCTAssertEqual(session.configuredMinimumVersion, TLS1_2_VERSION)
        XCTAssertEqual(TLSSession.minimumVersion, 0x0303)
    }

    func testALeafIssuedByTheFilesCAConnectsOnlyForTheHostItNames() async throws {
        try tools.selfSigned("ca", altNames: "DNS:ca.invalid", isCA: true)
        try tools.signed("server", by: "ca", altNames: "IP:127.0.0.1")
        let port = try tools.startServer(.tls)
        let response = try await get(port: port, certificate: "ca.cert")
        XCTAssertEqual(response.status.code, 200)

        try tools.signed("elsewhere", by: "ca", altNames: "IP:10.9.9.9")
        let otherPort = try tools.startServer(.tls, certificate: "elsewhere")
        let error = await connectError(port: otherPort, certificate: "ca.cert")
        guard case .peerCertificateRejected(_, let reason, _, _) = error else {
            return XCTFail("expected a refused certificate, got \(String(describing: error))")
        }
        XCTAssertTrue(reason.lowercased().contains("mismatch"), reason)
    }

    func testTheCertificateFileIsReadAgainForEachConnection() async throws {
        try tools.selfSigned("server")
        try tools.selfSigned("other")
        let port = try tools.startServer(.tls)
        try FileManager.default.copyItem(atPath: tools.path("other.cert"), toPath: tools.path("pinned.cert"))
        let refused = await connectError(port: port, certificate: "pinned.cert")
        XCTAssertNotNil(refused)
        try FileManager.default.removeItem(atPath: tools.path("pinned.cert"))
        try FileManager.default.copyItem(atPath: tools.path("server.cert"), toPath: tools.path("pinned.cert"))
        let accepted = await connectError(port: port, certificate: "pinned.cert")
        XCTAssertNil(accepted)
    }

    func testAMissingOrEmptyCertificateFileIsNamed() async throws {
        try tools.selfSigned("server")
        let port = try tools.startServer(.tls)
        let missing = await connectError(port: port, certificate: "absent.cert")
        XCTAssertEqual(missing, .certificateFileUnreadable(path: tools.path("absent.cert"), reason: "No such file or directory"))
        try "not a certificate\n".write(toFile: tools.path("junk.cert"), atomically: true, encoding: .utf8)
        let junk = await connectError(port: port, certificate: "junk.cert")
        XCTAssertEqual(junk, .certificateFileHasNoCertificate(path: tools.path("junk.cert")))
    }

    func testTLSToAPlainHTTPPortIsNamed() async throws {
        try tools.selfSigned("server")
        let port = try tools.startServer(.plain400)
        let error = await connectError(port: port, certificate: "server.cert")
        XCTAssertEqual(error, .plainHTTPServer(host: "127.0.0.1", port: port))
    }
}
