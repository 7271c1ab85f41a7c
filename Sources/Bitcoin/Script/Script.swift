/// A Bitcoin script as its serialized bytes. Building from opcodes always produces the
/// canonical encoding; parsing reports a push that runs past the end instead of trapping.
public struct Script: Hashable, Sendable, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(bytes: [UInt8] = []) { self.bytes = bytes }

    public init(_ opcodes: [Opcode]) {
        var writer = ByteWriter()
        for op in opcodes { op.write(to: &writer) }
        bytes = writer.bytes
    }

    public var isEmpty: Bool { bytes.isEmpty }
    public var count: Int { bytes.count }

    /// The script's elements in order. Throws when a push announces more bytes than remain.
    public func opcodes() throws -> [Opcode] {
        var reader = ByteReader(bytes)
        var result: [Opcode] = []
        while !reader.isAtEnd {
            result.append(try Opcode.read(from: &reader))
        }
        return result
    }

    /// Appends the elements' encodings (data pushes exactly as given, not re-minimised).
    public static func + (lhs: Script, rhs: [Opcode]) -> Script {
        Script(bytes: lhs.bytes + Script(rhs).bytes)
    }

    /// Assembly in Core's style; undecodable tails are shown as `[error]`.
    public var description: String {
        var reader = ByteReader(bytes)
        var parts: [String] = []
        while !reader.isAtEnd {
            guard let op = try? Opcode.read(from: &reader) else {
                parts.append("[error]")
                break
            }
            parts.append(op.assembly)
        }
        return parts.joined(separator: " ")
    }
}
