import Foundation
import XCTest

/// Certificates made with the openssl command-line tool and TLS servers run by Python's
/// `ssl` module: code no one here wrote, so the TLS client is checked against OpenSSL's
/// server as a real LND would be (LND itself is Go's crypto/tls).
final class TLSTestTools {
    let directory: URL
    private var servers: [Process] = []

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pn-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func stop() {
        // SIGKILL: the servers hold no state worth a clean exit.
        for server in servers where server.isRunning { kill(server.processIdentifier, SIGKILL) }
        servers = []
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs a tool and returns its standard output; fails the test on a non-zero exit.
    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "tls-test", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "\(arguments.joined(separator: " ")) failed"])
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// An ECDSA P-256 self-signed certificate `name`.cert with key `name`.key, valid for
    /// `days` from now (negative: already expired), with these subjectAltNames.
    func selfSigned(_ name: String, days: Int = 30, altNames: String = "IP:127.0.0.1,DNS:localhost",
                    isCA: Bool = false) throws {
        try run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                 "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(name)"])
        let caLine = isCA ? "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,digitalSignature\n" : ""
        try "subjectAltName=\(altNames)\n\(caLine)".write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
        try run(["openssl", "x509", "-req", "-in", path("\(name).csr"), "-signkey", path("\(name).key"),
                 "-days", "\(days)", "-extfile", path("\(name).ext"), "-out", path("\(name).cert")])
    }

    /// A leaf `name` for `altNames`, signed by the certificate `issuer` (made by `selfSigned`).
    func signed(_ name: String, by issuer: String, altNames: String) throws {
        try run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                 "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(name)"])
        try "subjectAltName=\(altNames)\n".write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
        try run(["openssl", "x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(issuer).cert"),
                 "-CAkey", path("\(issuer).key"), "-CAcreateserial", "-days", "30",
                 "-extfile", path("\(name).ext"), "-out", path("\(name).cert")])
    }

    /// `openssl x509 -fingerprint -sha256` of a certificate file: "AB:CD:…".
    func fingerprint(_ name: String) throws -> String {
        let line = try run(["openssl", "x509", "-in", path("\(name).cert"), "-noout", "-fingerprint", "-sha256"])
        return String(line.split(separator: "=", maxSplits: 1)[1]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An OPENSSL_CONF that lets OpenSSL speak TLS 1.1 (Debian's default refuses it).
    func legacyOpenSSLConfig() throws -> String {
        let text = """
        openssl_conf = default_conf
        [default_conf]
        ssl_conf = ssl_sect
        [ssl_sect]
        system_default = system_default_sect
        [system_default_sect]
        MinProtocol = TLSv1
        CipherString = DEFAULT:@SECLEVEL=0

        """
        try text.write(toFile: path("legacy.cnf"), atomically: true, encoding: .utf8)
        return path("legacy.cnf")
    }

    enum ServerMode: String {
        /// Python's ssl server with `name`'s certificate; answers each request with 200.
        case tls
        /// Python's ssl server limited to TLS 1.1.
        case tls11
        /// A plain-TCP server that answers anything with `HTTP/1.1 400` at once.
        case plain400
        /// What Go's net/http (LND) answers to plain HTTP on its TLS port.
        case goHTTPSAnswer
    }

    /// Starts a server on a free loopback port and returns the port.
    func startServer(_ mode: ServerMode, certificate name: String = "server",
                     environment: [String: String] = [:]) throws -> Int {
        let script = """
        import socket, ssl, sys
        mode, cert, key = sys.argv[1], sys.argv[2], sys.argv[3]
        context = None
        if mode in ("tls", "tls11"):
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            if mode == "tls11":
                context.set_ciphers("DEFAULT:@SECLEVEL=0")
                context.minimum_version = ssl.TLSVersion.TLSv1_1
                context.maximum_version = ssl.TLSVersion.TLSv1_1
            context.load_cert_chain(cert, key)
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        print(listener.getsockname()[1], flush=True)
        while True:
            raw, _ = listener.accept()
            try:
                if mode == "plain400":
                    raw.recv(4096)
                    raw.sendall(b"HTTP/1.1 400 Bad Request\\r\\nContent-Length: 0\\r\\nConnection: close\\r\\n\\r\\n")
                elif mode == "goHTTPSAnswer":
                    raw.recv(4096)
                    raw.sendall(b"HTTP/1.0 400 Bad Request\\r\\n\\r\\nClient sent an HTTP request to an HTTPS server.\\n")
                else:
                    conn = context.wrap_socket(raw, server_side=True)
                    data = b""
                    while b"\\r\\n\\r\\n" not in data:
                        piece = conn.recv(4096)
                        if not piece:
                            break
                        data += piece
                    body = b"hello over " + conn.version().encode()
                    conn.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(body) + body)
                    conn.close()
                    continue
                raw.close()
            except Exception as error:
                print("refused:", error, file=sys.stderr, flush=True)
                raw.close()
        """
        // The interpreter itself, not a launcher (pyenv's shim is a script that would keep
        // python as its child, out of reach of the kill in `stop`).
        let python = try run(["python3", "-c", "import sys; print(sys.executable)"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, mode.rawValue, path("\(name).cert"), path("\(name).key")]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        servers.append(process)
        var line = Data()
        while !line.contains(0x0A) {
            let piece = output.fileHandleForReading.availableData
            guard !piece.isEmpty else { break }
            line += piece
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw NSError(domain: "tls-test", code: 1, userInfo: [NSLocalizedDescriptionKey: "the test server did not start"])
        }
        return port
    }
}
