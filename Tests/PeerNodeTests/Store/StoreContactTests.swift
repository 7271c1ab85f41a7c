import Transport
import XCTest
@testable import PeerNode

final class StoreContactTests: XCTestCase {
    func testContactsRoundTripListByNameAndRemove() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let bob = try SavedContact(pubky: StoreFixture.pubky(2).uri, name: "bob", host: "bob.example", port: 9735, addedAt: 100)
        let alice = try SavedContact(pubky: StoreFixture.pubky(3), name: "alice", host: "::1", port: 1, addedAt: 200)
        try await store.saveContact(bob)
        try await store.saveContact(alice)

        let all = try await store.contacts()
        XCTAssertEqual(all, [alice, bob])
        let byKey = try await store.contact(pubky: StoreFixture.pubky(2))
        XCTAssertEqual(byKey, bob)
        let byName = try await store.contact(named: "alice")
        XCTAssertEqual(byName, alice)

        let removed = try await store.removeContact(pubky: StoreFixture.pubky(2))
        XCTAssertTrue(removed)
        let removedAgain = try await store.removeContact(pubky: StoreFixture.pubky(2))
        XCTAssertFalse(removedAgain)
        let left = try await store.contacts()
        XCTAssertEqual(left, [alice])
    }

    func testSavingAgainUpdatesAddressAndNameButKeepsAddedAt() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        try await store.saveContact(try SavedContact(pubky: StoreFixture.pubky(2), name: "bob", host: "10.0.0.1", port: 9000, addedAt: 100))
        try await store.saveContact(try SavedContact(pubky: StoreFixture.pubky(2), name: "robert", host: "10.0.0.2", port: 9001, addedAt: 999))
        let all = try await store.contacts()
        XCTAssertEqual(all, [try SavedContact(pubky: StoreFixture.pubky(2), name: "robert", host: "10.0.0.2", port: 9001, addedAt: 100)])
    }

    func testANameUsedByAnotherContactIsRefused() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let bob = try SavedContact(pubky: StoreFixture.pubky(2), name: "bob", host: "a.example", port: 1, addedAt: 1)
        try await store.saveContact(bob)
        await XCTAssertThrowsStoreError(.database(operation: "save contact", message: "another contact is already named \"bob\"")) {
            () async throws(StoreError) in
            try await store.saveContact(try! SavedContact(pubky: StoreFixture.pubky(3), name: "bob", host: "b.example", port: 2, addedAt: 2))
        }
        let all = try await store.contacts()
        XCTAssertEqual(all, [bob])
    }

    func testMalformedContactsCannotBeBuilt() {
        let key = StoreFixture.pubky(2).z32
        XCTAssertThrowsError(try SavedContact(pubky: "not-a-pubky", name: "bob", host: "h", port: 1, addedAt: 0)) { error in
            XCTAssertEqual(error as? ContactError, .invalidPubky("not a pubky: expected 52 z-base-32 characters, pk:<key>, or a URL whose last host label is the key"))
        }
        // 52 characters of z-base-32 that decode to a point that is not on the curve.
        XCTAssertThrowsError(try SavedContact(pubky: String(repeating: "9", count: 52), name: "bob", host: "h", port: 1, addedAt: 0)) { error in
            guard case .invalidPubky? = error as? ContactError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try SavedContact(pubky: key, name: "bob", host: "h", port: 0, addedAt: 0)) { error in
            XCTAssertEqual(error as? ContactError, .invalidPort(0))
        }
        XCTAssertThrowsError(try SavedContact(pubky: key, name: "bob", host: "h", port: 65536, addedAt: 0)) { error in
            XCTAssertEqual(error as? ContactError, .invalidPort(65536))
        }
        for host in ["", "bob.example:9735", "[::1]", "::g1", "1.2.3.4:80", "bad host", "a/b", String(repeating: "a", count: 254)] {
            XCTAssertThrowsError(try SavedContact(pubky: key, name: "bob", host: host, port: 1, addedAt: 0), host) { error in
                guard case .invalidHost? = error as? ContactError else { return XCTFail("\(error)") }
            }
        }
        for name in ["", " bob", "bob ", "bo\nb", "bo\u{0}b", String(repeating: "x", count: 65)] {
            XCTAssertThrowsError(try SavedContact(pubky: key, name: name, host: "h", port: 1, addedAt: 0), name) { error in
                guard case .invalidName? = error as? ContactError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertNoThrow(try SavedContact(pubky: key, name: "Bob's node ⚡", host: "bob-node_1.example", port: 65535, addedAt: 0))
        XCTAssertNoThrow(try SavedContact(pubky: key, name: "v6", host: "fe80::1:abcd", port: 1, addedAt: 0))
        XCTAssertNoThrow(try SavedContact(pubky: key, name: "v4", host: "192.168.0.1", port: 1, addedAt: 0))
    }

    func testAContactRowThatIsNoLongerValidIsReportedNotUsed() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        await store.insertRawContact()
        await XCTAssertThrowsStoreError(.corrupt("a stored contact is invalid (not a valid pubky: not a pubky: expected 52 z-base-32 characters, pk:<key>, or a URL whose last host label is the key)")) {
            () async throws(StoreError) in try await store.contacts()
        }
    }
}

extension SQLiteSwapStore {
    fileprivate func insertRawContact() {
        try! connection.execute("INSERT INTO contacts (pubky, name, host, port, added_at) VALUES ('garbage', 'x', 'h', 1, 0)")
    }
}
