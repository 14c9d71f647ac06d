import Foundation
import Testing

@testable import VPSServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Real-socket tests of the libmicrohttpd wrapper through URLSession.
@Suite struct HTTPServerTests {
    static func fetch(_ request: URLRequest) async throws -> (Int, [UInt8], HTTPURLResponse) {
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, [UInt8](data), http)
    }

    @Test func echoesRequestsOverLoopback() async throws {
        let server = try HTTPServer(port: 0, threads: 2, maxBodyBytes: 1 << 20) { req in
            let echo =
                "\(req.method) \(req.path) q=\(req.query["a"] ?? "-") auth=\(req.header("Authorization") ?? "-") n=\(req.body.count)"
            return HTTPResponse(
                status: 201, headers: [("Content-Type", "text/plain"), ("X-Test", "yes\r\nInjected: 1")],
                body: Array(echo.utf8))
        }
        defer { server.stop() }
        #expect(server.port > 0)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/echo?a=1&a=2")!)
        request.httpMethod = "POST"
        request.setValue("Bearer x", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(repeating: 7, count: 100_000)
        let (status, body, http) = try await Self.fetch(request)
        #expect(status == 201)
        #expect(String(decoding: body, as: UTF8.self) == "POST /v1/echo q=2 auth=Bearer x n=100000")
        #expect(http.value(forHTTPHeaderField: "X-Test") == "yesInjected: 1")
        #expect(http.value(forHTTPHeaderField: "Injected") == nil)
    }

    @Test func oversizedBodiesGet413AndTheServerStaysHealthy() async throws {
        let server = try HTTPServer(port: 0, threads: 2, maxBodyBytes: 1000) { _ in
            HTTPResponse(status: 200, body: Array("ok".utf8))
        }
        defer { server.stop() }
        var big = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/x")!)
        big.httpMethod = "POST"
        big.httpBody = Data(repeating: 1, count: 5000)
        let (status, body, _) = try await Self.fetch(big)
        #expect(status == 413)
        #expect(String(decoding: body, as: UTF8.self).contains("PAYLOAD_TOO_LARGE"))
        let (ok, _, _) = try await Self.fetch(URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/healthz")!))
        #expect(ok == 200)
    }

    @Test func concurrentRequestsAllAnswer() async throws {
        let server = try HTTPServer(port: 0, threads: 2) { req in HTTPResponse(status: 200, body: Array(req.path.utf8))
        }
        defer { server.stop() }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for k in 0..<50 {
                group.addTask {
                    let (s, b, _) = try await Self.fetch(
                        URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/r/\(k)")!))
                    return s == 200 && String(decoding: b, as: UTF8.self) == "/r/\(k)"
                }
            }
            var all = true
            for try await ok in group { all = all && ok }
            #expect(all)
        }
    }

    @Test func refusesABadAddress() {
        #expect(throws: HTTPServer.StartError.self) {
            _ = try HTTPServer(host: "not-an-ip", port: 0) { _ in HTTPResponse(status: 200) }
        }
    }
}
