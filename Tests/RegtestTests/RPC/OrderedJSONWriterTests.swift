@testable import Regtest
import Bitcoin
import XCTest

/// The JSON edge: Core's member order and compact form, its string escaping, amounts as
/// exact 8-decimal BTC, doubles as `%.16g`, script assembly and descriptor checksums.
final class OrderedJSONWriterTests: XCTestCase {
    func testCompactFormKeepsMemberOrder() {
        let json: OrderedJSON = .object(["result": nil, "error": .object(["code": -8, "message": "x"]), "id": "x"])
        XCTAssertEqual(json.compact, #"{"result":null,"error":{"code":-8,"message":"x"},"id":"x"}"#)
        XCTAssertEqual(OrderedJSON.array([]).compact, "[]")
        XCTAssertEqual(OrderedJSON.object([:]).compact, "{}")
    }

    func testStringsAreEscapedAsUniValueEscapesThem() {
        let json: OrderedJSON = .string("a\"b\\c\n\t\u{01}\u{7f}é/")
        XCTAssertEqual(json.compact, #""a\"b\\c\n\t\u0001\u007fé/""#)
    }

    func testPrettyFormMatchesCoresTypeErrorText() {
        let json: OrderedJSON = .object(["Position 1 (height)": "JSON value of type string is not of expected type number"])
        XCTAssertEqual(json.pretty(indent: 4),
                       "{\n    \"Position 1 (height)\": \"JSON value of type string is not of expected type number\"\n}")
    }

    func testAmountsHaveExactlyEightDecimals() {
        XCTAssertEqual(CoreAmount.format(10_000), "0.00010000")
        XCTAssertEqual(CoreAmount.format(0), "0.00000000")
        XCTAssertEqual(CoreAmount.format(2_500_002_820), "25.00002820")
        XCTAssertEqual(CoreAmount.format(-1), "-0.00000001")
        XCTAssertEqual(CoreAmount.format(CoreAmount.maxMoney), "21000000.00000000")
        XCTAssertEqual(OrderedJSON.amount(454_545_454).compact, "4.54545454")
    }

    func testAmountParsingIsExactAndRefusesSubSatoshiPrecision() {
        XCTAssertEqual(CoreAmount.parse("0.01"), 1_000_000)
        XCTAssertEqual(CoreAmount.parse("0.10"), 10_000_000)
        XCTAssertEqual(CoreAmount.parse("1"), 100_000_000)
        XCTAssertEqual(CoreAmount.parse("1e-8"), 1)
        XCTAssertEqual(CoreAmount.parse("0.000000010"), 1)
        XCTAssertEqual(CoreAmount.parse("20999999.99999999"), 2_099_999_999_999_999)
        XCTAssertNil(CoreAmount.parse("0.000000001"))
        XCTAssertNil(CoreAmount.parse("abc"))
        XCTAssertNil(CoreAmount.parse(""))
        XCTAssertNil(CoreAmount.parse("1e40"))
    }

    func testDoublesPrintLikePercentSixteenG() {
        XCTAssertEqual(CoreNumber.format(CoreNumber.difficulty(bits: 0x207f_ffff)), "4.656542373906925e-10")
        XCTAssertEqual(CoreNumber.format(2.002831507048753e-06), "2.002831507048753e-06")
        XCTAssertEqual(CoreNumber.format(1), "1")
        XCTAssertEqual(CoreNumber.format(0.5), "0.5")
        XCTAssertEqual(CoreNumber.format(1234.25), "1234.25")
        XCTAssertEqual(CoreNumber.format(1e20), "1e+20")
    }

    /// Checksums and assembly of scripts that appear in the fixtures.
    func testDescriptorsAndAssemblyMatchCore() throws {
        let p2wpkh = Script(bytes: [UInt8](hex: "00148675643d38158a7223f6fa9900dc28e52deca063")!)
        XCTAssertEqual(ScriptPubKeyJSON.json(p2wpkh).compact,
                       #"{"asm":"0 8675643d38158a7223f6fa9900dc28e52deca063","desc":"addr(bcrt1qse6kg0fczk98yglkl2vsphpgu5k7egrrsz655m)#g94jtm3t","hex":"00148675643d38158a7223f6fa9900dc28e52deca063","address":"bcrt1qse6kg0fczk98yglkl2vsphpgu5k7egrrsz655m","type":"witness_v0_keyhash"}"#)
        let commitment = Script(bytes: [UInt8](hex: "6a24aa21a9edf2b6164945eb24f162d849498367fb3a55223feccec7ae62fe3fc928a807455d")!)
        XCTAssertEqual(ScriptPubKeyJSON.json(commitment).compact,
                       #"{"asm":"OP_RETURN aa21a9edf2b6164945eb24f162d849498367fb3a55223feccec7ae62fe3fc928a807455d","desc":"raw(6a24aa21a9edf2b6164945eb24f162d849498367fb3a55223feccec7ae62fe3fc928a807455d)#4ryru4gg","hex":"6a24aa21a9edf2b6164945eb24f162d849498367fb3a55223feccec7ae62fe3fc928a807455d","type":"nulldata"}"#)
        let p2wsh = Script(bytes: [UInt8](hex: "00204db6cbdbc8a2481ba5b48eb6ee1b11e1aedf30e168e9ca073919fc8bbbc8048a")!)
        XCTAssertEqual(ScriptPubKeyJSON.json(p2wsh)["desc"]?.stringValue,
                       "addr(bcrt1qfkmvhk7g5fyphfd536mwuxc3uxhd7v8pdr5u5peer87ghw7gqj9qt5r2as)#gmr6h596")
        XCTAssertEqual(ScriptPubKeyJSON.json(p2wsh)["type"]?.stringValue, "witness_v0_scripthash")
        let genesis = RegtestParameters.genesisBlock.transactions[0].outputs[0].scriptPubKey
        XCTAssertEqual(ScriptPubKeyJSON.json(genesis)["desc"]?.stringValue,
                       "pk(04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f)#vlz6ztea")
        XCTAssertNil(ScriptPubKeyJSON.json(genesis)["address"], "Core gives a bare key no address")
        // Small pushes print as numbers, as in the CLTV witness script.
        let cltv = Script([.pushNumber(251), .checkLockTimeVerify, .drop, .number(1)])
        XCTAssertEqual(ScriptAssembly.assembly(cltv), "251 OP_CHECKLOCKTIMEVERIFY OP_DROP 1")
        XCTAssertEqual(ScriptAssembly.assembly(Script(bytes: [0x02, 0xff, 0x80])), "-255")
        XCTAssertEqual(ScriptAssembly.assembly(Script(bytes: [0x4c, 0x05, 0x01])), "[error]")
    }

    func testScriptSigSignaturesShowTheirSighashType() throws {
        let signature = [UInt8](hex: "3044022005553139c127c224e56dc8817fde5f35e1c494d83e1ad932903c5bf3aac1b06f0220577542cf47de501cee59240c1cfab47a8fb8b9ba08eaba3ad7ff2245fac3934d01")!
        let scriptSig = Script([.pushData(signature)])
        XCTAssertEqual(ScriptAssembly.assembly(scriptSig, decodeSighash: true), signature.dropLast().hex + "[ALL]")
        XCTAssertEqual(ScriptAssembly.assembly(scriptSig), signature.hex)
    }
}
