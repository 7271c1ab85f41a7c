import Transport

/// The user's contacts, kept in the node's database and edited from the CLI.
public protocol ContactStore: Sendable {
    /// Adds a contact, or updates the name, host and port of the one with the same pubky
    /// (keeping its `addedAt`). Refused when another contact already has the name.
    func saveContact(_ contact: SavedContact) async throws(StoreError)
    /// All contacts, by name.
    func contacts() async throws(StoreError) -> [SavedContact]
    func contact(pubky: Pubky) async throws(StoreError) -> SavedContact?
    func contact(named name: String) async throws(StoreError) -> SavedContact?
    /// True when a contact was removed.
    @discardableResult
    func removeContact(pubky: Pubky) async throws(StoreError) -> Bool
}
