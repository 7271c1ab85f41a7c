import Transport
import XCTest
@testable import PeerNode

final class StoreContactTests: XCTestCase {
    func testContactsRoundTripListByNameAndRemove() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let bob = try SavedContact(pubky: StoreFixture.pubky(2).uri, name: "bob", host: "bob.example", port: 9735, addedAt: 100)
        let alice = try SavedContact(pubky: StoreFixture.pubky(3), name: "alice", host: "::1", port: 1, addedAt: 200)
        try await store.add(bob)
        try await store.add(alice)

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

    func testSavingAgainUpdatesTheAddressAndKeepsAddedAt() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        try await store.add(try SavedContact(pubky: StoreFixture.pubky(2), name: "bob", host: "10.0.0.1", port: 9000, addedAt: 100))
        try await store.add(try SavedContact(pubky: StoreFixture.pubky(2), name: "bob", host: "10.0.0.2", port: 9001, addedAt: 999))
        let all = try await store.contacts()
        XCTAssertEqual(all, [try SavedContact(pubky: StoreFixture.pubky(2), name: "bob", host: "10.0.0.2", port: 9001, addedAt: 100)])
    }

    /// Issue 14: `contacts add bob <carol's pubky>` renamed carol to bob, so `pay bob` paid carol.
    func testAPubkySavedUnderAnotherNameIsNotRenamedWithoutReplace() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let carol = try SavedContact(pubky: StoreFixture.pubky(2), name: "carol", host: "10.0.0.1", port: 9000, addedAt: 100)
        try await store.add(carol)
        let asBob = try SavedContact(pubky: StoreFixture.pubky(2), name: "bob", host: "10.0.0.2", port: 9001, addedAt: 999)
        let conflict = try await store.saveContact(asBob, replace: false)
        XCTAssertEqual(conflict, .pubkySavedAs(existing: carol, wanted: "bob"))
        XCTAssertTrue(conflict?.description.contains("`peernode contacts rename carol bob`") == true, "\(String(describing: conflict))")
        XCTAssertTrue(conflict?.description.contains("--replace") == true)
        let unchanged = try await store.contacts()
        XCTAssertEqual(unchanged, [carol])

        let replaced = try await store.saveContact(asBob, replace: true)
        XCTAssertNil(replaced)
        let renamed = try await store.contacts()
        XCTAssertEqual(renamed, [try SavedContact(pubky: StoreFixture.pubky(2), name: "bob", host: "10.0.0.2", port: 9001, addedAt: 100)])
    }

    func testANameUsedByAnotherContactIsRefusedAsAConflictNotADatabaseError() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let bob = try SavedContact(pubky: StoreFixture.pubky(2), name: "bob", host: "a.example", port: 1, addedAt: 1)
        try await store.add(bob)
        let other = try SavedContact(pubky: StoreFixture.pubky(3), name: "bob", host: "b.example", port: 2, addedAt: 2)
        let conflict = try await store.saveContact(other, replace: false)
        XCTAssertEqual(conflict, .nameHeldBy(existing: bob))
        XCTAssertTrue(conflict?.description.contains("already used by pubky \(bob.pubky.z32)") == true, "\(String(describing: conflict))")
        let all = try await store.contacts()
        XCTAssertEqual(all, [bob])
        // --replace: the name now means the new pubky; the old contact is gone.
        let replaced = try await store.saveContact(other, replace: true)
        XCTAssertNil(replaced)
        let now = try await store.contacts()
        XCTAssertEqual(now, [other])
    }

    func testRenameMovesANameAndRefusesOneInUse() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let bob = try SavedContact(pubky: StoreFixture.pubky(2), name: "bob", host: "a.example", port: 1, addedAt: 1)
        let carol = try SavedContact(pubky: StoreFixture.pubky(3), name: "carol", host: "b.example", port: 2, addedAt: 2)
        try await store.add(bob)
        try await store.add(carol)
        let taken = try await store.renameContact(pubky: bob.pubky, to: "carol")
        XCTAssertEqual(taken, .nameHeldBy(existing: carol))
        let renamed = try await store.renameContact(pubky: bob.pubky, to: "robert")
        XCTAssertNil(renamed)
        let all = try await store.contacts()
        XCTAssertEqual(all.map(\.name), ["carol", "robert"])
        XCTAssertEqual(all.last?.pubky, bob.pubky)
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
    /// Saves a contact that must not conflict.
    func add(_ contact: SavedContact) throws {
        if let conflict = try saveContact(contact, replace: false) { throw conflict }
    }

    fileprivate func insertRawContact() {
        try! connection.execute("INSERT INTO contacts (pubky, name, host, port, added_at) VALUES ('garbage', 'x', 'h', 1, 0)")
    }
}
