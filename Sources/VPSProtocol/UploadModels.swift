/// [Project design] Where a map build stands: its stage and how far along the whole build is.
///
/// Stages in order: `queued`, `features`, `pairs`, `matching`, `triangulation`, `merging` (extensions
/// only), `writing`; `percent` grows monotonically from 0 to 100 over them, weighted by each stage's
/// usual share of the build time.
public struct MapBuildProgressJSON: Codable, Equatable, Sendable {
    /// The stage running (or `queued`).
    public var stage: String
    /// 0–100.
    public var percent: Int

    /// Builds a progress block.
    public init(stage: String, percent: Int) {
        self.stage = stage
        self.percent = percent
    }
}

/// [Project design] Why a build failed: the builder's stable code (`MAP_BUILD_TOO_THIN`, …) and its
/// reason in words (for a thin map, the stage that lost the most).
public struct MapBuildFailureJSON: Codable, Equatable, Sendable {
    /// Stable code (`MAP_BUILD_…`, `MAP_EXTEND_…`, or `MAP_BUILD_FAILED` for anything else).
    public var code: String
    /// The reason, readable.
    public var message: String

    /// Builds a failure block.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// [Project design] A resumable capture-dataset upload (`/v1/vps/map/uploads…`): what the server has
/// and what it still needs, then the build's progress and outcome.
///
/// `state`: `receiving` (files missing or not yet completed), `building` (completed; the build is
/// queued or running), `done` (the map is active, or the extension merged) or `failed` (`failure` says
/// why). Completing twice answers the same map: a dataset builds once.
public struct UploadSessionJSON: Codable, Equatable, Sendable {
    /// 24 lowercase hex digits.
    public var uploadId: String
    /// The map's name.
    public var name: String
    /// The map's code: reserved when the upload starts, or the map being extended.
    public var mapCode: String
    /// The map being extended, when this upload extends one.
    public var extends: String?
    /// `receiving`, `building`, `done`, `failed`.
    public var state: String
    /// Files `captures.json` names.
    public var files: Int
    /// Files received.
    public var received: Int
    /// Bytes received so far.
    public var receivedBytes: Int
    /// Paths still missing, in `captures.json` order.
    public var missing: [String]
    /// The map's id once the upload is completed.
    public var mapId: String?
    /// While building.
    public var build: MapBuildProgressJSON?
    /// When failed.
    public var failure: MapBuildFailureJSON?
    /// Creation time (ISO-8601 UTC).
    public var createdAt: String

    /// Builds a session answer.
    public init(
        uploadId: String, name: String, mapCode: String, extends: String?, state: String, files: Int, received: Int,
        receivedBytes: Int, missing: [String], mapId: String?, build: MapBuildProgressJSON?,
        failure: MapBuildFailureJSON?, createdAt: String
    ) {
        self.uploadId = uploadId
        self.name = name
        self.mapCode = mapCode
        self.extends = extends
        self.state = state
        self.files = files
        self.received = received
        self.receivedBytes = receivedBytes
        self.missing = missing
        self.mapId = mapId
        self.build = build
        self.failure = failure
        self.createdAt = createdAt
    }
}

/// [Project design] `GET /v1/vps/map/{key}/quality`: how well a map can be localized in, and where.
///
/// Positions are in the API's left-handed map frame (SPEC §15.2), metres. The floor is cut into
/// square cells of `cellSize`; each cell with keyframes gets an expected localizability in 0–1: the
/// mean, over 8 heading sectors, of how well the keyframes looking that way see the map (a keyframe
/// observing 100 or more map points counts fully, fewer in proportion; a sector without keyframes
/// counts 0). A query from a well-rated cell looking the way the scan looked is expected to localize.
public struct MapQualityJSON: Codable, Equatable, Sendable {
    /// One floor cell.
    public struct Area: Codable, Equatable, Sendable {
        /// Cell centre (x, z), left-handed map frame, metres.
        public var x: Double, z: Double
        /// Keyframes standing in the cell and the map points they observe (distinct).
        public var keyframes: Int, points: Int
        /// Heading sectors (of 8) with a keyframe that sees at least 30 map points.
        public var headings: Int
        /// 0–1 (see the type).
        public var localizability: Double
        /// `good` (≥ 0.6), `fair` (≥ 0.3) or `poor`.
        public var rating: String

        /// Builds an area.
        public init(
            x: Double, z: Double, keyframes: Int, points: Int, headings: Int, localizability: Double, rating: String
        ) {
            self.x = x
            self.z = z
            self.keyframes = keyframes
            self.points = points
            self.headings = headings
            self.localizability = localizability
            self.rating = rating
        }
    }

    /// The map's code.
    public var mapCode: String
    /// Points, keyframes, and keyframes observing at least 30 points.
    public var points: Int, keyframes: Int, coveredKeyframes: Int
    /// Mean observations per point and the median reprojection error of the build (pixels; 0 when unknown).
    public var meanTrackLength: Double, medianReprojectionError: Double
    /// The points' bounding box (left-handed map frame), metres.
    public var boundsMin: Vector3JSON, boundsMax: Vector3JSON
    /// Side of the floor cells, metres.
    public var cellSize: Double
    /// Cells with keyframes, row by row (z, then x).
    public var areas: [Area]
    /// Floor area of the cells rated `good` and of all cells, square metres.
    public var goodArea: Double, scannedArea: Double
    /// Mean localizability over the cells.
    public var localizability: Double
    /// Advice in words for the app (e.g. which kind of gap to fill).
    public var advice: String

    /// Builds a report.
    public init(
        mapCode: String, points: Int, keyframes: Int, coveredKeyframes: Int, meanTrackLength: Double,
        medianReprojectionError: Double, boundsMin: Vector3JSON, boundsMax: Vector3JSON, cellSize: Double,
        areas: [Area], goodArea: Double, scannedArea: Double, localizability: Double, advice: String
    ) {
        self.mapCode = mapCode
        self.points = points
        self.keyframes = keyframes
        self.coveredKeyframes = coveredKeyframes
        self.meanTrackLength = meanTrackLength
        self.medianReprojectionError = medianReprojectionError
        self.boundsMin = boundsMin
        self.boundsMax = boundsMax
        self.cellSize = cellSize
        self.areas = areas
        self.goodArea = goodArea
        self.scannedArea = scannedArea
        self.localizability = localizability
        self.advice = advice
    }
}
