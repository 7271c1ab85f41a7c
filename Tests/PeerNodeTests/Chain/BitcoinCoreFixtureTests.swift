import Bitcoin
import Foundation
import PeerNode
import Transport
import XCTest

/// The client against Bitcoin Core v31.0's real answers: each fixture's HTTP status and
/// exact body, served over loopback TCP, must decode to the typed result or typed error
/// the fixture implies.
final class BitcoinCoreFixtureTests: XCTestCase {
    /// Fixtures that answer calls the client never makes (wallet, mining, mempool entries,
    /// packages); they are for the hub's server.
    private static let notClientCalls: Set<String> = [
        "generatetoaddress", "invalidateblock", "reconsiderblock", "getmempoolentry",
        "getmempoolinfo", "getnetworkinfo", "submitpackage", "gettxspendingprevout", "getindexinfo",
    ]

    func testEveryFixtureOfTheClientsCallsDecodesAsCoreMeantIt() async throws {
        let names = try CoreFixture.allNames()
        XCTAssertEqual(names.count, 183, "the fixture set is complete (README: 175 files, and 8 of the index and spender fixtures)")
        let fallback = try XCTUnwrap(CoreFixture.load("sendrawtransaction_success").requestTransaction())
        var tested: [String: Int] = [:]
        var skipped: [String] = []
        var kinds: [String: Int] = [:]
        try await withFixtureBackend { backend, server in
            for name in names {
                let fixture = try CoreFixture.load(name)
                let succeeded = fixture.httpStatus == 200 && fixture.rpcError == nil
                if let method = fixture.method, Self.notClientCalls.contains(method), succeeded {
                    skipped.append(name)
                    continue
                }
                server.serve(fixture)
                let before = server.requests.count
                let outcome = await performCall(fixture, on: backend, fallback: fallback)
                let expected = CoreFixtureOracle.expectation(for: fixture, url: backend.rpc.endpoint.url, fallback: fallback)
                switch expected {
                case .value: kinds["typed results", default: 0] += 1
                case .error: kinds["typed errors", default: 0] += 1
                case .malformed: kinds["malformed", default: 0] += 1
                }
                switch (expected, outcome) {
                case (.value(let value), .success(let got)):
                    XCTAssertEqual(got, value, name)
                case (.error(let error), .failure(let got)):
                    XCTAssertEqual(got, error, name)
                case (.malformed, .failure(.malformedResponse)):
                    break
                default:
                    XCTFail("\(name): expected \(expected), got \(outcome)")
                }
                let sent = server.requests.dropFirst(before)
                XCTAssertEqual(sent.first?.method, fixture.clientMethod, "\(name): the method called")
                XCTAssertEqual(sent.first?.jsonrpc, "1.0", name)
                tested[fixture.clientMethod, default: 0] += 1
            }
        }
        XCTAssertEqual(tested.values.reduce(0, +) + skipped.count, names.count)
        XCTAssertEqual(Set(tested.keys), clientMethods, "every client call met at least one fixture")
        print("fixtures served: \(tested.values.reduce(0, +)) of \(names.count) (by call: \(tested.sorted { $0.key < $1.key })); "
            + "not client calls: \(skipped.count); outcomes: \(kinds.sorted { $0.key < $1.key })")
    }

    func testTheRequestIsJSONRPC10WithBasicAuthOnThePath() async throws {
        try await withFixtureBackend { backend, server in
            server.serve(try CoreFixture.load("getblockhash"))
            _ = try await backend.blockHash(atHeight: 201)
            let request = try XCTUnwrap(server.requests.last)
            XCTAssertEqual(request.method, "getblockhash")
            XCTAssertEqual(request.params, [.integer(201)])
            XCTAssertEqual(request.jsonrpc, "1.0")
            XCTAssertEqual(request.target, "/")
            XCTAssertEqual(request.authorization, "Basic " + Data("u:p".utf8).base64EncodedString())
        }
    }

    func testMissingInputsAndAMempoolConflictAreRejectedWithCoresReason() async throws {
        try await withFixtureBackend { backend, server in
            for (name, code, reason) in [
                ("sendrawtransaction_missing_inputs", -25, "bad-txns-inputs-missingorspent"),
                ("sendrawtransaction_mempool_conflict_lower_fee", -26,
                 "insufficient fee, rejecting replacement 2379391efce545663cd9b95c00b842ba67051d33ef67a3de2bdae7473a6af07a, less fees than conflicting txs; 0.00005 < 0.0001"),
                ("sendrawtransaction_already_in_chain", -27, "Transaction outputs already in utxo set"),
            ] {
                let fixture = try CoreFixture.load(name)
                server.serve(fixture)
                let transaction = try XCTUnwrap(fixture.requestTransaction())
                do throws(ChainBackendError) {
                    _ = try await backend.broadcast(transaction)
                    XCTFail("\(name) was accepted")
                } catch {
                    XCTAssertEqual(error, .rejected(code: code, reason: reason), name)
                }
            }
        }
    }

    func testABackendOnAnotherNetworkIsRefused() async throws {
        try await withFixtureBackend(network: .mainnet) { backend, server in
            server.serve(try CoreFixture.load("getblockchaininfo"))
            do throws(ChainBackendError) {
                try await backend.checkNetwork()
                XCTFail("a regtest backend was accepted for mainnet")
            } catch {
                XCTAssertEqual(error, .wrongNetwork(expected: "main", actual: "regtest"))
            }
        }
        try await withFixtureBackend(network: .regtest) { backend, server in
            server.serve(try CoreFixture.load("getblockchaininfo"))
            let info = try await backend.checkNetwork()
            XCTAssertEqual(info.chain, "regtest")
            XCTAssertEqual(info.blocks, 201)
        }
    }

    /// The follower asks for the tip every poll: `getbestblockhash`, and the height from
    /// `getblockheader` only for a hash it has not read before.
    func testTheTipIsTheBestHashWithItsHeaderHeightAskedOncePerHash() async throws {
        try await withFixtureBackend { backend, server in
            server.serve(byMethod: [try CoreFixture.load("getbestblockhash"), try CoreFixture.load("getblockheader_verbose")])
            let hash = try BlockHash(hex: "42ced1324fb3f685a0ba1136c16cf48b9ec1163e6860f3e1e903d0d270879f56")
            let first = try await backend.tip()
            XCTAssertEqual(first, ChainTip(height: 201, hash: hash))
            XCTAssertEqual(server.requests.map(\.method), ["getbestblockhash", "getblockheader"])
            XCTAssertEqual(server.requests.last?.params, [.string(hash.hex), .bool(true)])
            let again = try await backend.tip()
            XCTAssertEqual(again, first)
            XCTAssertEqual(server.requests.map(\.method), ["getbestblockhash", "getblockheader", "getbestblockhash"],
                           "the same best hash: its height is known")
            // A header for another block than the best hash names is refused, not used.
            server.serve(byMethod: [try CoreFixture.load("getbestblockhash_after_invalidate")])
            do throws(ChainBackendError) {
                _ = try await backend.tip()
                XCTFail("a header for another block was taken as the tip")
            } catch {
                guard case .malformedResponse = error else { return XCTFail("\(error)") }
            }
        }
    }

    /// The wallet and the follower each fetch every new mempool transaction: the second
    /// fetch of a txid is answered from the bytes the first read, and an unknown txid is
    /// asked every time (nothing is kept for it).
    func testAMempoolTransactionIsFetchedOnceForTheWalletAndTheFollower() async throws {
        try await withFixtureBackend { backend, server in
            let fixture = try CoreFixture.load("getrawtransaction_mempool_hex")
            server.serve(fixture)
            let txid = try TransactionID(hex: "d8509fa7fcd704bf53f23f6d6d7388967c13f1b8a70da69996050b1aa2622e20")
            let first = try await backend.mempoolTransaction(txid)
            XCTAssertEqual(first?.txid, txid)
            let again = try await backend.mempoolTransaction(txid)
            XCTAssertEqual(again, first)
            XCTAssertEqual(server.requests.map(\.method), ["getrawtransaction"], "the second fetch asks nothing")

            server.serve(try CoreFixture.load("getrawtransaction_unknown_hex"))
            let unknown = try TransactionID(hex: String(repeating: "ef", count: 32))
            for _ in 0..<2 {
                let none = try await backend.mempoolTransaction(unknown)
                XCTAssertNil(none)
            }
            XCTAssertEqual(server.requests.count, 3, "an unknown txid is asked each time")
        }
    }

    func testBadCredentialsAreUnauthorizedNamingTheURL() async throws {
        try await withFixtureBackend(credentials: .user("u", password: "wrong")) { backend, server in
            for name in ["error_bad_auth_wrong_password", "error_bad_auth_no_credentials"] {
                server.serve(try CoreFixture.load(name))
                do throws(ChainBackendError) {
                    _ = try await backend.tip()
                    XCTFail("\(name) succeeded")
                } catch {
                    XCTAssertEqual(error, .unauthorized(url: "http://127.0.0.1:\(server.port)/"), name)
                    XCTAssertTrue(error.description.contains("http://127.0.0.1:\(server.port)/"))
                }
            }
        }
    }

    func testNoFeeDataIsNilAndAFeeRateIsExactSatPerKvB() async throws {
        try await withFixtureBackend { backend, server in
            server.serve(try CoreFixture.load("estimatesmartfee_no_data"))
            let none = try await backend.estimateFee(targetBlocks: 2)
            XCTAssertNil(none)
            server.serve(try CoreFixture.load("estimatesmartfee_2_conservative"))
            let rate = try await backend.estimateFee(targetBlocks: 2)
            XCTAssertEqual(rate?.satPerKvB, 3_003, "0.00003003 BTC/kvB")
        }
    }
}
