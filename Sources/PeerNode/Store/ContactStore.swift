import Transport

/// The user's contacts, kept in the node's database and edited from the CLI.
public protocol ContactStore: Sendable {
    /// Adds a contact, or updates the host and port of the one with the same pubky and name
    /// (keeping its `addedAt`). A contact is never renamed or re-keyed silently: when the
    /// pubky is saved under another name, or the name belongs to another pubky, nothing is
    /// written and the conflict is returned, unless `replace` (then the contact holding the
    /// name is removed and the pubky's contact takes the new name).
    func saveContact(_ contact: SavedContact, replace: Bool) async throws(StoreError) -> ContactConflict?
    /// Gives the contact with `pubky` a new name; the conflict when another contact has it.
    func renameContact(pubky: Pubky, to name: String) async throws(StoreError) -> ContactConflict?
    /// All contacts, by name.
    func contacts() async throws(StoreError) -> [SavedContact]
    func contact(pubky: Pubky) async throws(StoreError) -> SavedContact?
    func contact(named name: String) async throws(StoreError) -> SavedContact?
    /// True when a contact was removed.
    @discardableResult
    func removeContact(pubky: Pubky) async throws(StoreError) -> Bool
}
