import Bitcoin
import Regtest
import TestSupport
import Transport
import XCTest

/// Replays every Bitcoin Core v31 fixture against a hub chain brought to the same shape
/// (same heights, the same kinds of transactions at the same places, Core's relay policy)
/// and compares the replies:
/// - exact: HTTP status and the whole body, byte for byte, after the fixture's txids,
///   wtxids, block hashes and raw transactions are replaced by the hub's equivalents;
/// - shape: HTTP status, and the body's member names, order and JSON types (values such
///   as times, sizes and hashes differ between any two chains);
/// - not applicable: cases the hub cannot reproduce (CPFP packages), with the reason.
final class CoreFixtureReplayTests: XCTestCase {
    enum Check: Equatable {
        case exact, shape
        case notApplicable(String)
    }

    private var scenario: HubScenario!
    private var fixtures: [String: CoreFixture] = [:]
    private var counts = (exact: 0, shape: 0, notApplicable: 0)
    private var replayed: [String] = []

    override func setUpWithError() throws {
        scenario = try HubScenario()
        fixtures = try CoreFixture.all()
    }

    override func tearDown() {
        scenario?.close()
    }

    private static let dependentPackage = "the hub judges packages of unrelated transactions only (no package evaluation)"
    private static let cpfp = "the hub has no submitpackage, so no zero-fee parent with a CPFP child"

    func testEveryFixtureIsReplayedWithCoreShapes() async throws {
        // 1. Fresh chain.
        try await replay([("estimatesmartfee_no_data", .exact), ("estimatesmartfee_no_data_economical", .exact),
                          ("getblockchaininfo_genesis", .shape), ("getblockcount_genesis", .exact)])

        // 2. Height 201: one segwit spend confirmed.
        try scenario.buildHeight201()
        try mapBlocksAtHeight201()
        try await replay([
            ("getbestblockhash", .shape), ("getblock_default_verbosity", .shape), ("getblock_genesis_verbosity2", .shape),
            ("getblock_verbosity0", .shape), ("getblock_verbosity1", .shape), ("getblock_verbosity2", .shape),
            ("getblock_verbosity3", .shape), ("getblockchaininfo", .shape), ("getblockcount", .exact),
            ("getblockhash", .exact), ("getblockhash_genesis", .exact), ("named_params_getblockhash", .exact),
            ("getblockheader_hex", .shape), ("getblockheader_verbose", .shape), ("getblockheader_verbose_nontip", .shape),
            ("getnetworkinfo", .exact), ("getrawtransaction_coinbase_verbose", .shape),
            ("getrawtransaction_confirmed_default", .shape), ("getrawtransaction_confirmed_hex", .shape),
            ("getrawtransaction_confirmed_verbose", .shape), ("getrawtransaction_confirmed_verbosity2", .shape),
            ("getrawtransaction_confirmed_with_blockhash", .shape), ("getrawtransaction_bad_txid", .exact),
            ("getrawtransaction_unknown", .exact), ("getrawtransaction_unknown_hex", .exact),
            ("getrawtransaction_unknown_in_given_block", .exact), ("error_getblock_bad_hash", .exact),
            ("error_getblock_unknown_hash", .exact), ("error_getblockheader_unknown_hash", .exact),
            ("error_getblockhash_negative", .exact), ("error_getblockhash_out_of_range", .exact),
            ("error_getblockhash_wrong_type", .exact), ("error_getblockhash_missing_param", .exact),
            ("error_getblockcount_extra_param", .exact), ("error_gettxout_wrong_type", .exact),
            ("error_params_object_unknown_name", .exact),
        ])

        // 3. Height 202: the CLTV output funded.
        try scenario.buildHeight202()
        scenario.map(try fixtures["getbestblockhash_after_invalidate"]!.result().stringValue!, to: scenario.chain.tipHash.hex)
        try await replay([("getblock_verbosity9", .shape)])

        // 4. Test transactions, in the order the fixtures' mempool needs.
        try buildTestTransactions()
        try await replay([
            ("testmempoolaccept_allowed", .exact), ("testmempoolaccept_two_unrelated_one_bad", .exact),
            ("testmempoolaccept_package_child_only", .exact), ("testmempoolaccept_package_wrong_order", .exact),
            ("testmempoolaccept_package_of_2", .notApplicable(Self.dependentPackage)),
            ("testmempoolaccept_package_invalid_child", .notApplicable(Self.dependentPackage)),
            ("testmempoolaccept_package_zero_fee_parent", .notApplicable(Self.cpfp)),
            ("submitpackage_cpfp_zero_fee_parent", .notApplicable(Self.cpfp)),
            ("sendrawtransaction_success", .exact), ("sendrawtransaction_already_in_mempool", .exact),
            ("jsonrpc2_sendrawtransaction_already_in_mempool", .exact),
            ("sendrawtransaction_same_txid_different_witness", .exact),
            ("testmempoolaccept_rejected_already_in_mempool", .exact),
            ("testmempoolaccept_rejected_same_txid_different_witness", .exact),
            ("sendrawtransaction_mempool_conflict_insufficient_fee", .exact),
            ("testmempoolaccept_rejected_mempool_conflict_insufficient_fee", .exact),
            ("sendrawtransaction_mempool_conflict_lower_fee", .exact),
            ("testmempoolaccept_rejected_mempool_conflict_lower_fee", .exact),
        ])
        try scenario.chain.submit(replacedOriginal)
        try await replay([
            ("sendrawtransaction_rbf_replacement_success", .exact), ("sendrawtransaction_parent", .exact),
            ("sendrawtransaction_child_of_mempool_parent", .exact),
            ("sendrawtransaction_bad_witness_signature", .exact), ("testmempoolaccept_rejected_bad_witness_signature", .exact),
            ("sendrawtransaction_cltv_not_satisfied", .exact), ("testmempoolaccept_rejected_cltv_not_satisfied", .exact),
            ("sendrawtransaction_decode_failed", .exact), ("sendrawtransaction_decode_failed_valid_hex", .exact),
            ("sendrawtransaction_dust", .exact), ("jsonrpc2_error_sendrawtransaction_dust", .exact),
            ("testmempoolaccept_rejected_dust", .exact), ("sendrawtransaction_fee_1sat", .exact),
            ("testmempoolaccept_rejected_fee_1sat", .exact), ("sendrawtransaction_immature_coinbase", .exact),
            ("testmempoolaccept_rejected_immature_coinbase", .exact), ("sendrawtransaction_input_spent_in_chain", .exact),
            ("testmempoolaccept_rejected_input_spent_in_chain", .exact), ("sendrawtransaction_already_in_chain", .exact),
            ("testmempoolaccept_rejected_already_in_chain", .exact), ("sendrawtransaction_max_fee_exceeded", .exact),
            ("sendrawtransaction_max_fee_exceeded_explicit", .exact), ("testmempoolaccept_rejected_max_fee_exceeded", .exact),
            ("testmempoolaccept_maxfeerate_zero", .exact), ("sendrawtransaction_missing_inputs", .exact),
            ("jsonrpc2_error_sendrawtransaction_missing_inputs", .exact), ("testmempoolaccept_rejected_missing_inputs", .exact),
            ("sendrawtransaction_nonfinal_bip68", .exact), ("testmempoolaccept_rejected_nonfinal_bip68", .exact),
            ("sendrawtransaction_nonfinal_locktime", .exact), ("testmempoolaccept_rejected_nonfinal_locktime", .exact),
            ("sendrawtransaction_zero_fee", .exact), ("testmempoolaccept_rejected_zero_fee", .exact),
            ("jsonrpc2_testmempoolaccept_rejected", .exact), ("error_sendrawtransaction_wrong_type", .exact),
        ])

        // 5. Queries of that mempool (4 transactions here, 6 in Core's: no CPFP pair), and
        //    the protocol cases, taken at height 202 in Core.
        try await replay([
            ("getrawmempool", .shape), ("getrawmempool_false", .shape), ("getrawmempool_mempool_sequence", .shape),
            ("getrawmempool_true", .shape), ("getmempoolentry", .shape), ("getmempoolentry_child", .shape),
            ("getmempoolentry_parent", .shape), ("getmempoolentry_zero_fee_parent", .notApplicable(Self.cpfp)),
            ("getmempoolentry_unknown", .exact), ("getmempoolentry_bad_txid", .exact), ("getmempoolinfo", .shape),
            ("gettxout_bad_txid", .exact), ("gettxout_immature_coinbase", .shape),
            ("gettxout_mempool_output_include_mempool_false", .exact), ("gettxout_mempool_output_include_mempool_true", .shape),
            ("gettxout_nonexistent_vout", .exact), ("gettxout_p2wsh_unspent", .shape), ("gettxout_spent_in_chain", .exact),
            ("gettxout_spent_in_mempool_include_mempool_false", .shape),
            ("gettxout_spent_in_mempool_include_mempool_true", .exact), ("gettxout_unknown_txid", .exact),
            ("gettxout_unspent_confirmed", .shape), ("gettxout_unspent_confirmed_include_mempool_false", .shape),
            ("getrawtransaction_mempool_hex", .shape), ("getrawtransaction_mempool_verbose", .shape),
            ("getrawtransaction_mempool_verbosity2", .shape),
            ("batch_1_0", .exact), ("batch_2_0", .exact), ("batch_empty", .exact), ("batch_mixed_versions", .exact),
            ("error_bad_auth_no_credentials", .exact), ("error_bad_auth_wrong_password", .exact), ("error_http_get", .exact),
            ("error_method_not_string", .exact), ("error_missing_method", .exact),
            ("error_params_not_array_or_object", .exact), ("error_parse_error", .exact),
            ("error_parse_error_empty_body", .exact), ("error_request_not_object", .exact), ("error_unknown_method", .exact),
            ("error_unknown_wallet_path", .exact), ("jsonrpc_version_unknown", .exact), ("request_content_type_json", .exact),
            ("request_no_jsonrpc_member", .exact), ("request_no_params", .exact), ("request_numeric_id", .exact),
            ("jsonrpc2_error_getblockhash_out_of_range", .exact), ("jsonrpc2_error_getblockhash_wrong_type", .exact),
            ("jsonrpc2_error_getmempoolentry_unknown", .exact), ("jsonrpc2_error_getrawtransaction_unknown", .exact),
            ("jsonrpc2_error_missing_method", .exact), ("jsonrpc2_error_missing_param", .exact),
            ("jsonrpc2_error_params_not_array_or_object", .exact), ("jsonrpc2_error_unknown_method", .exact),
            ("jsonrpc2_getblockcount", .exact), ("jsonrpc2_gettxout_null_result", .exact), ("jsonrpc2_id_null", .exact),
            ("jsonrpc2_notification", .exact), ("jsonrpc2_parse_error", .exact),
            // The spender fixtures' coinbase spend is `sendrawtransaction_success`'s here.
            ("gettxspendingprevout_mempool_spend", .exact), ("gettxspendingprevout_unspent", .exact),
            ("error_gettxspendingprevout_bad_outpoint", .exact),
            ("getindexinfo_txindex_txospenderindex", .shape), ("getindexinfo_named_txospenderindex", .shape),
        ])

        // 6. Block 203 with the mempool, invalidated and reconsidered.
        try await replay([("generatetoaddress", .shape)])
        if case .array(let hashes)? = try? fixtures["generatetoaddress"]!.result(), let mined = hashes.first?.stringValue {
            scenario.map(mined, to: scenario.chain.tipHash.hex)
        }
        try await replay([
            ("generatetoaddress_bad_address", .exact), ("getblockchaininfo_before_invalidate", .shape),
            ("invalidateblock", .exact), ("getbestblockhash_after_invalidate", .exact),
            ("getblockchaininfo_after_invalidate", .shape), ("getblockcount_after_invalidate", .exact),
            ("getblockheader_invalidated_block", .shape), ("getrawmempool_after_invalidate", .shape),
            ("invalidateblock_unknown", .exact), ("reconsiderblock", .exact),
            ("getblockchaininfo_after_reconsider", .shape), ("getrawmempool_after_reconsider", .exact),
            ("reconsiderblock_unknown", .exact),
        ])
        // Block 203 confirmed the coinbase spend: the spender index finds it there.
        if case .array(let spends)? = try? fixtures["gettxspendingprevout_confirmed_spend_mempool_only_false"]!.result(),
           let block = spends.first?["blockhash"]?.stringValue {
            scenario.map(block, to: try XCTUnwrap(scenario.chain.blockHash(atHeight: 203)).hex)
        }
        try await replay([
            ("gettxspendingprevout_confirmed_spend_mempool_only_default", .exact),
            ("gettxspendingprevout_confirmed_spend_mempool_only_false", .exact),
            ("gettxspendingprevout_confirmed_spend_return_spending_tx", .exact),
        ])

        // 7. Fee estimates, set by the hub's control method (Core learned its 2 sat/vB).
        try await scenario.call("hub_setfeeestimate", "[2000]")
        try await replay([
            ("estimatesmartfee_1", .exact), ("estimatesmartfee_2", .exact), ("estimatesmartfee_2_economical", .exact),
            ("estimatesmartfee_2_conservative", .shape), ("estimatesmartfee_6", .shape),
            ("estimatesmartfee_1008", .shape), ("error_estimatesmartfee_bad_mode", .exact),
            ("error_estimatesmartfee_target_0", .exact),
        ])

        XCTAssertEqual(Set(replayed), Set(fixtures.keys), "every fixture is classified")
        XCTAssertEqual(replayed.count, fixtures.count, "no fixture is replayed twice")
        XCTAssertEqual(fixtures.count, 183)
        XCTAssertEqual(counts.exact, 131)
        XCTAssertEqual(counts.shape, 47)
        XCTAssertEqual(counts.notApplicable, 5)
    }

    // MARK: replay

    private func replay(_ steps: [(String, Check)], file: StaticString = #filePath, line: UInt = #line) async throws {
        for (name, check) in steps {
            let fixture = try XCTUnwrap(fixtures[name], "no fixture \(name)", file: file, line: line)
            replayed.append(name)
            if case .notApplicable = check {
                counts.notApplicable += 1
                continue
            }
            let auth = fixture.auth.map { credentials -> HTTPBasicCredentials in
                let parts = credentials.split(separator: ":", maxSplits: 1).map(String.init)
                return HTTPBasicCredentials(user: parts[0], password: parts.count > 1 ? parts[1] : "")
            }
            let request = scenario.request(body: scenario.translate(fixture.requestBody ?? ""),
                                           method: HTTPMethod(rawValue: fixture.httpMethod), target: fixture.urlPath, auth: auth)
            let response = await scenario.server.respond(to: request)
            let body = String(decoding: response.body, as: UTF8.self)
            XCTAssertEqual(response.status.code, fixture.httpStatus, "\(name): HTTP status; body \(body)", file: file, line: line)
            if fixture.httpStatus == 401 {
                XCTAssertEqual(response.headers.first(name: "WWW-Authenticate"), "Basic realm=\"jsonrpc\"", name, file: file, line: line)
            }
            switch check {
            case .exact:
                counts.exact += 1
                XCTAssertEqual(body, scenario.translate(fixture.responseBodyRaw), "\(name): body", file: file, line: line)
            case .shape:
                counts.shape += 1
                let expected = try OrderedJSONParser.parse(fixture.responseBodyRaw)
                let actual = try OrderedJSONParser.parse(body)
                XCTAssertNil(shapeMismatch(expected: expected, actual: actual), "\(name): \(body.prefix(300))", file: file, line: line)
            case .notApplicable:
                break
            }
        }
    }

    private func mapBlocksAtHeight201() throws {
        let chain = scenario.chain
        scenario.map(try fixtures["getblockhash"]!.result().stringValue!, to: chain.blockHash(atHeight: 201)!.hex)
        scenario.map(try fixtures["named_params_getblockhash"]!.result().stringValue!, to: chain.blockHash(atHeight: 1)!.hex)
        let nontip = (fixtures["getblockheader_verbose_nontip"]!.params as! [Any])[0] as! String
        scenario.map(nontip, to: chain.blockHash(atHeight: 100)!.hex)
        if case .array(let txids)? = try fixtures["getblock_verbosity1"]!.result()["tx"], let coinbase = txids.first?.stringValue {
            scenario.map(coinbase, to: chain.block(atHeight: 201)!.block.transactions[0].txid.hex)
        }
        try scenario.map(fixtureTransaction: fixtures["sendrawtransaction_already_in_chain"]!.rawTransaction(),
                         to: scenario.confirmedSpend)
    }

    // MARK: the fixtures' transactions, rebuilt

    private var replacedOriginal: Transaction!

    private func buildTestTransactions() throws {
        let wallet = scenario.wallet, other = scenario.other, chain = scenario.chain
        func coin(_ height: Int) throws -> (outpoint: OutPoint, value: Int64) { try scenario.coin(atHeight: height) }
        func pair(_ fixture: String, _ transaction: Transaction) throws {
            try scenario.map(fixtureTransaction: fixtures[fixture]!.rawTransaction(), to: transaction)
        }
        func corrupted(_ transaction: Transaction) -> Transaction {
            var copy = transaction
            copy.inputs[0].witness.stack[0][10] ^= 0x01 // inside the DER r value
            return copy
        }

        let plain = try wallet.spend(try coin(1).outpoint, value: try coin(1).value, fee: 10_000)
        try pair("sendrawtransaction_success", plain)
        if case .array(let spends) = try fixtures["gettxspendingprevout_confirmed_spend_return_spending_tx"]!.result(),
           let spendingTransaction = spends.first?["spendingtx"]?.stringValue {
            try scenario.map(fixtureTransaction: spendingTransaction, to: plain)
        }
        try pair("sendrawtransaction_same_txid_different_witness", corrupted(plain))
        let allowed = try wallet.spend(try coin(2).outpoint, value: try coin(2).value, fee: 10_000)
        try pair("testmempoolaccept_allowed", allowed)
        try pair("sendrawtransaction_bad_witness_signature", corrupted(allowed))
        let dust = try wallet.spend([try coin(3)], to: [TransactionOutput(value: try coin(3).value - 10_100, scriptPubKey: wallet.script),
                                                        TransactionOutput(value: 100, scriptPubKey: other.script)])
        try pair("sendrawtransaction_dust", dust)
        try pair("sendrawtransaction_fee_1sat", try wallet.spend(try coin(4).outpoint, value: try coin(4).value, fee: 1))
        try pair("sendrawtransaction_zero_fee", try wallet.spend(try coin(5).outpoint, value: try coin(5).value, fee: 0))
        try pair("sendrawtransaction_max_fee_exceeded",
                 try wallet.spend(try coin(6).outpoint, value: try coin(6).value, fee: 50_000_000))
        try pair("sendrawtransaction_nonfinal_locktime",
                 try wallet.spend(try coin(7).outpoint, value: try coin(7).value, fee: 10_000, lockTime: 302))
        let parent = try wallet.spend(try coin(8).outpoint, value: try coin(8).value, fee: 10_000)
        try pair("sendrawtransaction_parent", parent)
        try pair("sendrawtransaction_child_of_mempool_parent",
                 try wallet.spend(OutPoint(txid: parent.txid, index: 0), value: parent.outputs[0].value, fee: 10_000))
        replacedOriginal = try wallet.spend(try coin(9).outpoint, value: try coin(9).value, fee: 10_000)
        try pair("sendrawtransaction_rbf_replacement_success",
                 try wallet.spend([try coin(9)], to: [TransactionOutput(value: try coin(9).value - 100_000, scriptPubKey: other.script)]))
        try pair("sendrawtransaction_mempool_conflict_insufficient_fee",
                 try wallet.spend([try coin(1)], to: [TransactionOutput(value: try coin(1).value - 10_000, scriptPubKey: other.script)]))
        try pair("sendrawtransaction_mempool_conflict_lower_fee",
                 try wallet.spend([try coin(1)], to: [TransactionOutput(value: try coin(1).value - 5_000, scriptPubKey: other.script)]))
        try pair("sendrawtransaction_immature_coinbase",
                 try wallet.spend(try coin(202).outpoint, value: try coin(202).value, fee: 10_000))
        try pair("sendrawtransaction_input_spent_in_chain",
                 try wallet.spend(try coin(90).outpoint, value: try coin(90).value, fee: 20_000))
        try pair("sendrawtransaction_missing_inputs",
                 try wallet.spend(OutPoint(txid: try TransactionID(hex: String(repeating: "ab", count: 32)), index: 0),
                                  value: 100_010_000, fee: 10_000))
        let confirmed = scenario.confirmedSpend!
        try pair("sendrawtransaction_nonfinal_bip68",
                 try other.spend(OutPoint(txid: confirmed.txid, index: 0), value: confirmed.outputs[0].value, fee: 10_000,
                                 sequence: 10))
        let funding = scenario.cltvFunding!
        var cltvSpend = Transaction(version: 2,
                                    inputs: [TransactionInput(previousOutput: OutPoint(txid: funding.txid, index: 1),
                                                              sequence: TransactionInput.replaceableSequence,
                                                              witness: Witness([scenario.cltvScript.bytes]))],
                                    outputs: [TransactionOutput(value: funding.outputs[1].value - 10_000, scriptPubKey: wallet.script)],
                                    lockTime: UInt32(chain.height))
        cltvSpend.lockTime = 202
        try pair("sendrawtransaction_cltv_not_satisfied", cltvSpend)
    }
}
