import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// An unspent submarine lock is invisible to the scan; with the swap's parameters in the
/// engines' own stored shapes (`SubmarineRecoveryContract`), the record is re-created on an
/// empty store and the submarine engine finishes it: the client refunds after the timeout,
/// the provider claims what it paid for (the preimage from its own Lightning node) and
/// never pays again.
final class RecoverySubmarineRecreateTests: XCTestCase {
    private let amount: Int64 = 20_000

    /// The client's parameters: its record's terms and the provider's accept it kept.
    static func clientParameters(_ store: any SwapStore, swapID: String) async throws -> JSONValue {
        let record = try await XCTUnwrapAsync(try await store.swap(swapID))
        let accepted = try await store.events(of: swapID).first { $0.kind == SubmarineClientPhase.accepted.rawValue }
        return .object(["role": .string("client"), "swap_index": .integer(record.swapIndex), "terms": record.contract,
                        "accept": try XCTUnwrap(accepted?.data["accept"])])
    }

    /// The client locked, the provider never paid, and the client's database is lost:
    /// re-created at `lock_confirmed`, the engine refunds from the timeout to its wallet.
    func testAClientThatLostItsDatabaseRefundsItsLockAfterTheTimeout() async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let engine = try fixture.engine()
        let fresh = ClientMemorySwapStore()
        var recovered: SubmarineClientEngine?
        do {
            let before = try await fixture.savings()
            let locked = try await fixture.confirmedLock(engine, amount: amount)
            let (id, swap, lock) = (locked.id, locked.swap, locked.lock)
            let parameters = try await Self.clientParameters(fixture.store, swapID: id)
            // The node dies; its database is gone.
            locked.paying.cancel()
            await engine.shutDown()

            let recreator = try SwapRecreator(seed: SubmarineEngineHubFixture.clientSeed, network: .regtest,
                                              chain: fixture.hub.backend, store: fresh)
            let contract = try SubmarineRecoveryContract(json: parameters, network: .regtest,
                                                         ownPubky: fixture.clientIdentity.pubky)
            XCTAssertEqual(contract.contract.scriptPubKey, swap.contract.scriptPubKey, "the contract rebuilt from the accept")
            let outcome = try await recreator.recreate(contract, fromHeight: 0, nowUnix: UInt64(time(nil)))
            XCTAssertEqual(outcome.swapID, id)
            XCTAssertEqual(outcome.roles, .submarine)
            XCTAssertEqual(outcome.lock, lock.outPoint)
            XCTAssertEqual(outcome.resumesAt, SubmarineClientPhase.lockConfirmed.rawValue)
            let kinds = try await fresh.events(of: id).map(\.kind)
            XCTAssertEqual(kinds, ["recovered", "accepted", "lock_intent", "lock_confirmed"])
            let next = try await fresh.reserveSwapIndex()
            XCTAssertGreaterThan(next, outcome.index, "the index counter moved past the recovered swap")

            let resumed = try fixture.engine(store: fresh)
            recovered = resumed
            let ids = try await resumed.recover()
            XCTAssertEqual(ids, [id])
            let timeout = Int(swap.contract.terms.timeoutHeight)
            try fixture.hub.mine(max(0, timeout - 1 - fixture.hub.height))
            try await Task.sleep(nanoseconds: 300_000_000)
            let early = try await fixture.lastKind(of: id, in: fresh)
            XCTAssertNotEqual(early, "refund_broadcast", "no refund before the timeout")
            try await fixture.mineUntil(id, is: "refunded", atMost: 4, store: fresh)
            let state = try await XCTUnwrapAsync(try await fresh.lastEvent(of: id))
            let refund = try XCTUnwrap(try SubmarineClientState(kind: state.kind, data: state.data).refund)
            XCTAssertTrue(fixture.hub.backend.verifiedTransactions.contains(refund.txid), "the kernel verified the refund")
            XCTAssertEqual(refund.inputs.map(\.previousOutput), [lock.outPoint])
            let ours = await fixture.wallet.owns(try XCTUnwrap(refund.outputs.first).scriptPubKey)
            XCTAssertTrue(ours, "the refund pays the client's wallet")
            let spent = try await before - fixture.savings()
            XCTAssertGreaterThan(spent, 0)
            XCTAssertLessThan(spent, 2_000, "only the lock's and the refund's fees are gone (\(spent) sat)")
        } catch {
            await fixture.shutDown(engine)
            throw error
        }
        if let recovered { await recovered.shutDown() }
        await fixture.shutDown(engine)
    }

    /// The provider paid and claimed while the client's database was gone: re-created at
    /// `paid`, with the preimage read from the claim's witness (the proof of payment).
    func testAClientRecoveredAfterTheProvidersClaimHasItsProofOfPayment() async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let engine = try fixture.engine()
        let fresh = ClientMemorySwapStore()
        var recovered: SubmarineClientEngine?
        do {
            let locked = try await fixture.confirmedLock(engine, amount: amount, type: .p2wsh)
            let (id, swap, lock) = (locked.id, locked.swap, locked.lock)
            let parameters = try await Self.clientParameters(fixture.store, swapID: id)
            locked.paying.cancel()
            await engine.shutDown()
            let preimage = try await fixture.provider.payInvoice(of: swap)
            let claim = try await fixture.provider.claim(swap, lock: lock, preimage: preimage)

            let recreator = try SwapRecreator(seed: SubmarineEngineHubFixture.clientSeed, network: .regtest,
                                              chain: fixture.hub.backend, store: fresh)
            let outcome = try await recreator.recreate(
                try SubmarineRecoveryContract(json: parameters, network: .regtest, ownPubky: fixture.clientIdentity.pubky),
                fromHeight: 0, nowUnix: UInt64(time(nil)))
            XCTAssertEqual(outcome.resumesAt, SubmarineClientPhase.paid.rawValue)
            let last = try await XCTUnwrapAsync(try await fresh.lastEvent(of: id))
            let state = try SubmarineClientState(kind: last.kind, data: last.data)
            XCTAssertEqual(state.preimage, preimage)
            XCTAssertEqual(state.preimageSource, .claim)
            XCTAssertEqual(state.claimTxid, claim.txid)

            let resumed = try fixture.engine(store: fresh)
            recovered = resumed
            _ = try await resumed.recover()
            try await fixture.mineUntil(id, is: "completed", atMost: 2, store: fresh)
        } catch {
            await fixture.shutDown(engine)
            throw error
        }
        if let recovered { await recovered.shutDown() }
        await fixture.shutDown(engine)
    }

    /// Parameters that are not this seed's swap, or not what the provider signed, are
    /// refused with a reason and write nothing.
    func testParametersThatAreNotOursOrNotAsSignedAreRefused() async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let engine = try fixture.engine()
        let fresh = ClientMemorySwapStore()
        do {
            let locked = try await fixture.confirmedLock(engine, amount: amount)
            let id = locked.id
            let parameters = try await Self.clientParameters(fixture.store, swapID: id)
            locked.paying.cancel()
            let recreator = try SwapRecreator(seed: SubmarineEngineHubFixture.clientSeed, network: .regtest,
                                              chain: fixture.hub.backend, store: fresh)
            let own = fixture.clientIdentity.pubky

            func refusal(_ json: JSONValue, seed: [UInt8] = SubmarineEngineHubFixture.clientSeed) async -> String {
                do {
                    let chosen = try SwapRecreator(seed: seed, network: .regtest, chain: fixture.hub.backend, store: fresh)
                    _ = try await chosen.recreate(try SubmarineRecoveryContract(json: json, network: .regtest, ownPubky: own),
                                                  fromHeight: 0, nowUnix: 1)
                    return "accepted"
                } catch {
                    return error.description
                }
            }
            func changed(_ edit: (inout [String: JSONValue]) -> Void) -> JSONValue {
                guard case .object(var members) = parameters else { return parameters }
                edit(&members)
                return .object(members)
            }
            let index = try XCTUnwrap(parameters["swap_index"]?.int64Value)
            let wrongIndex = await refusal(changed { $0["swap_index"] = .integer(index + 1) })
            XCTAssertTrue(wrongIndex.contains("refund key is not ours"), wrongIndex)
            let stranger = await refusal(parameters, seed: [UInt8](repeating: 0x09, count: 32))
            XCTAssertTrue(stranger.contains("not ours"), stranger)
            let moved = await refusal(changed {
                guard case .object(var accept)? = $0["accept"] else { return }
                accept["timeout_height"] = .integer((accept["timeout_height"]?.int64Value ?? 0) + 10)
                $0["accept"] = .object(accept)
            })
            XCTAssertTrue(moved.contains("signature"), moved)
            let otherProvider = await refusal(changed {
                guard case .object(var terms)? = $0["terms"], case .object(var provider)? = terms["provider"] else { return }
                provider["pubky"] = .string(own.z32)
                terms["provider"] = .object(provider)
                $0["terms"] = .object(terms)
            })
            XCTAssertTrue(otherProvider.contains("not signed by the provider"), otherProvider)
            let swaps = try await fresh.allSwaps(limit: 10)
            XCTAssertEqual(swaps.count, 0, "nothing was written")
            // The parameters as they are still go through.
            _ = try await recreator.recreate(try SubmarineRecoveryContract(json: parameters, network: .regtest, ownPubky: own),
                                             fromHeight: 0, nowUnix: 1)
            let written = try await fresh.allSwaps(limit: 10)
            XCTAssertEqual(written.map(\.id), [id])
            let twice = await refusal(parameters)
            XCTAssertTrue(twice.contains("already in the database"), twice)
        } catch {
            await fixture.shutDown(engine)
            throw error
        }
        await fixture.shutDown(engine)
    }
}
