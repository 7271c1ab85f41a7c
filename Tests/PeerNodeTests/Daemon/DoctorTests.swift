import Foundation
import Lightning
import PeerNode
import Regtest
import TestSupport
import XCTest

/// `peernode doctor` (the binary, as a user runs it, without a daemon) on a node with each
/// fault names it and exits 1; a healthy node exits 0. `run` refuses the same fatal faults.
final class DoctorTests: XCTestCase {
    private func doctor(_ datadir: String, _ extra: [String] = []) async throws -> (status: Int32, report: [String: Any], checks: [String: [String: Any]]) {
        let executable = try productExecutable("peernode")
        let outcome = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runProduct(executable, ["doctor", "--datadir", datadir, "--json"] + extra) })
            }
        }
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any],
                                   outcome.stdout + outcome.stderr)
        var checks: [String: [String: Any]] = [:]
        for check in try XCTUnwrap(report["checks"] as? [[String: Any]]) { checks[check["name"] as! String] = check }
        return (outcome.status, report, checks)
    }

    private func status(_ check: [String: Any]?) -> String? { check?["status"] as? String }
    private func detail(_ check: [String: Any]?) -> String { check?["detail"] as? String ?? "" }

    func testHealthyNodeExitsZeroAndAProviderWithoutLiquidityIsWarned() async throws {
        let fixture = try await DaemonFixture()
        let (datadir, _) = try await fixture.dataDirectory("healthy")
        let healthy = try await doctor(datadir)
        XCTAssertEqual(healthy.status, 0, "\(healthy.report)")
        XCTAssertEqual(healthy.report["ok"] as? Bool, true)
        for name in ["datadir", "bitcoind", "txindex", "lnd_macaroon", "lnd", "lnd_synced", "lnd_balance", "peer_port"] {
            XCTAssertEqual(status(healthy.checks[name]), "ok", "\(name): \(healthy.checks[name] ?? [:])")
        }
        // No outbound liquidity: a warning, still exit 0.
        _ = try fixture.hub.lightning.setBalance(node: "alice", balanceSat: 0)
        let (provider, _) = try await fixture.dataDirectory("prov", config: fixture.hubConfig + ["provider=1"])
        let dry = try await doctor(provider)
        XCTAssertEqual(dry.status, 0, "\(dry.report)")
        XCTAssertEqual(status(dry.checks["lnd_balance"]), "warning")
        XCTAssertNotNil(dry.checks["lnd_balance"]?["fix"])
        // A data directory others can read: a warning with the chmod to run.
        chmod(provider, 0o755)
        let open = try await doctor(provider)
        XCTAssertEqual(status(open.checks["datadir"]), "warning")
        XCTAssertEqual(open.checks["datadir"]?["fix"] as? String, "chmod 700 \(provider)")
        await fixture.shutDown()
    }

    /// `run` logs doctor's warnings and starts: here no outbound liquidity.
    func testRunLogsTheWarningsAndStarts() async throws {
        let fixture = try await DaemonFixture()
        _ = try fixture.hub.lightning.setBalance(node: "alice", balanceSat: 0)
        let (datadir, _) = try await fixture.dataDirectory("dry")
        let lines = LogLines()
        let daemon = try await fixture.start(datadir, log: DaemonLog { lines.append($0) })
        try await daemon.stop()
        XCTAssertTrue(lines.all.contains { $0.hasPrefix("warning (lnd_balance): no outbound Lightning liquidity") }, "\(lines.all)")
        await fixture.shutDown()
    }

    func testNoDataDirectoryOrAStrayArgument() async throws {
        let executable = try productExecutable("peernode")
        let missing = try runProduct(executable, ["doctor", "--datadir", "/tmp/pnd-no-such-dir-\(getpid())", "--json"])
        XCTAssertEqual(missing.status, 4, missing.stdout + missing.stderr)
        XCTAssertTrue(missing.stdout.contains(#""code":"not_initialized""#), missing.stdout)
        let stray = try runProduct(executable, ["doctor", "now"])
        XCTAssertEqual(stray.status, 2, stray.stderr)
    }

    func testInvoiceMacaroonIsFatal() async throws {
        let fixture = try await DaemonFixture()
        let (datadir, _) = try await fixture.dataDirectory("invoice")
        let invoice = try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(fixture.lightning.macaroonPaths["invoice"])))
        try invoice.write(to: URL(fileURLWithPath: datadir + "/alice.macaroon"))
        let result = try await doctor(datadir)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.report["ok"] as? Bool, false)
        XCTAssertEqual(status(result.checks["lnd_macaroon"]), "fatal")
        XCTAssertTrue(detail(result.checks["lnd_macaroon"]).contains("offchain:write (SendPaymentV2)"), detail(result.checks["lnd_macaroon"]))
        XCTAssertTrue((result.checks["lnd_macaroon"]?["fix"] as? String)?.contains("lncli bakemacaroon") == true)
        XCTAssertEqual(status(result.checks["bitcoind"]), "ok")
        await fixture.shutDown()
    }

    func testWrongNetworkIsFatal() async throws {
        let fixture = try await DaemonFixture()
        let (datadir, _) = try await fixture.dataDirectory("net")
        let result = try await doctor(datadir, ["--network=testnet", "--bitcoind_rpc_port=\(fixture.hub.rpc.port)"])
        XCTAssertEqual(result.status, 1, "\(result.report)")
        XCTAssertEqual(status(result.checks["bitcoind"]), "fatal")
        XCTAssertTrue(detail(result.checks["bitcoind"]).contains("runs regtest"), detail(result.checks["bitcoind"]))
        XCTAssertEqual(status(result.checks["lnd"]), "fatal")
        XCTAssertTrue(detail(result.checks["lnd"]).contains("regtest"), detail(result.checks["lnd"]))
        await fixture.shutDown()
    }

    func testCoreWithoutTxIndexIsFatalAndRunRefusesIt() async throws {
        let fixture = try await DaemonFixture(txIndex: false)
        let (datadir, _) = try await fixture.dataDirectory("noindex")
        let result = try await doctor(datadir)
        XCTAssertEqual(result.status, 1, "\(result.report)")
        XCTAssertEqual(status(result.checks["txindex"]), "fatal")
        XCTAssertTrue(detail(result.checks["txindex"]).contains("without -txindex"), detail(result.checks["txindex"]))
        XCTAssertTrue((result.checks["txindex"]?["fix"] as? String)?.contains("txindex=1") == true)
        do {
            _ = try await fixture.start(datadir)
            XCTFail("started against a Core without -txindex")
        } catch let error as DaemonError {
            guard case .bitcoind(_, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("without -txindex") && reason.contains("txindex=1"), reason)
        }
        await fixture.shutDown()
    }

    /// An LND whose certificate is not the one in lnd_tls_cert: Python's ssl server (code no
    /// one here wrote) with one certificate, the config naming another.
    func testWrongCertificateIsFatalWithBothFingerprints() async throws {
        let fixture = try await DaemonFixture()
        let tools = try DoctorTLSServer()
        defer { tools.stop() }
        try tools.selfSigned("server")
        try tools.selfSigned("other")
        let port = try tools.start(certificate: "server")
        let (datadir, _) = try await fixture.dataDirectory("cert")
        let result = try await doctor(datadir, ["--lnd_rest_port=\(port)", "--lnd_rest_tls=1", "--lnd_tls_cert=\(tools.path("other.cert"))"])
        XCTAssertEqual(result.status, 1, "\(result.report)")
        XCTAssertEqual(status(result.checks["lnd"]), "fatal")
        let text = detail(result.checks["lnd"])
        XCTAssertTrue(text.contains(try tools.fingerprint("server")), text)
        XCTAssertTrue(text.contains(try tools.fingerprint("other")), text)
        await fixture.shutDown()
    }
}

private final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

/// Self-signed certificates from the openssl tool and a TLS server from Python's ssl module.
private final class DoctorTLSServer {
    let directory: String
    private var server: Process?

    init() throws {
        directory = try DaemonFixture.temporaryDirectory()
    }

    func path(_ name: String) -> String { directory + "/" + name }

    func stop() {
        if let server, server.isRunning { kill(server.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let outcome = try runProduct(URL(fileURLWithPath: "/usr/bin/env"), arguments)
        guard outcome.status == 0 else { throw NSError(domain: "doctor-tls", code: Int(outcome.status)) }
        return outcome.stdout
    }

    func selfSigned(_ name: String) throws {
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
        try run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                 "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(name)"])
        try run(["openssl", "x509", "-req", "-in", path("\(name).csr"), "-signkey", path("\(name).key"), "-days", "30",
                 "-extfile", path("\(name).ext"), "-out", path("\(name).cert")])
    }

    func fingerprint(_ name: String) throws -> String {
        let line = try run(["openssl", "x509", "-in", path("\(name).cert"), "-noout", "-fingerprint", "-sha256"])
        return String(line.split(separator: "=", maxSplits: 1)[1]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Serves TLS with `certificate` on a free loopback port (the handshake is all a
    /// refusal needs); returns the port.
    func start(certificate name: String) throws -> Int {
        let script = """
        import socket, ssl, sys
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        print(listener.getsockname()[1], flush=True)
        while True:
            raw, _ = listener.accept()
            try:
                context.wrap_socket(raw, server_side=True).close()
            except Exception:
                raw.close()
        """
        let python = try run(["python3", "-c", "import sys; print(sys.executable)"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, path("\(name).cert"), path("\(name).key")]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        server = process
        var line = Data()
        while !line.contains(0x0A) {
            let piece = output.fileHandleForReading.availableData
            guard !piece.isEmpty else { break }
            line += piece
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw NSError(domain: "doctor-tls", code: 1)
        }
        return port
    }
}
