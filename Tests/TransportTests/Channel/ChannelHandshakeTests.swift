import XCTest
@testable import Transport

/// The pure handshake machine, driven by hand: no streams, no tasks.
final class ChannelHandshakeTests: XCTestCase {
    private let limits = ChannelLimits()

    func testBothSidesFinishAndLearnEachOther() throws {
        var initiator = try ChannelHandshake(initiator: ChannelFixtures.alice, expecting: ChannelFixtures.bob.pubky, limits: limits)
        var responder = try ChannelHandshake(responder: ChannelFixtures.bob, limits: limits)
        let first = initiator.start()
        XCTAssertEqual(first.send.count, 2 + 48)
        let second = responder.receive(first.send)
        XCTAssertEqual(second.outcome, .needMoreBytes)
        XCTAssertEqual(second.send.count, 2 + 48)
        let third = initiator.receive(second.send)
        XCTAssertEqual(third.outcome, .finished)
        XCTAssertEqual(third.send.count, 2 + 96)
        // The initiator's first transport frame rides along with message 3.
        var initiatorSession = try initiator.finish()
        let early = try initiatorSession.seal(Array("hello".utf8))
        let last = responder.receive(third.send + early)
        XCTAssertEqual(last.outcome, .finished)
        XCTAssertEqual(responder.remotePubky, ChannelFixtures.alice.pubky)
        var responderSession = try responder.finish()
        XCTAssertEqual(try responderSession.open([]), [Array("hello".utf8)])
        XCTAssertEqual(initiatorSession.remotePubky, ChannelFixtures.bob.pubky)
        XCTAssertEqual(responderSession.handshakeHash, initiatorSession.handshakeHash)
    }

    func testWrongKeyIsRefusedNamingBothPubkys() throws {
        // Alice thinks Bob is at the address; Carol answers.
        var initiator = try ChannelHandshake(initiator: ChannelFixtures.alice, expecting: ChannelFixtures.bob.pubky, limits: limits)
        var responder = try ChannelHandshake(responder: ChannelFixtures.carol, limits: limits)
        let refusal = responder.receive(initiator.start().send)
        XCTAssertEqual(refusal.outcome, .failed(.notForThisNode))
        let result = initiator.receive(refusal.send)
        let expected = ChannelError.wrongRemotePubky(expected: ChannelFixtures.bob.pubky, reached: ChannelFixtures.carol.pubky)
        XCTAssertEqual(result.outcome, .failed(expected))
        XCTAssertTrue(expected.description.contains(ChannelFixtures.bob.pubky.z32))
        XCTAssertTrue(expected.description.contains(ChannelFixtures.carol.pubky.z32))
    }

    func testInitiatorWhosePubkyDoesNotMatchItsStaticKeyIsRefused() throws {
        // Mallory holds her own static key but claims Alice's pubky in message 3.
        var noise = try HandshakeState.peernodeInitiator(identity: ChannelFixtures.mallory, contact: ChannelFixtures.bob.pubky)
        var responder = try ChannelHandshake(responder: ChannelFixtures.bob, limits: limits)
        let second = responder.receive(Frame.encode(try noise.writeMessage(payload: [])))
        _ = try noise.readMessage(Array(second.send.dropFirst(2)))
        let third = Frame.encode(try noise.writeMessage(payload: ChannelFixtures.alice.publicKey))
        XCTAssertEqual(responder.receive(third).outcome, .failed(.initiatorKeyMismatch(claimed: ChannelFixtures.alice.pubky)))
    }

    func testInitiatorWithoutAPubkyPayloadIsRefused() throws {
        var noise = try HandshakeState.peernodeInitiator(identity: ChannelFixtures.alice, contact: ChannelFixtures.bob.pubky)
        var responder = try ChannelHandshake(responder: ChannelFixtures.bob, limits: limits)
        let second = responder.receive(Frame.encode(try noise.writeMessage(payload: [])))
        _ = try noise.readMessage(Array(second.send.dropFirst(2)))
        let third = Frame.encode(try noise.writeMessage(payload: [1, 2, 3]))
        XCTAssertEqual(responder.receive(third).outcome, .failed(.invalidInitiatorIdentity))
    }

    func testGarbageBeforeTheHandshakeFailsOnFraming() throws {
        var responder = try ChannelHandshake(responder: ChannelFixtures.bob, limits: limits)
        let step = responder.receive(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        XCTAssertEqual(step.outcome, .failed(.frameTooLarge(length: 0x4745, limit: ChannelHandshake.maxFrameLength)))
        XCTAssertEqual(step.send, [])
    }

    func testShortFirstMessageIsAHandshakeFailureWithoutIdentityHint() throws {
        var responder = try ChannelHandshake(responder: ChannelFixtures.bob, limits: limits)
        let step = responder.receive(Frame.encode([UInt8](repeating: 9, count: 20)))
        XCTAssertEqual(step.outcome, .failed(.handshakeFailed(.messageTooShort)))
        XCTAssertEqual(step.send, [])
        // Long enough for a key but not a whole message 1: no identity hint either.
        var other = try ChannelHandshake(responder: ChannelFixtures.bob, limits: limits)
        let partial = other.receive(Frame.encode([UInt8](repeating: 9, count: 40)))
        XCTAssertEqual(partial.outcome, .failed(.handshakeFailed(.decryptionFailed)))
        XCTAssertEqual(partial.send, [])
    }

    func testResponderFuzzEntryTakesArbitraryInput() throws {
        var generator = SystemRandomNumberGenerator()
        ChannelFuzzTargets.responderHandshake([])
        for _ in 0..<300 {
            let count = Int.random(in: 0..<120, using: &generator)
            ChannelFuzzTargets.responderHandshake((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        // A genuine message 1 (for another key, and for the fuzz identity's own key).
        var initiator = try ChannelHandshake(initiator: ChannelFixtures.alice, expecting: ChannelFixtures.bob.pubky, limits: limits)
        let first = initiator.start().send
        ChannelFuzzTargets.responderHandshake(first)
        ChannelFuzzTargets.responderHandshake(Array(first.dropFirst(2)))
    }
}
