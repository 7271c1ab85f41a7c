/// Why a contact was not saved: saving it would silently change what an existing name
/// means (issue 14: `contacts add bob <carol's pubky>` turned carol into bob, so `pay bob`
/// paid carol). Nothing was written; the message says what exists and the two ways on.
public enum ContactConflict: Error, Equatable, Sendable, CustomStringConvertible {
    /// The pubky is already saved, under another name.
    case pubkySavedAs(existing: SavedContact, wanted: String)
    /// The name already belongs to another pubky.
    case nameHeldBy(existing: SavedContact)

    public var description: String {
        switch self {
        case .pubkySavedAs(let existing, let wanted):
            return "that pubky is already saved as \"\(existing.name)\" (\(existing.host):\(existing.port)); "
                + "to call it \"\(wanted)\" run `peernode contacts rename \(Self.quoted(existing.name)) \(Self.quoted(wanted))`, "
                + "or add it again with --replace"
        case .nameHeldBy(let existing):
            return "the name \"\(existing.name)\" is already used by pubky \(existing.pubky.z32) (\(existing.host):\(existing.port)); "
                + "pick another name, rename that contact first (`peernode contacts rename \(Self.quoted(existing.name)) <new>`), "
                + "or add with --replace to point \"\(existing.name)\" at the new pubky"
        }
    }

    /// A name as it must be typed in a shell when it holds spaces or quotes.
    static func quoted(_ name: String) -> String {
        let plain = name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil
            || "-_.@+".unicodeScalars.contains($0) }
        return plain ? name : "'" + name.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
