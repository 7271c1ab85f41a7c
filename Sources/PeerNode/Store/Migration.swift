/// One schema step: the statements that take the database from `version - 1` to
/// `version`. Statements are constants (`StaticString`); a migration never carries data.
struct Migration: Sendable {
    let version: Int32
    let statements: [StaticString]
}
