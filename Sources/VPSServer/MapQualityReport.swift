import Foundation
import VPSGeometry
import VPSMap
import VPSProtocol

/// The quality report of a map (`GET /v1/vps/map/{key}/quality`, `MapQualityJSON`): how many points
/// and keyframes it has, and for each 1 m floor cell where the scan stood, how well a query from there
/// is expected to localize.
///
/// A cell's localizability is the mean over 8 heading sectors (45° each) of its best keyframe in that
/// sector, scored min(1, observed map points / 100); a sector no keyframe looked into scores 0. So a
/// cell scanned all around with well-observed views scores 1, one seen in a single direction at most
/// 1/8. Positions are reported in the API's left-handed map frame (x negated).
public enum MapQualityReport {
    /// Observed points for a keyframe to count fully, and to count as covered.
    static let fullPoints = 100, coveredPoints = 30
    /// Heading sectors, and the side of a floor cell (metres).
    static let sectors = 8, cellSize = 1.0

    /// The report of `map`.
    public static func report(_ map: MapData) -> MapQualityJSON {
        struct Cell {
            var keyframes = 0
            var points = Set<Int32>()
            var best = [Double](repeating: 0, count: MapQualityReport.sectors)
            var headings = Set<Int>()
        }
        var cells: [SIMD2<Int>: Cell] = [:]
        var covered = 0
        var observations = 0
        for k in map.keyframes {
            let observed = Set(k.pointIndices.filter { $0 >= 0 })
            observations += observed.count
            if observed.count >= coveredPoints { covered += 1 }
            let mapFromCam = k.camFromMap.inverse
            let centre = mapFromCam.translation
            // The computer-vision camera looks down +Z.
            let forward = mapFromCam.rotation.act(Vec3(0, 0, 1))
            let heading = (atan2(forward.x, forward.z) / (2 * .pi) + 1).truncatingRemainder(dividingBy: 1)
            let sector = min(sectors - 1, Int(heading * Double(sectors)))
            let key = SIMD2(Int((centre.x / cellSize).rounded(.down)), Int((centre.z / cellSize).rounded(.down)))
            var cell = cells[key] ?? Cell()
            cell.keyframes += 1
            cell.points.formUnion(observed)
            cell.best[sector] = max(cell.best[sector], min(1, Double(observed.count) / Double(fullPoints)))
            if observed.count >= coveredPoints { cell.headings.insert(sector) }
            cells[key] = cell
        }
        let areas = cells.sorted { ($0.key.y, $0.key.x) < ($1.key.y, $1.key.x) }.map { key, cell in
            let score = cell.best.reduce(0, +) / Double(sectors)
            // Left-handed API frame: x negated.
            return MapQualityJSON.Area(
                x: -(Double(key.x) + 0.5) * cellSize, z: (Double(key.y) + 0.5) * cellSize, keyframes: cell.keyframes,
                points: cell.points.count, headings: cell.headings.count, localizability: score,
                rating: score >= 0.6 ? "good" : score >= 0.3 ? "fair" : "poor")
        }
        var lo = Vec3(.infinity, .infinity, .infinity), hi = Vec3(-.infinity, -.infinity, -.infinity)
        for p in map.positions {
            let q = Vec3(-p.x, p.y, p.z)
            lo = Vec3(min(lo.x, q.x), min(lo.y, q.y), min(lo.z, q.z))
            hi = Vec3(max(hi.x, q.x), max(hi.y, q.y), max(hi.z, q.z))
        }
        if map.positions.isEmpty { (lo, hi) = (Vec3(0, 0, 0), Vec3(0, 0, 0)) }
        let cellArea = cellSize * cellSize
        let mean = areas.isEmpty ? 0 : areas.reduce(0) { $0 + $1.localizability } / Double(areas.count)
        let weakest = areas.min { $0.localizability < $1.localizability }
        let advice: String
        if areas.isEmpty {
            advice = "The map has no keyframes: scan the space again"
        } else if let weakest, weakest.rating != "good" {
            advice = String(
                format:
                    "Weakest area around (%.1f, %.1f) m, seen in %d of 8 directions: scan it again, turning all around",
                weakest.x, weakest.z, weakest.headings)
        } else {
            advice = "Every scanned area is well covered"
        }
        let trackLength =
            map.buildFunnel?.meanTrackLength
            ?? (map.positions.isEmpty ? 0 : Double(observations) / Double(map.positions.count))
        return MapQualityJSON(
            mapCode: map.code, points: map.positions.count, keyframes: map.keyframes.count, coveredKeyframes: covered,
            meanTrackLength: trackLength, medianReprojectionError: map.buildFunnel?.medianReprojectionError ?? 0,
            boundsMin: Vector3JSON(x: lo.x, y: lo.y, z: lo.z), boundsMax: Vector3JSON(x: hi.x, y: hi.y, z: hi.z),
            cellSize: cellSize, areas: areas,
            goodArea: Double(areas.filter { $0.rating == "good" }.count) * cellArea,
            scannedArea: Double(areas.count) * cellArea, localizability: mean, advice: advice)
    }
}
