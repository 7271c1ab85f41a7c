/// The segregated witness of one input: a stack of byte strings.
public struct Witness: Hashable, Sendable {
    public var stack: [[UInt8]]

    public init(_ stack: [[UInt8]] = []) { self.stack = stack }

    public var isEmpty: Bool { stack.isEmpty }

    func write(to writer: inout ByteWriter) {
        writer.writeCompactSize(stack.count)
        for item in stack { writer.writeVarBytes(item) }
    }

    static func read(from reader: inout ByteReader) throws -> Witness {
        let count = try reader.readCompactSize()
        var stack: [[UInt8]] = []
        for _ in 0..<count { stack.append(try reader.readVarBytes(what: "witness item")) }
        return Witness(stack)
    }
}
