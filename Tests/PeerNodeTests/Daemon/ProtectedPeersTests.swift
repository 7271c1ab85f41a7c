@testable import PeerNode
import Transport
import XCTest

/// Whom the daemon's peer server keeps when a newcomer needs a slot: saved contacts and
/// clients with a live provider swap, each kept current by its own owner.
final class ProtectedPeersTests: XCTestCase {
    private let contact = NodeIdentity(seed: .generate()).pubky
    private let client = NodeIdentity(seed: .generate()).pubky
    private let stranger = NodeIdentity(seed: .generate()).pubky

    func testContactsAndLiveSwapClientsAreProtectedAndNoOneElse() {
        let live = LiveSwapPeers()
        let protected = ProtectedPeers([contact], liveSwaps: live)
        XCTAssertTrue(protected.contains(contact))
        XCTAssertFalse(protected.contains(client))

        live.replace(with: [client])
        XCTAssertTrue(protected.contains(client))
        XCTAssertTrue(protected.contains(contact))
        XCTAssertFalse(protected.contains(stranger))

        // The swap ended: the client is an ordinary peer again; the contact stays.
        live.replace(with: [])
        XCTAssertFalse(protected.contains(client))
        XCTAssertTrue(protected.contains(contact))

        protected.remove(contact)
        XCTAssertFalse(protected.contains(contact))
        protected.insert(stranger)
        XCTAssertTrue(protected.contains(stranger))
    }
}
