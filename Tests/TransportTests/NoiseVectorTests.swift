import Bitcoin
import TestSupport
import XCTest
@testable import Transport

/// Every 25519/ChaChaPoly/BLAKE2b|SHA256 vector of cacophony and snow (see
/// `Tests/Data/vectors/noise/SOURCES.md`): both sides run with the vector's fixed keys,
/// every ciphertext must match byte for byte and decrypt to the payload on the other side.
final class NoiseVectorTests: XCTestCase {
    func testCacophonyVectors() throws {
        let results = try runFile("noise/cacophony_25519_ChaChaPoly_BLAKE2b_SHA256.json")
        XCTAssertEqual(results.passed, 118, "every cacophony vector must run and pass")
        XCTAssertEqual(results.total, 118)
        // cacophony publishes the final handshake hash for every vector.
        XCTAssertEqual(results.handshakeHashesChecked, 118)
    }

    func testSnowVectors() throws {
        let results = try runFile("noise/snow_25519_ChaChaPoly_BLAKE2b_SHA256.json")
        XCTAssertEqual(results.passed, 102, "every snow vector must run and pass")
        XCTAssertEqual(results.total, 102)
    }

    /// The vectors cover peernode's own protocol (XK, BLAKE2b) in both files.
    func testVectorsIncludePeernodeProtocol() throws {
        for file in ["noise/cacophony_25519_ChaChaPoly_BLAKE2b_SHA256.json",
                     "noise/snow_25519_ChaChaPoly_BLAKE2b_SHA256.json"] {
            let names = try vectors(in: file).map { try $0.string("protocol_name") }
            XCTAssertTrue(names.contains(NoiseProtocolName.peernode.description), file)
        }
    }

    private struct FileResults {
        var total = 0
        var passed = 0
        var handshakeHashesChecked = 0
    }

    private func vectors(in file: String) throws -> [[String: Any]] {
        guard let root = try Vectors.json(file) as? [String: Any],
              let list = root["vectors"] as? [[String: Any]] else { throw MissingField(name: "vectors") }
        return list
    }

    private func runFile(_ file: String) throws -> FileResults {
        var results = FileResults()
        for vector in try vectors(in: file) {
            results.total += 1
            let name = (vector["protocol_name"] as? String) ?? "?"
            do {
                if try run(vector) { results.handshakeHashesChecked += 1 }
                results.passed += 1
            } catch {
                XCTFail("\(file): \(name): \(error)")
            }
        }
        return results
    }

    private struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    private func expect(_ actual: [UInt8], _ expected: [UInt8], _ what: String) throws {
        guard actual == expected else {
            throw Mismatch(description: "\(what): got \(actual.hex), expected \(expected.hex)")
        }
    }

    /// Runs one vector; returns whether it carried a handshake hash that was checked.
    private func run(_ vector: [String: Any]) throws -> Bool {
        let protocolName = try NoiseProtocolName(try vector.string("protocol_name"))
        let pattern = protocolName.pattern
        func keyPair(_ field: String) throws -> DH25519.KeyPair? {
            try vector.optionalBytes(field).map { try DH25519.KeyPair(privateKey: $0) }
        }
        func psks(_ field: String) throws -> [[UInt8]] {
            try ((vector[field] as? [String]) ?? []).map {
                guard let key = [UInt8](hex: $0) else { throw MissingField(name: field) }
                return key
            }
        }
        var initiator = try HandshakeState(
            protocolName: protocolName, role: .initiator, prologue: try vector.bytes("init_prologue"),
            localStaticKey: try keyPair("init_static"), remoteStaticKey: try vector.optionalBytes("init_remote_static"),
            presharedKeys: try psks("init_psks"), fixedEphemeralKeyForVectorTestsOnly: try keyPair("init_ephemeral"))
        var responder = try HandshakeState(
            protocolName: protocolName, role: .responder, prologue: try vector.bytes("resp_prologue"),
            localStaticKey: try keyPair("resp_static"), remoteStaticKey: try vector.optionalBytes("resp_remote_static"),
            presharedKeys: try psks("resp_psks"), fixedEphemeralKeyForVectorTestsOnly: try keyPair("resp_ephemeral"))

        guard let messages = vector["messages"] as? [[String: Any]] else { throw MissingField(name: "messages") }
        guard messages.count >= pattern.messages.count else {
            throw Mismatch(description: "fewer messages than the pattern's handshake")
        }

        for index in 0..<pattern.messages.count {
            let payload = try messages[index].bytes("payload")
            let expected = try messages[index].bytes("ciphertext")
            let message: [UInt8]
            let received: [UInt8]
            if index % 2 == 0 {
                message = try initiator.writeMessage(payload: payload)
                received = try responder.readMessage(message)
            } else {
                message = try responder.writeMessage(payload: payload)
                received = try initiator.readMessage(message)
            }
            try expect(message, expected, "handshake message \(index)")
            try expect(received, payload, "handshake payload \(index)")
        }
        guard initiator.isHandshakeFinished, responder.isHandshakeFinished else {
            throw Mismatch(description: "handshake did not finish after the pattern's messages")
        }
        try expect(initiator.handshakeHash, responder.handshakeHash, "handshake hashes of the two sides")
        let expectedHash = try vector.optionalBytes("handshake_hash")
        if let expectedHash {
            try expect(initiator.handshakeHash, expectedHash, "handshake_hash")
        }

        var initiatorTransport = try initiator.intoTransportState()
        var responderTransport = try responder.intoTransportState()
        for index in pattern.messages.count..<messages.count {
            let payload = try messages[index].bytes("payload")
            let expected = try messages[index].bytes("ciphertext")
            // SOURCES.md: even index = initiator, odd = responder; one-way: always the initiator.
            let message: [UInt8]
            let received: [UInt8]
            if pattern.isOneWay || index % 2 == 0 {
                message = try initiatorTransport.writeMessage(payload)
                received = try responderTransport.readMessage(message)
            } else {
                message = try responderTransport.writeMessage(payload)
                received = try initiatorTransport.readMessage(message)
            }
            try expect(message, expected, "transport message \(index)")
            try expect(received, payload, "transport payload \(index)")
        }
        return expectedHash != nil
    }
}
