#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The passphrase of a Pubky recovery file, never from the command line (argv is readable
/// by every user of the machine and kept in shell histories): from the file named by
/// `PEERNODE_PUBKY_PASSPHRASE_FILE` (for scripts; one trailing newline dropped), else typed
/// at a prompt on the terminal with echo off.
enum Passphrase {
    static let fileVariable = "PEERNODE_PUBKY_PASSPHRASE_FILE"

    static func read(for file: String) throws(UsageError) -> [UInt8] {
        if let named = getenv(fileVariable).map({ String(cString: $0) }) {
            guard var bytes = Context.readSmallBytes(named) else {
                throw UsageError("\(fileVariable) names \(named), which cannot be read", command: "init")
            }
            if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            return bytes
        }
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else {
            throw UsageError("the recovery file's passphrase is asked on a terminal; without one, name a file holding it in "
                             + "\(fileVariable)", command: "init")
        }
        defer { close(tty) }
        write(tty, "passphrase for \(file) (empty if it has none): ")
        var saved = termios()
        let canHide = tcgetattr(tty, &saved) == 0
        if canHide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(tty, TCSAFLUSH, &quiet)
        }
        defer {
            if canHide { _ = tcsetattr(tty, TCSAFLUSH, &saved) }
            write(tty, "\n")
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 4_096 {
            let count = Glibc.read(tty, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return bytes
    }

    private static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }
}
