import Foundation
import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// How the daemon reaches the hub's LND REST: over TLS with the node's tls.cert (what every
/// other daemon test does), refused with another node's certificate or in plain HTTP on the
/// TLS port, and in plain HTTP on loopback (`lnd_rest_tls=0`), the one test of that path.
final class DaemonLNDTransportTests: XCTestCase {
    func testPlainHTTPOnLoopbackStillServes() async throws {
        let fixture = try await DaemonFixture(plainLightning: true)
        XCTAssertNil(fixture.lightning.tlsCertificatePath)
        XCTAssertTrue(fixture.hubConfig.contains("lnd_rest_tls=0"))
        let (datadir, _) = try await fixture.dataDirectory("plain")
        let node = try await fixture.start(datadir)
        // LND answered over plain HTTP: the node's Lightning balance is the hub's (less the
        // commitment fee and anchors of the channel it opened).
        let status = try await node.result("status")
        XCTAssertEqual(status["lightning"]?["balance_sat"], .integer(496_530))
        try await node.stop()
        await fixture.shutDown()
    }

    func testAnotherNodesCertificateOrPlainHTTPOnTheTLSPortIsRefusedAtStart() async throws {
        let fixture = try await DaemonFixture()
        let certificate = try XCTUnwrap(fixture.lightning.tlsCertificatePath)
        XCTAssertTrue(fixture.hubConfig.contains("lnd_tls_cert=\(certificate)"))
        let other = try await fixture.hub.lightning.addNode(name: "other", balanceSat: 0)
        let otherCertificate = try XCTUnwrap(other.tlsCertificatePath)

        let (datadir, _) = try await fixture.dataDirectory("wrongcert")
        do {
            _ = try await fixture.start(datadir, overrides: [ConfigEntry(key: "lnd_tls_cert", value: otherCertificate,
                                                                         origin: "command line")])
            XCTFail("started trusting another node's certificate")
        } catch let error as DaemonError {
            guard case .lnd(_, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("not the one in \(otherCertificate)"), reason)
            XCTAssertTrue(reason.contains(try XCTUnwrap(fixture.lightning.tlsFingerprint)), reason)
        }

        let plainLines = fixture.hubConfig.filter { !$0.hasPrefix("lnd_tls_cert=") } + ["lnd_rest_tls=0"]
        let (plain, _) = try await fixture.dataDirectory("plainontls", config: plainLines)
        do {
            _ = try await fixture.start(plain)
            XCTFail("started speaking plain HTTP to a TLS port")
        } catch let error as DaemonError {
            guard case .lnd(_, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("this port serves TLS"), reason)
        }
        await fixture.shutDown()
    }
}
