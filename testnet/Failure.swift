/// Why a step of a run failed, in words a person can act on. Every bounded wait that
/// runs out throws one naming what it waited for and for how long.
struct Failure: Error, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
