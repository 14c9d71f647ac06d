import Foundation

/// HTTP over a plain socket, for requests URLSession will not send as written (`%00`, `//`, a
/// declared body that never comes, chunk sizes, OPTIONS).
struct RawHTTP {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A connected socket (closed by `close`).
    final class Connection {
        let fd: Int32

        init(port: Int, timeoutSeconds: Int = 20) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(.EMFILE) }
            var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let ok = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard ok == 0 else {
                Glibc.close(fd)
                throw POSIXError(.ECONNREFUSED)
            }
        }

        func send(_ bytes: [UInt8]) {
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { return }
                sent += n
            }
        }

        func send(_ text: String) { send(Array(text.utf8)) }

        /// Reads one response (headers, then `Content-Length` bytes or until the peer closes).
        func receive(expectBody: Bool = true) -> Response? {
            var data: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            var headerEnd: Int?
            var needed: Int?
            while true {
                if let h = headerEnd, let n = needed, data.count >= h + n { break }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                data += buffer[0..<n]
                if headerEnd == nil, let r = Self.find([13, 10, 13, 10], in: data) {
                    headerEnd = r + 4
                    let head = String(decoding: data[0..<r], as: UTF8.self)
                    for line in head.components(separatedBy: "\r\n").dropFirst() {
                        let kv = line.split(separator: ":", maxSplits: 1)
                        if kv.count == 2, kv[0].lowercased() == "content-length" {
                            needed = expectBody ? Int(kv[1].trimmingCharacters(in: .whitespaces)) : 0
                        }
                    }
                }
            }
            guard let h = headerEnd else { return nil }
            let head = String(decoding: data[0..<(h - 4)], as: UTF8.self).components(separatedBy: "\r\n")
            let statusParts = head[0].split(separator: " ")
            guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
            var headers: [String: String] = [:]
            for line in head.dropFirst() {
                let kv = line.split(separator: ":", maxSplits: 1)
                if kv.count == 2 { headers[kv[0].lowercased()] = kv[1].trimmingCharacters(in: .whitespaces) }
            }
            let body = Array(data[h...].prefix(needed ?? data.count))
            return Response(status: status, headers: headers, body: body)
        }

        func close() { Glibc.close(fd) }

        static func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
            guard hay.count >= needle.count else { return nil }
            for i in 0...(hay.count - needle.count) where hay[i..<(i + needle.count)].elementsEqual(needle) {
                return i
            }
            return nil
        }
    }

    /// Sends a request head (and optional body bytes) on a fresh connection and reads the answer.
    static func exchange(port: Int, _ head: String, body: [UInt8] = []) -> Response? {
        guard let c = try? Connection(port: port) else { return nil }
        defer { c.close() }
        c.send(Array(head.utf8) + body)
        return c.receive(expectBody: !head.hasPrefix("HEAD "))
    }
}
