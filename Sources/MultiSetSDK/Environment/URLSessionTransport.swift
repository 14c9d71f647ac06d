import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: `URLSession` (FoundationNetworking on Linux).
///
/// It does not report "body sent"; the SDK then enters `.awaitingResponse` at the response (SPEC §8.2).
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let session: URLSession

    /// Creates a transport over an ephemeral session.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    /// Sends the request with `URLSession.dataTask`.
    public func send(
        _ request: HTTPRequest, bodySent: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) -> any TransportTask {
        var r = URLRequest(url: request.url)
        r.httpMethod = request.method
        r.timeoutInterval = request.timeout
        for (key, value) in request.headers { r.setValue(value, forHTTPHeaderField: key) }
        if !request.body.isEmpty { r.httpBody = request.body }
        let task = session.dataTask(with: r) { data, response, error in
            if let error {
                let ns = error as NSError
                if ns.domain == NSURLErrorDomain && ns.code == NSURLErrorTimedOut {
                    completion(.failure(.timedOut))
                } else if ns.domain == NSURLErrorDomain && ns.code == NSURLErrorCancelled {
                    completion(.failure(.cancelled))
                } else {
                    completion(.failure(.network(error.localizedDescription)))
                }
                return
            }
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            completion(.success(HTTPResponse(status: status, body: data ?? Data())))
        }
        task.resume()
        return URLSessionTaskHandle(task: task)
    }
}

private struct URLSessionTaskHandle: TransportTask, @unchecked Sendable {
    let task: URLSessionDataTask
    func cancel() { task.cancel() }
}
