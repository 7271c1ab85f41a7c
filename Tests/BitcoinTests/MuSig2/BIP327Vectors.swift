import TestSupport
import XCTest
@testable import Bitcoin

/// Reading `bip327/*.json` the way BIP327's reference tests do: hex arrays indexed by the
/// cases, and error objects turned into the `BitcoinError` our code must throw.
enum BIP327Vectors {
    static func file(_ name: String) throws -> [String: Any] {
        try XCTUnwrap(try Vectors.json("bip327/\(name)_vectors.json") as? [String: Any])
    }

    static func hexList(_ object: [String: Any], _ key: String) throws -> [[UInt8]] {
        try XCTUnwrap(object[key] as? [String], "\(key)").map { bytes($0) }
    }

    static func hex(_ object: [String: Any], _ key: String) throws -> [UInt8] {
        bytes(try XCTUnwrap(object[key] as? String, "\(key)"))
    }

    /// A hex field that may be JSON null (nil); "" is the empty byte string, not null.
    static func optionalHex(_ object: [String: Any], _ key: String) -> [UInt8]? {
        (object[key] as? String).map { bytes($0) }
    }

    static func indices(_ object: [String: Any], _ key: String) throws -> [Int] {
        try XCTUnwrap(object[key] as? [Int], "\(key)")
    }

    /// KeyAgg then ApplyTweak for each tweak, in order, as the reference's key_agg_and_tweak.
    static func keyAggregation(keys: [[UInt8]], tweaks: [[UInt8]], xOnly: [Bool]) throws -> MuSig2KeyAggregation {
        XCTAssertEqual(tweaks.count, xOnly.count)
        var aggregation = try MuSig2KeyAggregation(serializedKeys: keys)
        for (tweak, isXOnly) in zip(tweaks, xOnly) {
            aggregation = try aggregation.tweaked(by: tweak, xOnly: isXOnly)
        }
        return aggregation
    }

    /// The error a vector's `error` object asks for.
    static func expectedError(_ test: [String: Any]) throws -> BitcoinError {
        let error = try XCTUnwrap(test["error"] as? [String: Any])
        switch error["type"] as? String {
        case "invalid_contribution":
            let contribution = try XCTUnwrap(MuSig2Error.Contribution(rawValue: try XCTUnwrap(error["contrib"] as? String)))
            return .musig2(.invalidContribution(signer: error["signer"] as? Int, contribution))
        case "value":
            switch error["message"] as? String {
            case "The tweak must be less than n.": return .musig2(.tweakOutOfRange)
            case "The result of tweaking cannot be infinity.": return .musig2(.tweakResultIsInfinity)
            case "The signer's pubkey must be included in the list of pubkeys.": return .musig2(.signerNotInKeyList)
            case "first secnonce value is out of range.": return .musig2(.secretNonceOutOfRange(part: 1))
            case "second secnonce value is out of range.": return .musig2(.secretNonceOutOfRange(part: 2))
            default: throw MissingField(name: "known error message (got \(error))")
            }
        default:
            throw MissingField(name: "known error type (got \(error))")
        }
    }

    /// Asserts that `body` throws exactly `expected`.
    static func assertThrows<T>(_ expected: BitcoinError, _ context: String, file: StaticString = #filePath, line: UInt = #line,
                                _ body: () throws -> T) {
        do {
            _ = try body()
            XCTFail("\(context): expected \(expected), nothing thrown", file: file, line: line)
        } catch {
            XCTAssertEqual(error as? BitcoinError, expected, context, file: file, line: line)
        }
    }
}
