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
/// and answers with `APIError`s for bad input; `poseFound: false` is a normal answer.
public protocol QueryEngine: Sendable {
    /// A single-frame query.
    func singleFrame(_ query: SingleFrameQueryRequest, target: QueryTarget) throws(APIError) -> SingleFrameQueryResponse
    /// A multi-frame query.
    func multiFrame(_ query: MultiFrameQueryRequest, target: QueryTarget) throws(APIError) -> MultiFrameQueryResponse
    /// An object query against the given objects.
    func object(_ query: ObjectQueryRequest, objects: [MapRecord]) throws(APIError) -> ObjectQueryResponse
    /// Number of maps held in memory (a metrics gauge).
    var loadedMaps: Int { get }
}
