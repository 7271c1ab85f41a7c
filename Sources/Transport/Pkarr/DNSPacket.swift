/// A DNS message as pkarr carries it: a header and, in practice, answers only. Questions,
/// authority and additional records are read and kept so a packet decodes and re-encodes
/// whole, but pkarr names only answers.
///
/// At most 1,000 bytes either way (pkarr `design/base.md`): `encode()` refuses to make a
/// larger packet and `init(decoding:)` to read one.
public struct DNSPacket: Sendable, Hashable {
    public static let maxLength = 1000
    public static let headerLength = 12
    /// QR (a response) and AA (authoritative), as pkarr packets are written.
    public static let answerFlags: UInt16 = 0x8400

    public struct Question: Sendable, Hashable {
        public let name: DNSName
        public let type: UInt16
        public let questionClass: UInt16
    }

    public let id: UInt16
    public let flags: UInt16
    public let questions: [Question]
    public let answers: [DNSRecord]
    public let authority: [DNSRecord]
    public let additional: [DNSRecord]

    public init(answers: [DNSRecord], id: UInt16 = 0, flags: UInt16 = DNSPacket.answerFlags,
                questions: [Question] = [], authority: [DNSRecord] = [], additional: [DNSRecord] = []) {
        self.id = id
        self.flags = flags
        self.questions = questions
        self.answers = answers
        self.authority = authority
        self.additional = additional
    }

    /// The wire form, names compressed.
    public func encode() throws(PkarrError) -> [UInt8] {
        var writer = DNSWriter()
        writer.u16(id)
        writer.u16(flags)
        for count in [questions.count, answers.count, authority.count, additional.count] {
            guard count <= Int(UInt16.max) else { throw .packetTooLarge(Int.max) }
            writer.u16(UInt16(count))
        }
        for question in questions {
            writer.name(question.name)
            writer.u16(question.type)
            writer.u16(question.questionClass)
            guard writer.bytes.count <= Self.maxLength else { throw .packetTooLarge(writer.bytes.count) }
        }
        for record in answers + authority + additional {
            try record.encode(into: &writer)
            guard writer.bytes.count <= Self.maxLength else { throw .packetTooLarge(writer.bytes.count) }
        }
        return writer.bytes
    }

    /// Parses `bytes` whole: every counted entry present, nothing after the last.
    public init(decoding bytes: [UInt8]) throws(PkarrError) {
        guard bytes.count <= Self.maxLength else { throw .packetTooLarge(bytes.count) }
        var reader = DNSReader(bytes)
        id = try reader.u16("the header")
        flags = try reader.u16("the header")
        let questionCount = try reader.u16("the header")
        let answerCount = try reader.u16("the header")
        let authorityCount = try reader.u16("the header")
        let additionalCount = try reader.u16("the header")
        var questions: [Question] = []
        for _ in 0..<questionCount {
            let name = try reader.name("a question")
            let type = try reader.u16("a question")
            questions.append(Question(name: name, type: type, questionClass: try reader.u16("a question")))
        }
        self.questions = questions
        answers = try Self.records(answerCount, &reader)
        authority = try Self.records(authorityCount, &reader)
        additional = try Self.records(additionalCount, &reader)
        guard reader.remaining == 0 else { throw .trailingBytes(reader.remaining) }
    }

    private static func records(_ count: UInt16, _ reader: inout DNSReader) throws(PkarrError) -> [DNSRecord] {
        var records: [DNSRecord] = []
        for _ in 0..<count {
            records.append(try DNSRecord.decode(from: &reader))
        }
        return records
    }

    /// The answers named `name`.
    public func answers(named name: DNSName) -> [DNSRecord] {
        answers.filter { $0.name == name }
    }
}
