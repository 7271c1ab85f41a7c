import Bitcoin
import Foundation
import Offers
import Transport
import XCTest
@testable import PeerNode

/// `PEERNODE_TEST_CRASH_AFTER`: what it parses, that it arms only on regtest, and that the
/// store wrapper fires only on a swap of the point's role and direction. The kill itself is
/// exercised by the testnet runner's `crash-*` and `crash-sub-*` scenarios on the real binary.
final class CrashPointTests: XCTestCase {
    func testParsesEveryStateOfEachRoleInTheReverseDirection() {
        for phase in ClientSwapPhase.allCases {
            XCTAssertEqual(CrashPoint.parse("client:\(phase.rawValue)")?.description, "client:\(phase.rawValue)")
        }
        for kind in ProviderSwapState.Kind.allCases.map(\.rawValue) {
            let point = CrashPoint.parse("provider:\(kind)")
            XCTAssertEqual(point?.role, .provider)
            XCTAssertEqual(point?.direction, .lightningToOnchain)
            XCTAssertEqual(point?.kind, kind)
        }
        // Naming the reverse direction is allowed, and is the same point.
        XCTAssertEqual(CrashPoint.parse("client:ln_to_onchain:pay_started"), CrashPoint.parse("client:pay_started"))
    }

    func testParsesEveryStateOfEachSubmarineRoleWithItsDirection() {
        let kinds: [(SwapRole, [String])] = [(.client, SubmarineClientPhase.allCases.map(\.rawValue)),
                                             (.provider, SubmarineProviderState.Kind.allCases.map(\.rawValue))]
        for (role, roleKinds) in kinds {
            for kind in roleKinds {
                let text = "\(role.rawValue):onchain_to_ln:\(kind)"
                let point = CrashPoint.parse(text)
                XCTAssertEqual(point?.role, role, text)
                XCTAssertEqual(point?.direction, .onchainToLightning, text)
                XCTAssertEqual(point?.kind, kind, text)
                XCTAssertEqual(point?.description, text)
            }
        }
    }

    /// A kind of one direction named for the other could never fire: refused, not armed.
    func testRefusesAKindTheRoleDoesNotWriteInThatDirection() {
        for bad in ["client:lock_intent", "client:refund_broadcast", "provider:payment_intent", "provider:claimed",
                    "client:onchain_to_ln:pay_started", "client:onchain_to_ln:lock_verified",
                    "provider:onchain_to_ln:invoice_created", "provider:onchain_to_ln:settled"] {
            XCTAssertNil(CrashPoint.parse(bad), bad)
        }
    }

    func testRefusesMalformedValues() {
        for bad in ["", "client", "client:", ":quoted", "server:quoted", "client:settled", "provider:pay_started",
                    "client:quoted:extra", "Client:quoted", "client: quoted", "client::quoted", "client:onchain_to_ln:",
                    "client:sideways:quoted", "client:onchain_to_ln:quoted:extra", "onchain_to_ln:client:quoted"] {
            XCTAssertNil(CrashPoint.parse(bad), bad)
        }
    }

    func testArmsOnlyOnRegtest() {
        XCTAssertEqual(CrashPoint.arming("client:pay_started", network: .regtest),
                       .armed(CrashPoint.parse("client:pay_started")!))
        for network in Network.allCases where network != .regtest {
            guard case .refused(let reason) = CrashPoint.arming("client:pay_started", network: network) else {
                return XCTFail("armed on \(network)")
            }
            XCTAssertTrue(reason.contains(network.rawValue), reason)
        }
    }

    func testUnsetOrEmptyIsOffAndTyposAreRefused() {
        XCTAssertEqual(CrashPoint.arming(nil, network: .regtest), .off)
        XCTAssertEqual(CrashPoint.arming("", network: .regtest), .off)
        guard case .refused(let reason) = CrashPoint.arming("client:payed", network: .regtest) else {
            return XCTFail("a typo must be refused, not ignored")
        }
        XCTAssertTrue(reason.contains("PEERNODE_TEST_CRASH_AFTER"), reason)
        XCTAssertTrue(reason.contains("onchain_to_ln"), "the refusal names the submarine form: \(reason)")
    }

    /// One store serves both directions' engines and both roles: `client:onchain_to_ln:accepted`
    /// fires on the submarine client's `accepted`, never on a reverse client's `accepted` nor
    /// on a submarine provider's, and the reverse point never on the submarine client's.
    func testFiresOnlyOnASwapOfItsRoleAndDirection() async throws {
        let submarine = CrashPoint.parse("client:onchain_to_ln:accepted")!
        let reverse = CrashPoint.parse("client:accepted")!
        let fired = FiredPoints()
        let base = try SQLiteSwapStore.openInMemory()
        let stores = [submarine, reverse].map { point in
            CrashingSwapStore(base: base, point: point) { fired.add(point.description) }
        }
        let marked: JSONValue = .object(["direction": .string(SwapDirection.onchainToLightning.rawValue)])
        let swaps: [(String, SwapRole, JSONValue)] = [("reverse-client", .client, .object([:])),
                                                     ("sub-client", .client, marked), ("sub-provider", .provider, marked)]
        for (index, (id, role, contract)) in swaps.enumerated() {
            let record = SwapRecord(id: id, role: role, swapIndex: UInt32(index), keyScheme: .current, peer: "peer",
                                    createdAt: 1, contract: contract)
            _ = try await base.create(record, firstEvent: "quoted", data: .object([:]), at: 1)
        }
        for store in stores {
            for (id, _, _) in swaps {
                _ = try await store.append("accepted", data: .object(["by": .string(store.point.description), "id": .string(id)]),
                                           isFinal: false, to: id, at: 2)
            }
        }
        XCTAssertEqual(fired.all, ["client:onchain_to_ln:accepted", "client:accepted"])

        // The first event too: a submarine provider's `accepted` is written by `create`.
        let provider = CrashingSwapStore(base: base, point: CrashPoint.parse("provider:onchain_to_ln:accepted")!) {
            fired.add("provider:onchain_to_ln:accepted")
        }
        let reverseProvider = SwapRecord(id: "reverse-provider", role: .provider, swapIndex: 9, keyScheme: .current, peer: "peer",
                                         createdAt: 1, contract: .object([:]))
        _ = try await provider.create(reverseProvider, firstEvent: "accepted", data: .object([:]), at: 1)
        let submarineProvider = SwapRecord(id: "sub-provider-2", role: .provider, swapIndex: 10, keyScheme: .current, peer: "peer",
                                           createdAt: 1, contract: marked)
        _ = try await provider.create(submarineProvider, firstEvent: "accepted", data: .object([:]), at: 1)
        XCTAssertEqual(fired.all, ["client:onchain_to_ln:accepted", "client:accepted", "provider:onchain_to_ln:accepted"])
    }
}

/// The crash callbacks that ran, in order (they run on the store's callers' threads).
private final class FiredPoints: @unchecked Sendable {
    private let lock = NSLock()
    private var points: [String] = []

    func add(_ point: String) { lock.withLock { points.append(point) } }
    var all: [String] { lock.withLock { points } }
}
