import Bitcoin
import Lightning
import Regtest
import TestSupport
import Transport
import XCTest

/// Regression: long-lived streams (one invoice subscription or payment per live swap) must
/// not take the connections that short calls need. With one shared pool of 4 connections,
/// a provider with 4 swaps waiting could no longer look up, settle or create invoices.
final class LNDClientStreamPoolTests: XCTestCase {
    func testShortCallsStillAnswerWhileManyStreamsAreOpen() async throws {
        let hub = try await LNDTestHub.start([("alice", 0), ("bob", 0)])
        let bob = try await hub.client("bob")
        var hashes: [[UInt8]] = []
        var streams: [LNDIterator<InvoiceStatus>] = []
        for index in 0..<8 {
            let hash = SHA256.hash([UInt8](repeating: UInt8(index + 1), count: 32))
            _ = try await bob.addHoldInvoice(paymentHash: hash, amountMsat: 1_000_000, memo: "swap \(index)",
                                             expirySeconds: 600, cltvExpiry: 144)
            let updates = LNDIterator(bob.subscribeInvoice(paymentHash: hash))
            // The first update proves the stream holds its connection open.
            let first = try await lndNext(updates)
            XCTAssertEqual(first?.state, .open)
            hashes.append(hash)
            streams.append(updates)
        }
        // Eight streams are open; a lookup and a new invoice must still go through promptly
        // (the hub's client times out after 10 s; `within` fails after 5).
        let firstHash = hashes[0]
        let looked = try await within(seconds: 5) { try await bob.lookupInvoice(paymentHash: firstHash) }
        XCTAssertEqual(looked.state, .open)
        let another = SHA256.hash([UInt8](repeating: 0xee, count: 32))
        let request = try await within(seconds: 5) {
            try await bob.addHoldInvoice(paymentHash: another, amountMsat: 2_000_000, memo: "ninth",
                                         expirySeconds: 600, cltvExpiry: 144)
        }
        XCTAssertFalse(request.isEmpty)
        withExtendedLifetime(streams) {}
        await hub.shutDown(bob)
    }
}
