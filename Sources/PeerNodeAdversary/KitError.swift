/// Why the kit could not play its script (not what the provider did: a refusal or a
/// settle is an outcome, reported on stdout). The message goes to stderr with exit 1.
struct KitError: Error, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
