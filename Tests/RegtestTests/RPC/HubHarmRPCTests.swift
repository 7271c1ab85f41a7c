import Bitcoin
import Regtest
import TestSupport
import XCTest

/// The controls that can hurt, over JSON-RPC (in-process, Core v31's relay policy): their
/// parameters, answers and errors as a test harness sees them.
final class HubHarmRPCTests: XCTestCase {
    private var hub: HubScenario!
    private var chain: RegtestChain { hub.chain }
    private var wallet: TestWallet { hub.wallet }
    private let branchScript = Script([.if, .number(1), .else, .zero, .endIf])

    override func setUpWithError() throws {
        hub = try HubScenario()
        try chain.mine(110, to: wallet.script)
    }

    override func tearDown() {
        hub?.close()
    }

    /// The `error` object of a call that must fail.
    private func error(_ method: String, _ params: String) async throws -> OrderedJSON {
        let response = await hub.server.respond(
            to: hub.request(body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\(method)\",\"params\":\(params)}"))
        let reply = try OrderedJSONParser.parse(String(decoding: response.body, as: UTF8.self))
        return try XCTUnwrap(reply["error"], "\(method) succeeded: \(reply.compact)")
    }

    private func spend(_ outpoint: OutPoint, selector: [UInt8], value: Int64, fee: Int64) -> Transaction {
        Transaction(version: 2,
                    inputs: [TransactionInput(previousOutput: outpoint, sequence: TransactionInput.replaceableSequence,
                                              witness: Witness([selector, branchScript.bytes]))],
                    outputs: [TransactionOutput(value: value - fee, scriptPubKey: wallet.script)])
    }

    func testMineTransactionMinesWhatSendRawTransactionRefuses() async throws {
        let coin = try hub.coin(atHeight: 1)
        let p2wsh = Address.p2wsh(scriptHash: SHA256.hash(branchScript.bytes)).script
        let funding = try wallet.spend([coin], to: [TransactionOutput(value: coin.value - 10_000, scriptPubKey: p2wsh)])
        try chain.submit(funding)
        try chain.mine(1, to: wallet.script)
        let outpoint = OutPoint(txid: funding.txid, index: 0)
        let nonMinimal = spend(outpoint, selector: [0x02], value: coin.value - 10_000, fee: 1_000)

        let refused = try await error("sendrawtransaction", "[\"\(nonMinimal.serialized.hex)\"]")
        XCTAssertEqual(refused["code"]?.intValue, -26)
        XCTAssertEqual(refused["message"]?.stringValue, "mempool-script-verify-flag-failed (OP_IF/NOTIF argument must be minimal), "
            + "input 0 of \(nonMinimal.txid) (wtxid \(nonMinimal.wtxid)), spending \(outpoint)")

        let invalid = spend(outpoint, selector: [], value: coin.value - 10_000, fee: 1_000)
        let refusedByForce = try await error("hub_mine_transaction", "[\"\(invalid.serialized.hex)\"]")
        XCTAssertEqual(refusedByForce["code"]?.intValue, -26)
        XCTAssertEqual(refusedByForce["message"]?.stringValue?.hasPrefix("block-script-verify-flag-failed ("), true)
        let garbage = try await error("hub_mine_transaction", "[\"00\"]")
        XCTAssertEqual(garbage["code"]?.intValue, -22)

        let mined = try await hub.call("hub_mine_transaction", "[\"\(nonMinimal.serialized.hex)\"]")
        XCTAssertEqual(mined["txid"]?.stringValue, nonMinimal.txid.hex)
        XCTAssertEqual(mined["blockhash"]?.stringValue, chain.tipHash.hex)
        XCTAssertEqual(mined["height"]?.intValue, chain.height)
        let verbose = try await hub.call("getrawtransaction", "[\"\(nonMinimal.txid.hex)\", true]")
        XCTAssertEqual(verbose["confirmations"]?.intValue, 1)
    }

    func testHoldReleaseBlockWeightAndMempoolMinimum() async throws {
        let coin = try hub.coin(atHeight: 1)
        let held = try wallet.spend(coin.outpoint, value: coin.value, fee: 200)
        try chain.submit(held)
        let holding = try await hub.call("hub_hold_transaction", "[\"\(held.txid.hex)\"]")
        XCTAssertEqual(holding["held"], .array([.string(held.txid.hex)]))
        try await hub.call("generatetoaddress", "[1, \"\(Address.p2wpkh(pubkeyHash: wallet.pubkeyHash).encoded(for: .regtest))\"]")
        XCTAssertNotNil(chain.mempoolEntry(held.txid))
        let unknown = try await error("hub_hold_transaction", "[\"\(String(repeating: "ab", count: 32))\"]")
        XCTAssertEqual(unknown["code"]?.intValue, -5)
        let released = try await hub.call("hub_release_transaction", "[\"\(held.txid.hex)\"]")
        XCTAssertEqual(released["held"], .array([]))
        let notHeld = try await error("hub_release_transaction", "[\"\(held.txid.hex)\"]")
        XCTAssertEqual(notHeld["code"]?.intValue, -5)

        let weight = try await hub.call("hub_setblockmaxweight", "[20000]")
        XCTAssertEqual(weight["blockmaxweight"]?.intValue, 20_000)
        let tooLarge = try await error("hub_setblockmaxweight", "[4000001]")
        XCTAssertEqual(tooLarge["code"]?.intValue, -8)

        // 200 sat for about 110 vB: under 2 sat/vB, so a 2 sat/vB minimum evicts it.
        let raised = try await hub.call("hub_setmempoolminfee", "[2000]")
        XCTAssertEqual(raised["mempoolminfee"], .number("0.00002000"))
        XCTAssertEqual(raised["evicted"], .array([.string(held.txid.hex)]))
        let info = try await hub.call("getmempoolinfo")
        XCTAssertEqual(info["mempoolminfee"], .number("0.00002000"))
        XCTAssertEqual(info["minrelaytxfee"], .number("0.00000100"))
        let refused = try await error("sendrawtransaction", "[\"\(held.serialized.hex)\"]")
        XCTAssertEqual(refused["code"]?.intValue, -26)
        XCTAssertEqual(refused["message"]?.stringValue,
                       "mempool min fee not met, 200 < \(Money.fee(ratePerKvB: 2_000, vsize: held.virtualSize))")
        try await hub.call("hub_setfeeestimate", "[1000]")
        let estimate = try await hub.call("estimatesmartfee", "[6]")
        XCTAssertEqual(estimate["feerate"], .number("0.00002000"), "never below the mempool's minimum")
    }

    func testSubmitPackageAnswersInCoresShape() async throws {
        let coin = try hub.coin(atHeight: 1)
        let parent = try wallet.spend(coin.outpoint, value: coin.value, fee: 0)
        let child = try wallet.spend(OutPoint(txid: parent.txid, index: 0), value: coin.value, fee: 100_000)
        let wrongOrder = try await error("submitpackage", "[[\"\(child.serialized.hex)\", \"\(parent.serialized.hex)\"]]")
        XCTAssertEqual(wrongOrder["code"]?.intValue, -8)

        let result = try await hub.call("submitpackage", "[[\"\(parent.serialized.hex)\", \"\(child.serialized.hex)\"]]")
        XCTAssertEqual(result["package_msg"]?.stringValue, "success")
        let parentResult = try XCTUnwrap(result["tx-results"]?[parent.wtxid.hex])
        XCTAssertEqual(parentResult["txid"]?.stringValue, parent.txid.hex)
        XCTAssertEqual(parentResult["fees"]?["base"], .number("0.00000000"))
        XCTAssertEqual(parentResult["fees"]?["effective-includes"],
                       .array([.string(parent.wtxid.hex), .string(child.wtxid.hex)]))
        XCTAssertEqual(result["replaced-transactions"], .array([]))
        XCTAssertNotNil(chain.mempoolEntry(parent.txid))
    }
}
