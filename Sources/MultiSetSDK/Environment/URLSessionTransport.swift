import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: `URLSession` (FoundationNetworking on Linux), with a session delegate so
/// the SDK learns when a request body has left (SPEC §8.2): `.awaitingResponse` then starts when the
/// last body byte is sent, not when the answer arrives.
///
/// Requests with a body go out as upload tasks, whose `urlSession(_:task:didSendBodyData:…)`
/// reports progress on Apple platforms and in swift-corelibs-foundation alike.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let session: URLSession
    private let events: URLSessionTaskEvents

    /// Creates a transport over an ephemeral session (no cache, no cookies kept).
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        events = URLSessionTaskEvents()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "multiset.urlsession"
        session = URLSession(configuration: configuration, delegate: events, delegateQueue: queue)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Sends the request; `bodySent` runs once when the whole body is on the wire.
    public func send(
        _ request: HTTPRequest, bodySent: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) -> any TransportTask {
        var r = URLRequest(url: request.url)
        r.httpMethod = request.method
        r.timeoutInterval = request.timeout
        for (key, value) in request.headers { r.setValue(value, forHTTPHeaderField: key) }
        let task: URLSessionTask =
            request.body.isEmpty ? session.dataTask(with: r) : session.uploadTask(with: r, from: request.body)
        events.register(task, bodyBytes: Int64(request.body.count), bodySent: bodySent, completion: completion)
        task.resume()
        return URLSessionTaskHandle(task: task)
    }
}

/// The session delegate: routes each task's progress, data and completion to its request's closures.
final class URLSessionTaskEvents: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Entry {
        var bodyBytes: Int64
        var bodySent: @Sendable () -> Void
        var completion: @Sendable (Result<HTTPResponse, TransportError>) -> Void
        var reportedSent = false
        var data = Data()
    }

    private let lock = NSLock()
    private var entries: [Int: Entry] = [:]

    func register(
        _ task: URLSessionTask, bodyBytes: Int64, bodySent: @escaping @Sendable () -> Void,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) {
        lock.withLock {
            entries[task.taskIdentifier] = Entry(bodyBytes: bodyBytes, bodySent: bodySent, completion: completion)
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let report: (@Sendable () -> Void)? = lock.withLock {
            guard var e = entries[task.taskIdentifier], !e.reportedSent else { return nil }
            let expected = totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : e.bodyBytes
            guard totalBytesSent >= expected else { return nil }
            e.reportedSent = true
            entries[task.taskIdentifier] = e
            return e.bodySent
        }
        report?()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { entries[dataTask.taskIdentifier]?.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let e = lock.withLock({ entries.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            let ns = error as NSError
            if ns.domain == NSURLErrorDomain && ns.code == NSURLErrorTimedOut {
                e.completion(.failure(.timedOut))
            } else if ns.domain == NSURLErrorDomain && ns.code == NSURLErrorCancelled {
                e.completion(.failure(.cancelled))
            } else {
                e.completion(.failure(.network(error.localizedDescription)))
            }
            return
        }
        // The response's status, read at completion (no response-disposition delegate: the default allows).
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        e.completion(.success(HTTPResponse(status: status, body: e.data)))
    }
}

private struct URLSessionTaskHandle: TransportTask, @unchecked Sendable {
    let task: URLSessionTask
    func cancel() { task.cancel() }
}
