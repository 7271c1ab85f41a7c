import Foundation
import HTLC
import Transport
import XCTest
@testable import PeerNode

/// Shared helpers for the store tests: a scratch directory per test, sample swaps, and
/// real pubkys derived from fixed seeds.
enum StoreFixture {
    /// A fresh directory, removed when the test ends.
    static func directory(for test: XCTestCase) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("peernode-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    static func record(_ id: String, role: SwapRole = .client, index: UInt32, createdAt: Int64 = 1_700_000_000) -> SwapRecord {
        SwapRecord(id: id, role: role, swapIndex: index, keyScheme: .current, peer: pubky(1).z32, createdAt: createdAt,
                   contract: .object([
                       "amount_sat": .integer(50_000),
                       "invoice": .string("lnbcrt500u1example"),
                       "htlc": .object(["timeout_height": .integer(450), "claim_pubkey": .string("02ab")]),
                       "destinations": .array([.string("bcrt1qexample"), .null, .bool(true)]),
                   ]))
    }

    static func pubky(_ n: UInt8) -> Pubky {
        // A fixed seed per number: stable across runs, and a real ed25519 key.
        NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: n, count: NodeSeed.length))).pubky
    }

    static func fileMode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

/// XCTest's assertions take autoclosures that cannot `await`; this awaits first.
func XCTAssertThrowsStoreError<T>(_ expected: StoreError, _ body: () async throws(StoreError) -> T,
                                  file: StaticString = #filePath, line: UInt = #line) async {
    do {
        let value = try await body()
        XCTFail("expected \(expected), got \(value)", file: file, line: line)
    } catch {
        XCTAssertEqual(error, expected, file: file, line: line)
    }
}
