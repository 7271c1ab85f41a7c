import TestSupport
import XCTest
@testable import Bitcoin

/// BIP173 and BIP350 test vectors from `Tests/Data/vectors/bech32`: the checksum
/// primitive (valid and invalid strings of both variants) and segwit addresses.
final class Bech32VectorTests: XCTestCase {
    private func group(_ bip: String, _ name: String, count: Int,
                       file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let root = try XCTUnwrap(try Vectors.json("bech32/bech32_bip173_bip350.json") as? [String: Any])
        let section = try XCTUnwrap(root[bip] as? [String: Any], "missing \(bip)", file: file, line: line)
        let rows = try XCTUnwrap(section[name] as? [[String: Any]], "missing \(bip).\(name)", file: file, line: line)
        XCTAssertEqual(rows.count, count, "\(bip).\(name) row count", file: file, line: line)
        return rows
    }

    /// What each vector's stated reason must show up as in our error, so a string is
    /// rejected for the reason the BIP gives and not by accident.
    private static let reasonMessages: [String: [String]] = [
        "HRP character out of range": ["space, control or non-ASCII"],
        "overall max length exceeded": ["longer than the limit"],
        "No separator character": ["no '1' separator"],
        "Empty HRP": ["empty human-readable part"],
        "empty HRP": ["empty human-readable part"],
        "Invalid data character": ["not a bech32 character"],
        "Too short checksum": ["too short to hold a checksum"],
        "Invalid character in checksum": ["not a bech32 character", "space, control or non-ASCII"],
        "checksum calculated with uppercase form of HRP": ["checksum mismatch"],
        "Invalid human-readable part": ["for no Bitcoin network"],
        "Invalid checksum": ["checksum mismatch"],
        "Invalid checksum (Bech32 instead of Bech32m)": ["must use the bech32m checksum"],
        "Invalid checksum (Bech32m instead of Bech32)": ["must use the bech32 checksum"],
        "Invalid witness version": ["does not exist"],
        "Invalid program length": ["outside 2 to 40"],
        "Invalid program length (1 byte)": ["is 1 bytes, outside 2 to 40"],
        "Invalid program length (41 bytes)": ["is 41 bytes, outside 2 to 40"],
        "Invalid program length for witness version 0 (per BIP141)": ["not 20 or 32"],
        "Mixed case": ["mixes upper and lower case"],
        "zero padding of more than 4 bits": ["invalid padding"],
        "Non-zero padding in 8-to-5 conversion": ["invalid padding"],
        "Empty data section": ["no witness version"],
    ]

    private func assertFails(_ body: () throws -> Void, reason: String, _ label: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        guard let expected = Self.reasonMessages[reason] else {
            XCTFail("vector reason not mapped to an error: \(reason)", file: file, line: line)
            return
        }
        do {
            try body()
            XCTFail("\(label) was accepted; expected failure: \(reason)", file: file, line: line)
        } catch {
            let message = String(describing: error)
            XCTAssertTrue(expected.contains { message.contains($0) },
                          "\(label): got \"\(message)\" for \"\(reason)\"", file: file, line: line)
        }
    }

    // MARK: checksum primitive

    private func checkValidStrings(_ rows: [[String: Any]], encoding: Bech32.Encoding) throws -> Int {
        var checked = 0
        for row in rows {
            let string = try XCTUnwrap(row["string"] as? String)
            let raw = bytes(try XCTUnwrap(row["string_hex"] as? String))
            XCTAssertEqual(raw, Array(string.utf8), "string_hex matches string")
            let decoded = try Bech32.decode(string)
            XCTAssertEqual(try Bech32.decode(bytes: raw), decoded)
            XCTAssertEqual(decoded.encoding, encoding, string)
            XCTAssertEqual(Bech32.encode(hrp: decoded.hrp, data: decoded.data, encoding: encoding), string.lowercased())
            // Any single-character change in the data part must break the checksum.
            var corrupted = Array(string.lowercased().utf8)
            let last = corrupted.count - 1
            corrupted[last] = corrupted[last] == UInt8(ascii: "q") ? UInt8(ascii: "p") : UInt8(ascii: "q")
            XCTAssertThrowsError(try Bech32.decode(bytes: corrupted), "corrupted \(string)")
            checked += 1
        }
        return checked
    }

    private func checkInvalidStrings(_ rows: [[String: Any]]) throws -> Int {
        var checked = 0
        for row in rows {
            let string = try XCTUnwrap(row["string"] as? String)
            let raw = bytes(try XCTUnwrap(row["string_hex"] as? String))
            let reason = try XCTUnwrap(row["reason"] as? String)
            // Raw bytes as the BIP means them (0x80 is one byte), and the JSON string as
            // UTF-8 (where U+0080 is two): both must fail, for the stated reason.
            assertFails({ _ = try Bech32.decode(bytes: raw) }, reason: reason, "bytes \(row["string_hex"] ?? "")")
            assertFails({ _ = try Bech32.decode(string) }, reason: reason, "string \(row["string_hex"] ?? "")")
            checked += 1
        }
        return checked
    }

    func testValidBech32Strings() throws {
        let rows = try group("bip173", "valid_bech32_strings", count: 7)
        XCTAssertEqual(try checkValidStrings(rows, encoding: .bech32), 7)
    }

    func testValidBech32mStrings() throws {
        let rows = try group("bip350", "valid_bech32m_strings", count: 7)
        XCTAssertEqual(try checkValidStrings(rows, encoding: .bech32m), 7)
    }

    func testInvalidBech32Strings() throws {
        let rows = try group("bip173", "invalid_bech32_strings", count: 12)
        XCTAssertEqual(try checkInvalidStrings(rows), 12)
    }

    func testInvalidBech32mStrings() throws {
        let rows = try group("bip350", "invalid_bech32m_strings", count: 14)
        XCTAssertEqual(try checkInvalidStrings(rows), 14)
    }

    // MARK: segwit addresses

    private func checkValidAddress(_ row: [String: Any]) throws {
        let string = try XCTUnwrap(row["address"] as? String)
        let script = bytes(try XCTUnwrap(row["scriptPubKey"] as? String))
        let hrp = try XCTUnwrap(row["hrp"] as? String)
        let version = try XCTUnwrap(row["witness_version"] as? Int)
        let program = bytes(try XCTUnwrap(row["witness_program"] as? String))

        let segwit = try SegwitAddress(string)
        XCTAssertEqual(segwit.hrp, hrp, string)
        XCTAssertEqual(Int(segwit.version), version, string)
        XCTAssertEqual(segwit.program, program, string)
        XCTAssertEqual(segwit.encoded, string.lowercased())

        let (address, networks) = try Address.decodeAnyNetwork(string)
        XCTAssertEqual(networks, Network.networks(bech32HRP: hrp), string)
        XCTAssertEqual(address.scriptPubKey, script, string)
        XCTAssertEqual(try Address(scriptPubKey: script), address, string)
        for network in networks {
            XCTAssertEqual(try Address(string, network: network), address)
            XCTAssertEqual(address.encoded(for: network), string.lowercased())
        }
    }

    func testValidSegwitAddressesBIP350() throws {
        let rows = try group("bip350", "valid_segwit_addresses", count: 8)
        var checked = 0
        for row in rows {
            try checkValidAddress(row)
            checked += 1
        }
        XCTAssertEqual(checked, 8)
    }

    /// BIP173's v0 examples are still valid; its v1+ examples carry the bech32
    /// checksum that BIP350 retired, so they must decode as bech32 strings with a
    /// valid program and yet be refused as addresses for that reason alone.
    func testValidSegwitAddressesBIP173() throws {
        let rows = try group("bip173", "valid_segwit_addresses", count: 6)
        var stillValid = 0, superseded = 0
        for row in rows {
            let string = try XCTUnwrap(row["address"] as? String)
            if try XCTUnwrap(row["valid_under_bip350"] as? Bool) {
                try checkValidAddress(row)
                stillValid += 1
            } else {
                let decoded = try Bech32.decode(string)
                XCTAssertEqual(decoded.encoding, .bech32)
                XCTAssertEqual(decoded.data.first.map(Int.init), row["witness_version"] as? Int)
                XCTAssertEqual(Bech32.convertBits(Array(decoded.data.dropFirst()), from: 5, to: 8, pad: false),
                               bytes(try XCTUnwrap(row["witness_program"] as? String)))
                assertFails({ _ = try Address.decodeAnyNetwork(string) },
                            reason: "Invalid checksum (Bech32 instead of Bech32m)", string)
                superseded += 1
            }
        }
        XCTAssertEqual(stillValid, 3)
        XCTAssertEqual(superseded, 3)
    }

    private func checkInvalidAddresses(_ rows: [[String: Any]]) throws -> Int {
        var checked = 0
        for row in rows {
            let string = try XCTUnwrap(row["address"] as? String)
            let reason = try XCTUnwrap(row["reason"] as? String)
            assertFails({ _ = try Address.decodeAnyNetwork(string) }, reason: reason, string)
            for network in Network.allCases {
                XCTAssertThrowsError(try Address(string, network: network), "\(string) on \(network)")
            }
            checked += 1
        }
        return checked
    }

    func testInvalidSegwitAddressesBIP173() throws {
        let rows = try group("bip173", "invalid_segwit_addresses", count: 10)
        XCTAssertEqual(try checkInvalidAddresses(rows), 10)
    }

    func testInvalidSegwitAddressesBIP350() throws {
        let rows = try group("bip350", "invalid_segwit_addresses", count: 15)
        XCTAssertEqual(try checkInvalidAddresses(rows), 15)
    }

    // MARK: 8 <-> 5 bit conversion

    func testConvertBitsRoundTripAndPaddingRules() throws {
        for length in 0...40 {
            let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let five = try XCTUnwrap(Bech32.convertBits(data, from: 8, to: 5, pad: true))
            XCTAssertEqual(five.count, (length * 8 + 4) / 5)
            XCTAssertEqual(Bech32.convertBits(five, from: 5, to: 8, pad: false), data)
        }
        XCTAssertNil(Bech32.convertBits([32], from: 5, to: 8, pad: false), "value wider than 5 bits")
        XCTAssertNil(Bech32.convertBits([0, 1], from: 5, to: 8, pad: false), "non-zero padding bits")
        XCTAssertNil(Bech32.convertBits([0, 0, 0, 0, 0, 0, 0, 0, 0], from: 5, to: 8, pad: false), "5 padding bits")
    }
}
