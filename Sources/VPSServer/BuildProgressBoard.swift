import Synchronization
import VPSProtocol

/// Where each running or queued map build stands, by map id, for the map's details and its upload's
/// status (`build {stage, percent}`).
///
/// Kept in memory by the process that runs the builds: a restarted server shows a resumed build from
/// `queued` again.
final class BuildProgressBoard: Sendable {
    /// The stages of a build in order, with the share of the whole build each usually takes (measured on
    /// the demo's scans: feature extraction and pair matching dominate).
    static let stages: [(name: String, share: Double)] = [
        ("features", 0.40), ("pairs", 0.10), ("matching", 0.30), ("triangulation", 0.15), ("merging", 0.02),
        ("writing", 0.03),
    ]

    private let entries = Mutex<[String: MapBuildProgressJSON]>([:])

    /// The progress of map `id`'s build, or nil when none is queued or running.
    func progress(mapID id: String) -> MapBuildProgressJSON? { entries.withLock { $0[id] } }

    /// Marks a build queued.
    func queued(mapID id: String) { entries.withLock { $0[id] = MapBuildProgressJSON(stage: "queued", percent: 0) } }

    /// Reports `fraction` (0–1) of `stage` done; percent never goes back.
    func report(mapID id: String, stage: String, fraction: Double) {
        let percent = Self.percent(stage: stage, fraction: fraction)
        entries.withLock { table in
            let before = table[id]?.percent ?? 0
            table[id] = MapBuildProgressJSON(stage: stage, percent: max(before, percent))
        }
    }

    /// The build of map `id` ended.
    func finished(mapID id: String) { _ = entries.withLock { $0.removeValue(forKey: id) } }

    /// Percent of the whole build once `fraction` of `stage` is done (stages before it complete). Unknown
    /// stages count as the start of the build. Never 100 while a stage runs: 100 is the map itself.
    static func percent(stage: String, fraction: Double) -> Int {
        guard let index = stages.firstIndex(where: { $0.name == stage }) else { return 0 }
        let done = stages[..<index].reduce(0) { $0 + $1.share }
        let total = done + stages[index].share * min(1, max(0, fraction))
        return min(99, Int((100 * total).rounded(.down)))
    }
}
