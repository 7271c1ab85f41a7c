import Bitcoin
@testable import PeerNode
import XCTest

final class ElectrumScriptHashTests: XCTestCase {
    /// The Electrum protocol docs' example ("Script Hashes"): the P2PKH script of the
    /// genesis block's address 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa.
    func testTheProtocolDocsVector() throws {
        let script = try XCTUnwrap([UInt8](hex: "76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac"))
        XCTAssertEqual(ElectrumScriptHash(scriptPubKey: script).hex,
                       "8b01df4e368ea28f8dc0423bcf7a4923e3a12d307c875e47a0cfbf90b5c39161")
    }

    func testHexFromTheServerIsCheckedAndLowerCased() {
        XCTAssertEqual(ElectrumScriptHash(hex: String(repeating: "AB", count: 32))?.hex, String(repeating: "ab", count: 32))
        XCTAssertNil(ElectrumScriptHash(hex: "ab"))
        XCTAssertNil(ElectrumScriptHash(hex: String(repeating: "zz", count: 32)))
    }
}
