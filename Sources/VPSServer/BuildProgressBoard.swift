import Foundation
import Synchronization
import VPSProtocol

/// Where each running or queued map build stands, by map id, for the map's details and its upload's
/// status (`build {stage, percent}`).
///
/// With a folder (the service's: `progress/` in the data directory) every change of stage or whole
/// percent is also written there (`<map id>.json`, atomically), so a server restarted mid-build still
/// reports how far the build had come: the board reads a map's file when it has no entry for it, a
/// resumed build starts from that entry (`queued` keeps it), and percent never goes back — the build
/// runs again from its first stage, and its percent moves once it passes where it had stopped.
/// `finished` removes the file. Without a folder progress lives in memory only.
final class BuildProgressBoard: Sendable {
    /// The stages of a build in order, with the share of the whole build each usually takes (measured on
    /// the demo's scans: feature extraction and pair matching dominate).
    static let stages: [(name: String, share: Double)] = [
        ("features", 0.40), ("pairs", 0.10), ("matching", 0.30), ("adjustment", 0.10), ("triangulation", 0.05),
        ("merging", 0.02), ("writing", 0.03),
    ]

    private let entries = Mutex<[String: MapBuildProgressJSON]>([:])
    /// Where progress is kept across restarts; nil: memory only.
    let folder: URL?

    /// A board; `folder` keeps progress across restarts (created when first written).
    init(folder: URL? = nil) { self.folder = folder }

    /// The progress of map `id`'s build, or nil when none is queued or running.
    func progress(mapID id: String) -> MapBuildProgressJSON? {
        entries.withLock { table in
            if let entry = table[id] { return entry }
            guard let saved = stored(id) else { return nil }
            table[id] = saved
            return saved
        }
    }

    /// Marks a build queued; a build resumed after a restart keeps the progress it had reached.
    func queued(mapID id: String) {
        entries.withLock { table in
            if table[id] == nil, let saved = stored(id) {
                table[id] = saved
            } else if table[id] == nil {
                let entry = MapBuildProgressJSON(stage: "queued", percent: 0)
                table[id] = entry
                store(entry, id)
            }
        }
    }

    /// Reports `fraction` (0–1) of `stage` done; percent never goes back.
    func report(mapID id: String, stage: String, fraction: Double) {
        let percent = Self.percent(stage: stage, fraction: fraction)
        entries.withLock { table in
            let before = table[id] ?? stored(id)
            let entry = MapBuildProgressJSON(stage: stage, percent: max(before?.percent ?? 0, percent))
            table[id] = entry
            if entry != before { store(entry, id) }
        }
    }

    /// The build of map `id` ended (or the map was deleted).
    func finished(mapID id: String) {
        entries.withLock { table in
            table[id] = nil
            if let url = file(id) { try? FileManager.default.removeItem(at: url) }
        }
    }

    /// Percent of the whole build once `fraction` of `stage` is done (stages before it complete). Unknown
    /// stages count as the start of the build. Never 100 while a stage runs: 100 is the map itself.
    static func percent(stage: String, fraction: Double) -> Int {
        guard let index = stages.firstIndex(where: { $0.name == stage }) else { return 0 }
        let done = stages[..<index].reduce(0) { $0 + $1.share }
        let total = done + stages[index].share * min(1, max(0, fraction))
        return min(99, Int((100 * total).rounded(.down)))
    }

    // MARK: The folder

    private func file(_ id: String) -> URL? {
        guard let folder, Identifiers.isID(id) else { return nil }
        return folder.appendingPathComponent("\(id).json")
    }

    private func stored(_ id: String) -> MapBuildProgressJSON? {
        guard let url = file(id), let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(MapBuildProgressJSON.self, from: data)
    }

    /// Writes an entry atomically; a failure costs only the progress after a restart.
    private func store(_ entry: MapBuildProgressJSON, _ id: String) {
        guard let folder, let url = file(id), let data = try? JSONEncoder().encode(entry) else { return }
        try? FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if (try? data.write(to: url, options: .atomic)) != nil { chmod(url.path, 0o600) }
    }
}
