import Foundation
import Lightning
import PeerNode
import Regtest
import XCTest

/// The daemon reads its macaroon's permissions offline at start and refuses to start
/// without one its role uses, naming each missing permission and the calls behind it.
final class DaemonMacaroonTests: XCTestCase {
    private func start(_ fixture: DaemonFixture, _ name: String, macaroon: [UInt8], provider: Bool,
                       extra: [String] = []) async throws -> RunningDaemon {
        let lines = fixture.hubConfig + (provider ? ["provider=1"] : []) + extra
        let (datadir, _) = try await fixture.dataDirectory(name, config: lines)
        try Data(macaroon).write(to: URL(fileURLWithPath: datadir + "/alice.macaroon"))
        return try await fixture.start(datadir)
    }

    func testInvoiceMacaroonIsRefusedNamingWhatItLacks() async throws {
        let fixture = try await DaemonFixture()
        // The hub's invoice.macaroon file, as LND writes it.
        let path = try XCTUnwrap(fixture.lightning.macaroonPaths["invoice"])
        let invoice = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        do {
            _ = try await start(fixture, "invoice", macaroon: invoice, provider: false)
            XCTFail("started with an invoice-only macaroon")
        } catch let error as DaemonError {
            guard case .misconfigured(let key, let reason, let fix) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key, "lnd_macaroon")
            XCTAssertEqual(error.exitCode, 4)
            XCTAssertTrue(reason.contains("info:read (GetInfo)"), reason)
            XCTAssertTrue(reason.contains("offchain:read (ChannelBalance, ListChannels, TrackPaymentV2)"), reason)
            XCTAssertTrue(reason.contains("offchain:write (SendPaymentV2)"), reason)
            XCTAssertTrue(fix.contains("lncli bakemacaroon"), fix)
        }
        await fixture.shutDown()
    }

    /// invoices:write matters to a provider (hold invoices, LookupInvoiceV2) and to a node
    /// that takes Lightning from its contacts (AddInvoice, on by default), not to a client
    /// that takes none (`accept_lightning=0`).
    func testPermissionsFollowTheRole() async throws {
        let fixture = try await DaemonFixture()
        let macaroons = try fixture.hub.lightning.macaroons(node: "alice")
        let noInvoiceWrite = macaroons.bake(LNDPermission.admin.subtracting([LNDPermission("invoices", "write")])).encoded
        do {
            _ = try await start(fixture, "prov", macaroon: noInvoiceWrite, provider: true)
            XCTFail("a provider started without invoices:write")
        } catch let error as DaemonError {
            XCTAssertTrue(error.description.contains(
                "invoices:write (AddInvoice, AddHoldInvoice, LookupInvoiceV2, SettleInvoice, CancelInvoice)"), error.description)
        }
        do {
            _ = try await start(fixture, "payee", macaroon: noInvoiceWrite, provider: false)
            XCTFail("a node taking Lightning payments started without invoices:write")
        } catch let error as DaemonError {
            guard case .misconfigured(_, let reason, let fix) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("invoices:write (AddInvoice)"), reason)
            XCTAssertTrue(fix.contains("accept_lightning=0"), fix)
        }
        let client = try await start(fixture, "client", macaroon: noInvoiceWrite, provider: false, extra: ["accept_lightning=0"])
        try await client.stop()
        // Not a macaroon at all: its hex text.
        do {
            _ = try await start(fixture, "hex", macaroon: Array(macaroons.admin.encoded.hex.utf8), provider: false)
            XCTFail("started with the macaroon's hex")
        } catch let error as DaemonError {
            XCTAssertTrue(error.description.contains("not a binary V2 macaroon"), error.description)
        }
        await fixture.shutDown()
    }
}
