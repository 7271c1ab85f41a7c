import Bitcoin
import Foundation
import TestSupport
import XCTest
@testable import Lightning

/// BOLT #11's "Examples" and "Examples of Invalid Invoices", from
/// `bolt11/bolt11_vectors.json`: every valid invoice decodes to every field the file
/// states and re-signs to the same string; every invalid one fails for its stated reason.
final class BOLT11VectorTests: XCTestCase {
    private func file() throws -> [String: Any] {
        guard let root = try Vectors.json("bolt11/bolt11_vectors.json") as? [String: Any] else {
            throw MissingField(name: "root")
        }
        return root
    }

    private func signingKey() throws -> PrivateKey {
        try PrivateKey(try file().bytes("signing_private_key"))
    }

    private func vectors(_ group: String) throws -> [[String: Any]] {
        guard let list = try file()[group] as? [[String: Any]] else { throw MissingField(name: group) }
        return list
    }

    func testVectorCountsAreTheBOLTs() throws {
        XCTAssertEqual(try vectors("valid").count, 16)
        XCTAssertEqual(try vectors("invalid").count, 10)
        XCTAssertEqual(try signingKey().publicKey.compressed.hex, try file().string("signing_public_key"))
    }

    // MARK: valid

    func testValidInvoicesDecodeToEveryStatedField() throws {
        var checked = 0
        for vector in try vectors("valid") {
            let text = try vector.string("invoice")
            let title = String(try vector.string("title").prefix(60))
            guard let expected = vector["expected"] as? [String: Any] else { throw MissingField(name: "expected") }
            let invoice: Invoice
            do {
                invoice = try InvoiceDecoder.decode(text)
            } catch {
                XCTFail("\(title): \(error)")
                continue
            }
            try checkFields(invoice, expected: expected, title: title)
            checked += 1
        }
        XCTAssertEqual(checked, 16)
    }

    /// The signer's RFC 6979 signature reproduces each low-S example byte for byte; the
    /// high-S example (s negated by hand in the BOLT) re-signs to its low-S twin instead.
    func testValidInvoicesReSignToTheSameString() throws {
        let key = try signingKey()
        var reproduced = 0
        var highS = 0
        for vector in try vectors("valid") {
            let text = try vector.string("invoice")
            let title = String(try vector.string("title").prefix(60))
            guard let expected = vector["expected"] as? [String: Any],
                  let isHighS = expected["signature_high_s"] as? Bool else { throw MissingField(name: "signature_high_s") }
            let invoice = try InvoiceDecoder.decode(text)
            let resigned = try InvoiceEncoder.sign(currency: invoice.currency, amountMsat: invoice.amountMsat,
                                                   timestamp: invoice.timestamp, fields: invoice.fields, with: key)
            XCTAssertEqual(resigned.signingHash, invoice.signingHash, title)
            if isHighS {
                // Same message, key and nonce: the canonical twin of the BOLT's signature. Its
                // recovery id is the one the BOLT transmitted: the example negated s but kept
                // the low-S signature's id. The twin is the donation example, byte for byte.
                XCTAssertEqual(resigned.signature.ecdsaSignature, invoice.signature.ecdsaSignature.normalizedS(), title)
                XCTAssertEqual(resigned.signature.recoveryID, invoice.signature.recoveryID, title)
                XCTAssertEqual(resigned.payeeNodeID, key.publicKey, title)
                XCTAssertEqual(resigned.string, try vectors("valid").first?.string("invoice"), title)
                highS += 1
            } else {
                XCTAssertEqual(resigned.string, text.lowercased(), title)
                reproduced += 1
            }
        }
        XCTAssertEqual(reproduced, 15)
        XCTAssertEqual(highS, 1)
    }

    /// The file leaves the high-S example's payee to the implementation. This one recovers
    /// with the transmitted recovery id, never another: the key that comes out is the one
    /// the file records for that behaviour, and the BOLT's signer is recovered only from
    /// the low-S twin (or the flipped id), which the test shows to document the choice.
    func testHighSExampleRecoversWithTheTransmittedRecoveryID() throws {
        guard let vector = try vectors("valid").first(where: { ($0["expected"] as? [String: Any])?["signature_high_s"] as? Bool == true }),
              let expected = vector["expected"] as? [String: Any] else { throw MissingField(name: "high-S vector") }
        let invoice = try InvoiceDecoder.decode(try vector.string("invoice"))
        XCTAssertFalse(invoice.signature.ecdsaSignature.isLowS)
        XCTAssertNil(invoice.statedPayeeNodeID)
        XCTAssertEqual(invoice.payeeNodeID.compressed.hex,
                       try expected.string("payee_pubkey_recovered_with_transmitted_recovery_id"))
        XCTAssertTrue(invoice.signature.ecdsaSignature.verify(digest: invoice.signingHash, publicKey: invoice.payeeNodeID,
                                                              allowHighS: true))

        let signer = try file().string("signing_public_key")
        let twin = try RecoverableSignature(compact: invoice.signature.ecdsaSignature.normalizedS().compact,
                                            recoveryID: invoice.signature.recoveryID)
        XCTAssertEqual(try twin.recoverPublicKey(digest: invoice.signingHash).compressed.hex, signer)
        let flipped = try RecoverableSignature(compact: invoice.signature.compact, recoveryID: invoice.signature.recoveryID ^ 1)
        XCTAssertEqual(try flipped.recoverPublicKey(digest: invoice.signingHash).compressed.hex, signer)
    }

    // MARK: invalid

    /// Each invalid example fails, and for the reason the BOLT gives.
    func testInvalidInvoicesFailForTheirReason() throws {
        let expectedErrors: [String: (BOLT11Error) -> Bool] = [
            "Same, but adding invalid unknown feature 100": { $0 == .unknownRequiredFeature(bit: 100) },
            "Bech32 checksum is invalid": { $0 == .badChecksum },
            "Malformed bech32 string (no 1)": { if case .malformedBech32 = $0 { return true } else { return false } },
            "Malformed bech32 string (mixed case)": { $0 == .mixedCase },
            "Signature is not recoverable": { $0 == .signatureNotRecoverable },
            "String is too short": { $0 == .tooShort },
            "Invalid multiplier": { $0 == .invalidMultiplier("x") },
            "Invalid sub-millisatoshi precision": { $0 == .subMillisatoshiAmount },
            "Missing required `s` field": { $0 == .missingPaymentSecret },
            "Non canonical signature (high-S) with 'n' field defined": { $0 == .nonCanonicalSignature },
        ]
        var checked = 0
        for vector in try vectors("invalid") {
            let reason = try vector.string("reason")
            let text = try vector.string("invoice")
            guard let matches = expectedErrors[reason] else {
                XCTFail("no expected error for reason '\(reason)'")
                continue
            }
            do {
                let invoice = try InvoiceDecoder.decode(text)
                XCTFail("\(reason): decoded as \(invoice)")
            } catch {
                XCTAssertTrue(matches(error), "\(reason): failed with \(error)")
                XCTAssertFalse(error.description.contains(text), "error echoes the invoice")
            }
            checked += 1
        }
        XCTAssertEqual(checked, 10)
        XCTAssertEqual(checked, expectedErrors.count)
    }

    // MARK: field comparison

    /// Keys of `expected` this test compares; a key outside the list fails the test, so a
    /// field added to the file cannot go unchecked.
    private static let comparedKeys: Set<String> = [
        "network", "currency_prefix", "hrp", "amount", "amount_msat", "timestamp", "payment_hash",
        "payment_secret", "description", "description_hash", "description_hash_preimage", "expiry",
        "min_final_cltv_expiry_delta", "fallbacks", "route_hints", "features", "payee_pubkey_field",
        "signature", "recovery_id", "signature_high_s", "signing_data", "signing_hash", "payee_pubkey",
        "payee_pubkey_recovered_with_transmitted_recovery_id", "ignored_fields", "metadata",
    ]

    private func checkFields(_ invoice: Invoice, expected: [String: Any], title: String) throws {
        for key in expected.keys where !Self.comparedKeys.contains(key) {
            XCTFail("\(title): expected field '\(key)' is not compared")
        }
        let networks: [String: InvoiceCurrency] = [
            "bitcoin mainnet": .bitcoin, "bitcoin testnet": .testnet, "bitcoin signet": .signet, "bitcoin regtest": .regtest,
        ]
        XCTAssertEqual(networks[try expected.string("network")], invoice.currency, title)
        XCTAssertEqual("ln" + (try expected.string("currency_prefix")), invoice.currency.prefix, title)
        XCTAssertEqual(try expected.string("hrp"), invoice.humanReadablePart, title)
        XCTAssertEqual(expected["amount"] as? String,
                       invoice.amountMsat.map { _ in String(invoice.humanReadablePart.dropFirst(invoice.currency.prefix.count)) }, title)
        XCTAssertEqual(number(expected["amount_msat"]), invoice.amountMsat, title)
        XCTAssertEqual(number(expected["timestamp"]), invoice.timestamp, title)
        XCTAssertEqual(try expected.bytes("payment_hash"), invoice.paymentHash, title)
        XCTAssertEqual(try expected.bytes("payment_secret"), invoice.paymentSecret, title)
        XCTAssertEqual(expected["description"] as? String, invoice.descriptionText, title)
        XCTAssertEqual(try expected.optionalBytes("description_hash"), invoice.descriptionHash, title)
        if let preimage = expected["description_hash_preimage"] as? String {
            XCTAssertTrue(invoice.commits(toDescription: preimage), title)
            XCTAssertFalse(invoice.commits(toDescription: preimage + " "), title)
        }
        XCTAssertEqual(number(expected["expiry"]), invoice.statedExpirySeconds, title)
        XCTAssertEqual(invoice.expirySeconds, number(expected["expiry"]) ?? 3600, title)
        XCTAssertEqual(number(expected["min_final_cltv_expiry_delta"]), invoice.statedMinFinalCLTVExpiryDelta, title)
        XCTAssertEqual(invoice.minFinalCLTVExpiryDelta, number(expected["min_final_cltv_expiry_delta"]) ?? 18, title)
        try checkFallbacks(invoice, expected: expected["fallbacks"], title: title)
        try checkRouteHints(invoice, expected: expected["route_hints"], title: title)
        guard let features = expected["features"] as? [String: Any],
              let bits = features["bits_set"] as? [Int] else { throw MissingField(name: "features") }
        XCTAssertEqual(invoice.features.bits, bits, title)
        XCTAssertEqual(invoice.features.words.count, Int(number(features["data_length"]) ?? 0), title)
        XCTAssertEqual(try expected.optionalBytes("payee_pubkey_field"), invoice.statedPayeeNodeID?.compressed, title)
        XCTAssertEqual(try expected.bytes("signature"), invoice.signature.compact, title)
        XCTAssertEqual(number(expected["recovery_id"]), UInt64(invoice.signature.recoveryID), title)
        XCTAssertEqual(expected["signature_high_s"] as? Bool, !invoice.signature.ecdsaSignature.isLowS, title)
        XCTAssertEqual(try expected.bytes("signing_data"), invoice.signingData, title)
        XCTAssertEqual(try expected.bytes("signing_hash"), invoice.signingHash, title)
        if let payee = try expected.optionalBytes("payee_pubkey") {
            XCTAssertEqual(payee, invoice.payeeNodeID.compressed, title)
        } else {
            XCTAssertNotNil(expected["payee_pubkey_recovered_with_transmitted_recovery_id"], "\(title): no payee to compare")
        }
        XCTAssertEqual(try expected.optionalBytes("metadata"), invoice.metadata, title)
        try checkSkipped(invoice, expected: expected["ignored_fields"], title: title)
    }

    private func checkFallbacks(_ invoice: Invoice, expected: Any?, title: String) throws {
        guard let list = expected as? [[String: Any]] else { throw MissingField(name: "fallbacks") }
        XCTAssertEqual(invoice.fallbacks.count, list.count, title)
        for (address, fallback) in zip(invoice.fallbacks, list) {
            XCTAssertEqual(address.encoded(for: invoice.currency.network), try fallback.string("address"), title)
            let version = number(fallback["version"])
            switch address {
            case .p2pkh(let hash):
                XCTAssertEqual(version, 17, title)
                XCTAssertEqual(hash, try fallback.bytes("hash160"), title)
            case .p2sh(let hash):
                XCTAssertEqual(version, 18, title)
                XCTAssertEqual(hash, try fallback.bytes("hash160"), title)
            default:
                XCTAssertEqual(address.witnessParts.map { UInt64($0.version) }, version, title)
                XCTAssertEqual(address.witnessParts?.program, try fallback.bytes("witness_program"), title)
            }
        }
    }

    private func checkRouteHints(_ invoice: Invoice, expected: Any?, title: String) throws {
        guard let routes = expected as? [[[String: Any]]] else { throw MissingField(name: "route_hints") }
        XCTAssertEqual(invoice.routeHints.count, routes.count, title)
        for (route, expectedRoute) in zip(invoice.routeHints, routes) {
            XCTAssertEqual(route.count, expectedRoute.count, title)
            for (hop, expectedHop) in zip(route, expectedRoute) {
                XCTAssertEqual(hop.nodeID.compressed.hex, try expectedHop.string("pubkey"), title)
                XCTAssertEqual(hop.shortChannelID.description, try expectedHop.string("short_channel_id"), title)
                XCTAssertEqual(hop.shortChannelID.rawValue, UInt64(try expectedHop.string("short_channel_id_hex"), radix: 16), title)
                XCTAssertEqual(UInt64(hop.feeBaseMsat), number(expectedHop["fee_base_msat"]), title)
                XCTAssertEqual(UInt64(hop.feeProportionalMillionths), number(expectedHop["fee_proportional_millionths"]), title)
                XCTAssertEqual(UInt64(hop.cltvExpiryDelta), number(expectedHop["cltv_expiry_delta"]), title)
            }
        }
    }

    private func checkSkipped(_ invoice: Invoice, expected: Any?, title: String) throws {
        let list = expected as? [[String: Any]] ?? []
        let skipped = invoice.skippedFields
        XCTAssertEqual(skipped.count, list.count, title)
        for (field, expectedField) in zip(skipped, list) {
            XCTAssertEqual(String(TaggedField.tag(field.type)), try expectedField.string("tag"), title)
            XCTAssertEqual(UInt64(field.words.count), number(expectedField["data_length"]), title)
            if let type = number(expectedField["type"]) {
                XCTAssertEqual(UInt64(field.type), type, title)
            }
        }
    }

    /// A JSON integer, nil for null or absent.
    private func number(_ value: Any?) -> UInt64? {
        (value as? NSNumber)?.uint64Value
    }
}
