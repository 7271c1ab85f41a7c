extension HTTPParser {
    /// Bounds on what a peer may make us buffer. Breaking one is an `HTTPError` for that
    /// connection only; the defaults follow common servers (16 KiB of head, 100 fields).
    public struct Limits: Sendable, Equatable {
        /// Request or status line plus every header field line, line endings included.
        /// The same bound applies to a chunked body's trailer section.
        public var maxHeaderSectionBytes: Int
        /// Header fields in one head (and trailer fields in one trailer section).
        public var maxHeaderCount: Int
        /// Body bytes in one message, whatever the framing.
        public var maxBodyBytes: Int
        /// One chunk-size line with its extensions.
        public var maxChunkLineBytes: Int

        public init(maxHeaderSectionBytes: Int = 16 * 1024, maxHeaderCount: Int = 100,
                    maxBodyBytes: Int, maxChunkLineBytes: Int = 4 * 1024) {
            self.maxHeaderSectionBytes = maxHeaderSectionBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxBodyBytes = maxBodyBytes
            self.maxChunkLineBytes = maxChunkLineBytes
        }

        /// For responses a client reads: backends may return large JSON (a whole block).
        public static let client = Limits(maxBodyBytes: 16 * 1024 * 1024)
        /// For requests a server reads: RPC calls are small, so refuse big uploads early.
        public static let server = Limits(maxBodyBytes: 1024 * 1024)
    }
}
