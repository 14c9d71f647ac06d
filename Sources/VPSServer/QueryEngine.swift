import VPSGeometry
import VPSProtocol

/// What a query is localized against.
public enum QueryTarget: Sendable {
    /// One map.
    case map(MapRecord)
    /// A map set and its member maps (in the set's order).
    case mapSet(MapSetRecord, members: [MapRecord])
}

/// The localization engine as the server sees it: decoded, validated forms in, wire answers out.
///
/// The engine validates images (decodability, size limits, intrinsics against the decoded size)
/// and answers with `APIError`s for bad input; `poseFound: false` is a normal answer. Each call has a
/// `deadline`, checked between and inside its stages: once it passes the call stops using CPU and
/// throws `ENGINE_TIMEOUT`.
public protocol QueryEngine: Sendable {
    /// A single-frame query.
    func singleFrame(
        _ query: SingleFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> SingleFrameQueryResponse
    /// A multi-frame query.
    func multiFrame(
        _ query: MultiFrameQueryRequest, target: QueryTarget, deadline: Deadline
    ) throws(APIError) -> MultiFrameQueryResponse
    /// An object query against the given objects.
    func object(
        _ query: ObjectQueryRequest, objects: [MapRecord], deadline: Deadline
    ) throws(APIError) -> ObjectQueryResponse
    /// Forgets every cached copy of a map (after a delete or a re-upload).
    func evict(mapID: String)
    /// Number of maps held in memory (a metrics gauge).
    var loadedMaps: Int { get }
}

extension QueryEngine {
    public func evict(mapID: String) {}
}

extension APIError {
    /// The answer when a query's deadline passed.
    static func engineTimeout(_ seconds: Double) -> APIError {
        APIError(.engineTimeout, "The engine took longer than \(FormValue.number(seconds.rounded())) s")
    }
}
