import VPSGeometry

/// A synthetic indoor place: textured planar surfaces, where one may walk, and ground truth.
///
/// World frame: right-handed, +Y up (gravity along −Y), metres, the floor at y = 0 — ARKit's world
/// convention. Generated venues are pure functions of `(kind, seed, texelScale)`.
public struct Venue: Sendable {
    /// The venues `generate(_:seed:texelScale:)` can build.
    public enum Kind: String, CaseIterable, Sendable {
        /// One room, about 6 × 5 × 2.8 m, with furniture along the walls.
        case room
        /// A corridor, about 20 × 2 × 2.8 m, with doors and posters.
        case corridor
        /// Two identical rooms joined by a doorway: the venue is symmetric under `symmetry`, so
        /// corresponding views of the two rooms are the same image.
        case aliasing
        /// A room with a table carrying a textured box whose pose is `worldFromObject`.
        case object
    }

    /// Which generator built the venue (nil for hand-built scenes).
    public let kind: Kind?
    /// The generator's seed (0 for hand-built scenes).
    public let seed: UInt64
    /// A readable name, such as `"room seed 7"`.
    public let name: String
    /// The geometry.
    public let surfaces: [Surface]
    /// Textures referenced by `Surface.textureIndex`.
    public let textures: [Texture]
    /// Box around every surface.
    public let bounds: BoundingBox
    /// Interiors of the venue's rooms (one per room or corridor).
    public let rooms: [BoundingBox]
    /// Where the simulated person may stand.
    public let walkableArea: WalkableArea
    /// Height of the ceiling above the floor, metres.
    public let ceilingHeight: Double
    /// For `.object`: the object's pose; its frame has its origin at the centre of the object's
    /// bottom face, +Y up and its front face towards +Z.
    public let worldFromObject: Rigid3?
    /// For `.object`: the object's extent in its own frame.
    public let objectBounds: BoundingBox?
    /// For `.object`: indices in `surfaces` of the object's faces.
    public let objectSurfaceIndices: [Int]
    /// For `.aliasing`: the rigid motion (`worldFromWorld`) that maps the venue onto itself and
    /// each room onto the other. A camera at `worldFromCamera` sees exactly what a camera at
    /// `symmetry * worldFromCamera` sees.
    public let symmetry: Rigid3?

    /// Builds a venue from parts (hand-built scenes and tests).
    public init(
        name: String, surfaces: [Surface], textures: [Texture], walkableArea: WalkableArea = WalkableArea(regions: []),
        rooms: [BoundingBox] = [], ceilingHeight: Double = 2.8, kind: Kind? = nil, seed: UInt64 = 0,
        worldFromObject: Rigid3? = nil, objectBounds: BoundingBox? = nil, objectSurfaceIndices: [Int] = [],
        symmetry: Rigid3? = nil
    ) {
        precondition(
            surfaces.allSatisfy { $0.textureIndex >= 0 && $0.textureIndex < textures.count }, "bad texture index")
        self.name = name
        self.surfaces = surfaces
        self.textures = textures
        self.walkableArea = walkableArea
        self.rooms = rooms
        self.ceilingHeight = ceilingHeight
        self.kind = kind
        self.seed = seed
        self.worldFromObject = worldFromObject
        self.objectBounds = objectBounds
        self.objectSurfaceIndices = objectSurfaceIndices
        self.symmetry = symmetry
        bounds = BoundingBox(enclosing: surfaces.flatMap(\.vertices))
    }

    /// Memory held by all textures (mip levels included), bytes.
    public var textureByteCount: Int { textures.reduce(0) { $0 + $1.byteCount } }

    /// Generates a venue.
    ///
    /// - Parameters:
    ///   - kind: which venue.
    ///   - seed: every dimension, placement and texture derives from it.
    ///   - texelScale: multiplies texel sizes (1: about 4 mm per texel on walls and posters, 8 mm on
    ///     floors; 4 makes textures 16× smaller and generation much faster, for tests).
    public static func generate(_ kind: Kind, seed: UInt64, texelScale: Double = 1) -> Venue {
        precondition(texelScale > 0, "texelScale must be positive")
        switch kind {
        case .room: return makeRoom(seed: seed, texelScale: texelScale)
        case .corridor: return makeCorridor(seed: seed, texelScale: texelScale)
        case .aliasing: return makeAliasing(seed: seed, texelScale: texelScale)
        case .object: return makeObject(seed: seed, texelScale: texelScale)
        }
    }
}
