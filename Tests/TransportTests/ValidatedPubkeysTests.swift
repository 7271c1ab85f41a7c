import Bitcoin
import XCTest
@testable import Transport

/// The memo that spares a pubky read again its validation: it must give what the
/// validation gives, never let an invalid key through, and stay bounded.
final class ValidatedPubkeysTests: XCTestCase {
    func testAKeyReadAgainHasTheNoiseKeyOfItsIdentity() throws {
        let identity = NodeIdentity(seed: NodeSeed.generate())
        let text = identity.pubky.z32
        XCTAssertNotNil(Pubky.validated[identity.publicKey], "derived once, so remembered")
        // The X25519 public key computed from the identity's own private half, not from the memo.
        let expected = DH25519.KeyPair(privateKey: identity.noiseStaticKey.privateKey).publicKey
        for _ in 0..<3 {
            let read = try Pubky(parsing: text)
            XCTAssertEqual(read.noiseStaticKey, expected)
            XCTAssertEqual(read.publicKey, identity.publicKey)
        }
    }

    func testAKeyThatFailsIsRefusedEveryTimeAndNotRemembered() throws {
        // A point of small order (the identity element, y = 1): on the curve, not in the prime-order group.
        var smallOrder = [UInt8](repeating: 0, count: 32)
        smallOrder[0] = 1
        // Not on the curve: y = 2 has no x.
        var offCurve = [UInt8](repeating: 0, count: 32)
        offCurve[0] = 2
        for key in [smallOrder, offCurve] {
            for _ in 0..<2 {
                XCTAssertThrowsError(try Pubky(publicKey: key)) { XCTAssertEqual($0 as? IdentityError, .invalidEd25519PublicKey) }
            }
            XCTAssertNil(Pubky.validated[key])
        }
    }

    func testTheSetIsEmptiedWhenFull() {
        let memo = BoundedMemo<[UInt8], [UInt8]>(capacity: Pubky.validated.capacity)
        for index in 0..<(memo.capacity + 10) {
            var key = [UInt8](repeating: 0, count: 32)
            withUnsafeBytes(of: UInt32(index).littleEndian) { key.replaceSubrange(0..<4, with: $0) }
            memo.remember(key, for: key)
            XCTAssertLessThanOrEqual(memo.count, memo.capacity)
        }
        XCTAssertEqual(memo.count, 10, "emptied once at the capacity, then the last ten")
    }
}
