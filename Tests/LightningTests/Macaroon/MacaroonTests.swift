import Bitcoin
import Lightning
import XCTest

/// The V2 macaroon codec, the HMAC chain and LND's identifier, against vectors this
/// project did not produce: RFC 4231, libmacaroons' README example, and LND macaroons
/// published in other projects' tests.
final class MacaroonTests: XCTestCase {
    /// An LND macaroon with `info:read` constrained to one IP (`lncli constrainmacaroon`),
    /// from a public project's Go test.
    static let constrainedInfoRead = "0201036c6e640224030a10b493608461fb6e64810053fa31ef27991201301a0c0a04696e666f12047265616400"
        + "0216697061646472203139322e3136382e3139322e3136380000062072ea006233da839ce6e9f4721331a12041b228d36c0fdad552680f615766d2f4"

    /// The start of an `admin.macaroon` identifier as LND 0.x writes it (public test
    /// fixtures): version 3, the nonce, storage id "0", then the ops in bakery order.
    static let adminIdentifierPrefix = "030a10253d7f7c2d1d8d0d79749376a266e7241201301a160a0761646472657373120472656164120577726974651a130a04696e666f"
        + "120472656164120577726974651a170a08696e766f69636573120472656164120577726974651a210a086d616361726f6f6e120867656e6572617465"
        + "120472656164120577726974651a160a076d657373616765120472656164120577726974651a170a086f6666636861696e120472656164120577726974"
        + "651a160a076f6e636861696e1204726561641205777269"

    func testHMACSHA256RFC4231Case2() {
        let mac = HMACSHA256.authenticate(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        XCTAssertEqual(mac.hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// libmacaroons' README: the same root key, identifier and caveat give its signatures.
    func testLibmacaroonsReadmeSignatures() {
        let root = Array("this is our super secret key; only we should know it".utf8)
        let minted = Macaroon(rootKey: root, identifier: Array("we used our secret key".utf8), location: "http://mybank/")
        XCTAssertEqual(minted.signature.hex, "e3d9e02908526c4c0039ae15114115d97fdd68bf2ba379b342aaf0f617d0552f")
        let narrowed = minted.adding(condition: "account = 3735928559")
        XCTAssertEqual(narrowed.signature.hex, "1efe4763f290dbce0c1d08477367e11f4eee456a64933cf662d79772dbb82128")
        XCTAssertTrue(narrowed.verifies(rootKey: root))
    }

    func testDecodesAnLNDMacaroonWithACaveat() throws {
        let bytes = try XCTUnwrap([UInt8](hex: Self.constrainedInfoRead))
        let macaroon = try Macaroon(decoding: bytes)
        XCTAssertEqual(macaroon.location, "lnd")
        XCTAssertEqual(macaroon.caveats.map(\.condition), ["ipaddr 192.168.192.168"])
        XCTAssertTrue(macaroon.caveats[0].isFirstParty)
        XCTAssertEqual(macaroon.signature.hex, "72ea006233da839ce6e9f4721331a12041b228d36c0fdad552680f615766d2f4")
        let id = try LNDMacaroonID(decoding: macaroon.identifier)
        XCTAssertEqual(id.permissions, [LNDPermission("info", "read")])
        XCTAssertEqual(id.storageID, Array("0".utf8))
        XCTAssertEqual(id.nonce.count, 16)
        // Re-encoding gives the same bytes (field order, lengths).
        XCTAssertEqual(macaroon.encoded, bytes)
        XCTAssertEqual(id.encoded, macaroon.identifier)
    }

    /// The identifier this code writes for admin's permissions is LND's, byte for byte
    /// (ops sorted by entity, actions sorted and grouped).
    func testAdminIdentifierMatchesLND() throws {
        let prefix = try XCTUnwrap([UInt8](hex: Self.adminIdentifierPrefix))
        let nonce = Array(prefix[3..<19])
        let ours = LNDMacaroonID(nonce: nonce, permissions: LNDPermission.admin).encoded
        XCTAssertEqual(Array(ours.prefix(prefix.count)).hex, prefix.hex)
        // LND's admin identifier is 248 bytes (its length field f801).
        XCTAssertEqual(ours.count, 248)
    }

    func testSignatureChainRefusesAnotherKeyOrAWidenedIdentifier() throws {
        let root = [UInt8](repeating: 7, count: 32)
        let id = LNDMacaroonID(nonce: [UInt8](repeating: 1, count: 16), permissions: LNDPermission.invoice)
        let macaroon = Macaroon(rootKey: root, identifier: id.encoded, location: "lnd")
        XCTAssertTrue(macaroon.verifies(rootKey: root))
        XCTAssertFalse(macaroon.verifies(rootKey: [UInt8](repeating: 8, count: 32)))
        var widened = macaroon
        widened.identifier = LNDMacaroonID(nonce: id.nonce, permissions: LNDPermission.admin).encoded
        XCTAssertFalse(widened.verifies(rootKey: root))
        var dropped = macaroon.adding(condition: "ipaddr 127.0.0.1")
        XCTAssertTrue(dropped.verifies(rootKey: root))
        dropped.caveats.removeAll()
        XCTAssertFalse(dropped.verifies(rootKey: root), "a caveat cannot be removed")
        let decoded = try Macaroon(decoding: macaroon.adding(condition: "time-before 2030-01-01T00:00:00Z").encoded)
        XCTAssertTrue(decoded.verifies(rootKey: root))
    }

    func testRefusesWhatIsNotAMacaroon() throws {
        let bytes = try XCTUnwrap([UInt8](hex: Self.constrainedInfoRead))
        // The hex text of a macaroon instead of its bytes.
        XCTAssertThrowsError(try Macaroon(decoding: Array(Self.constrainedInfoRead.utf8))) {
            XCTAssertEqual($0 as? MacaroonError, .notVersion2(firstByte: UInt8(ascii: "0")))
        }
        XCTAssertThrowsError(try Macaroon(decoding: [])) { XCTAssertEqual($0 as? MacaroonError, .notVersion2(firstByte: nil)) }
        for cut in [10, 40, bytes.count - 1] {
            XCTAssertThrowsError(try Macaroon(decoding: Array(bytes.prefix(cut))), "cut at \(cut)")
        }
        XCTAssertThrowsError(try Macaroon(decoding: bytes + [0])) // trailing bytes
        // An identifier that is not LND's: a libmacaroons text id.
        XCTAssertThrowsError(try LNDMacaroonID(decoding: Array("we used our secret key".utf8)))
    }

    func testMissingPermissionsPerRole() {
        let invoiceOnly = LNDCall.missing(from: LNDPermission.invoice, for: LNDCall.client)
        XCTAssertEqual(invoiceOnly.map(\.permission.description), ["info:read", "offchain:read", "offchain:write"])
        XCTAssertEqual(invoiceOnly.last?.calls, [.sendPaymentV2])
        XCTAssertTrue(LNDCall.missing(from: LNDPermission.admin, for: LNDCall.provider).isEmpty)
        let readOnly = LNDCall.missing(from: LNDPermission.readOnly, for: LNDCall.provider)
        XCTAssertEqual(readOnly.map(\.permission.description), ["invoices:write", "offchain:write"])
    }

    /// A node taking Lightning from its contacts makes plain invoices; a submarine provider
    /// decodes, pays and tracks the client's invoice.
    func testPayeeAndSubmarineProviderPermissions() {
        let payee = LNDCall.missing(from: LNDPermission.readOnly, for: LNDCall.calls(provider: false, payee: true))
        XCTAssertEqual(payee.map(\.permission.description), ["invoices:write", "offchain:write"])
        XCTAssertEqual(payee.first?.calls, [.addInvoice])
        XCTAssertTrue(LNDCall.missing(from: LNDPermission.readOnly, for: LNDCall.calls(provider: false, payee: false))
            .allSatisfy { !$0.calls.contains(.addInvoice) })
        XCTAssertEqual(LNDCall.payee.last, .addInvoice)
        for call in [LNDCall.decodePayReq, .sendPaymentV2, .trackPaymentV2] {
            XCTAssertTrue(LNDCall.submarineProvider.contains(call), call.name)
            XCTAssertTrue(LNDCall.provider.contains(call), call.name)
        }
        // The invoice macaroon can make invoices but not decode, pay or track one.
        let submarine = LNDCall.missing(from: LNDPermission.invoice, for: LNDCall.submarineProvider)
        XCTAssertEqual(submarine.map(\.permission.description), ["offchain:read", "offchain:write"])
        XCTAssertEqual(submarine.first?.calls, [.decodePayReq, .trackPaymentV2])
        XCTAssertEqual(LNDCall.calls(provider: true, payee: true).count, Set(LNDCall.calls(provider: true, payee: true)).count)
        XCTAssertTrue(LNDCall.calls(provider: true, payee: false).contains(.decodePayReq))
        XCTAssertFalse(LNDCall.calls(provider: true, payee: false).contains(.addInvoice))
    }

    /// Beside an Electrum server it does not run, a node publishes through LND's wallet
    /// too (E-4): onchain:write, which neither the readonly nor the invoice macaroon has.
    func testBroadcastingThroughLNDNeedsOnchainWrite() {
        XCTAssertFalse(LNDCall.calls(provider: false, payee: false).contains(.publishTransaction))
        let calls = LNDCall.calls(provider: false, payee: false, broadcasts: true)
        XCTAssertEqual(calls.last, .publishTransaction)
        XCTAssertEqual(LNDCall.missing(from: LNDPermission.readOnly, for: [.publishTransaction]).map(\.permission.description),
                       ["onchain:write"])
        XCTAssertTrue(LNDCall.missing(from: LNDPermission.admin, for: calls).isEmpty)
    }
}
