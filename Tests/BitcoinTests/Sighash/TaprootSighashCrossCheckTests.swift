import XCTest
@testable import Bitcoin

/// BIP341's own vectors cover only key-path spends without an annex. These cases, for the
/// annex and the BIP342 script-path extension, come from rust-bitcoin's sighash tests
/// (`bitcoin/src/crypto/sighash.rs`, `test_sighashes_with_annex`, `..._with_script_path`,
/// `..._with_script_path_raw_hash`, `..._with_annex_and_script`; CC0), which take them from
/// Bitcoin Core's functional test framework. No shared vector file holds them.
final class TaprootSighashCrossCheckTests: XCTestCase {
    private struct Case {
        let name: String
        let transaction: String
        /// A CompactSize count followed by the spent outputs, as rust-bitcoin serializes them.
        let spentOutputs: String
        let inputIndex: Int
        let hashType: SighashType
        let annex: String?
        let leafScript: String?
        let leafHash: String?
        let expected: String
    }

    private let cases: [Case] = [
        Case(name: "annex, SINGLE|ANYONECANPAY",
             transaction: "0200000001df8123752e8f37d132c4e9f1ff7e4f9b986ade9211267e9ebd5fd22a5e718dec6d01000000ce4023b903cb7b23000000000017a914a18b36ea7a094db2f4940fc09edf154e86de7bd787580200000000000017a914afd0d512a2c5c2b40e25669e9cc460303c325b8b87580200000000000017a914a18b36ea7a094db2f4940fc09edf154e86de7bd787f6020000",
             spentOutputs: "01ea49260000000000225120ab5e9800806bf18cb246edcf5fe63441208fe955a4b5a35bbff65f5db622a010",
             inputIndex: 0, hashType: .singleAnyoneCanPay,
             annex: "507b979802e62d397acb29f56743a791894b99372872fc5af06a4f6e8d242d0615cda53062bb20e6ec79756fe39183f0c128adfe85559a8fa042b042c018aa8010143799e44f0893c40e1e",
             leafScript: nil, leafHash: nil,
             expected: "3b003000add359a364a156e73e02846782a59d0d95ca8c4638aaad99f2ef915c"),
        Case(name: "script path, ALL",
             transaction: "020000000189fc651483f9296b906455dd939813bf086b1bbe7c77635e157c8e14ae29062195010000004445b5c7044561320000000000160014331414dbdada7fb578f700f38fb69995fc9b5ab958020000000000001976a914268db0a8104cc6d8afd91233cc8b3d1ace8ac3ef88ac580200000000000017a914ec00dcb368d6a693e11986d265f659d2f59e8be2875802000000000000160014c715799a49a0bae3956df9c17cb4440a673ac0df6f010000",
             spentOutputs: "011bec34000000000022512028055142ea437db73382e991861446040b61dd2185c4891d7daf6893d79f7182",
             inputIndex: 0, hashType: .all, annex: nil,
             leafScript: "20cc4e1107aea1d170c5ff5b6817e1303010049724fb3caa7941792ea9d29b3e2bacab", leafHash: nil,
             expected: "d66de5274a60400c7b08c86ba6b7f198f40660079edf53aca89d2a9501317f2e"),
        Case(name: "script path given by leaf hash, ALL",
             transaction: "020000000189fc651483f9296b906455dd939813bf086b1bbe7c77635e157c8e14ae29062195010000004445b5c7044561320000000000160014331414dbdada7fb578f700f38fb69995fc9b5ab958020000000000001976a914268db0a8104cc6d8afd91233cc8b3d1ace8ac3ef88ac580200000000000017a914ec00dcb368d6a693e11986d265f659d2f59e8be2875802000000000000160014c715799a49a0bae3956df9c17cb4440a673ac0df6f010000",
             spentOutputs: "011bec34000000000022512028055142ea437db73382e991861446040b61dd2185c4891d7daf6893d79f7182",
             inputIndex: 0, hashType: .all, annex: nil, leafScript: nil,
             leafHash: "15a2530514e399f8b5cf0b3d3112cf5b289eaa3e308ba2071b58392fdc6da68a",
             expected: "d66de5274a60400c7b08c86ba6b7f198f40660079edf53aca89d2a9501317f2e"),
        Case(name: "annex and script path, ALL",
             transaction: "020000000132fb72cb8fba496755f027a9743e2d698c831fdb8304e4d1a346ac92cbf51acba50100000026bdc7df044aad34000000000017a9144fa2554ed6174586854fa3bc01de58dcf33567d0875802000000000000160014950367e1e62cdf240b35b883fc2f5e39f0eb9ab95802000000000000160014950367e1e62cdf240b35b883fc2f5e39f0eb9ab958020000000000001600141b31217d48ccc8760dcc0710fade5866d628e733a02d5122",
             spentOutputs: "011458360000000000225120a7baec3fb9f84614e3899fcc010c638f80f13539344120e1f4d8b68a9a011a13",
             inputIndex: 0, hashType: .all,
             annex: "50a6272b470e1460e3332ade7bb14b81671c564fb6245761bd5bd531394b28860e0b3808ab229fb51791fb6ae6fa82d915b2efb8f6df83ae1f5ab3db13e30928875e2a22b749d89358de481f19286cd4caa792ce27f9559082d227a731c5486882cc707f83da361c51b7aadd9a0cf68fe7480c410fa137b454482d9a1ebf0f96d760b4d61426fc109c6e8e99a508372c45caa7b000a41f8251305da3f206c1849985ba03f3d9592832b4053afbd23ab25d0465df0bc25a36c223aacf8e04ec736a418c72dc319e4da3e972e349713ca600965e7c665f2090d5a70e241ac164115a1f5639f28b1773327715ca307ace64a2de7f0e3df70a2ffee3857689f909c0dad46d8a20fa373a4cc6eed6d4c9806bf146f0d76baae1",
             leafScript: "7520ab9160dd8299dc1367659be3e8f66781fe440d52940c7f8d314a89b9f2698d406ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6ead6eadac",
             leafHash: nil,
             expected: "a0042aa434f9a75904b64043f2a283f8b4c143c7f4f7f49a6cbe5b9f745f4c15"),
    ]

    func testAnnexAndScriptPathSighashes() throws {
        var checked = 0
        for testCase in cases {
            var reader = ByteReader(bytes(testCase.spentOutputs))
            let spent = try (0..<reader.readCompactSize()).map { _ in try TransactionOutput.read(from: &reader) }
            XCTAssertTrue(reader.isAtEnd, testCase.name)
            let sighash = try TaprootSighash(transaction: try Transaction(hex: testCase.transaction), spentOutputs: spent)

            var scriptPath: TaprootSighash.ScriptPath?
            if let script = testCase.leafScript {
                scriptPath = TaprootSighash.ScriptPath(leaf: TapLeaf(script: Script(bytes: bytes(script))))
            } else if let leafHash = testCase.leafHash {
                scriptPath = try TaprootSighash.ScriptPath(leafHash: bytes(leafHash))
            }
            let digest = try sighash.hash(inputIndex: testCase.inputIndex, hashType: testCase.hashType,
                                          annex: testCase.annex.map { bytes($0) }, scriptPath: scriptPath)
            XCTAssertEqual(digest.hex, testCase.expected, testCase.name)
            checked += 1
        }
        XCTAssertEqual(checked, 4)
        // The two script-path cases name the same leaf, once by script and once by hash.
        XCTAssertEqual(TapLeaf(script: Script(bytes: bytes(cases[1].leafScript ?? ""))).hash.hex, cases[2].leafHash)
    }
}
