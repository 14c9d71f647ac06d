import Foundation

/// A server's part in a cluster (`multiset serve --postgres`): builds go to the shared job table for
/// `multiset worker` processes instead of the in-process queue, and map files are published as
/// content-addressed blobs that every server fetches into its own cache on first use.
public struct ClusterBackend: Sendable {
    /// The shared build jobs.
    public let jobs: PostgresBuildJobs
    /// The map blobs and this server's cache of them.
    public let cache: MapBlobCache

    /// The backend of one server.
    public init(jobs: PostgresBuildJobs, cache: MapBlobCache) {
        self.jobs = jobs
        self.cache = cache
    }

    /// The blob name of a map's staged capture dataset.
    public static func datasetBlob(mapID: String) -> String { "dataset-\(mapID)" }
}

extension VPSService {
    /// Builds of an account queued or running: in the shared job table in a cluster, else in process.
    func openBuilds(accountID: String) -> Int {
        guard let cluster else { return builds.count(accountID: accountID) }
        // Unknown (the database is down): the upload fails later anyway, when it is recorded.
        return (try? cluster.jobs.openJobs(accountID: accountID)) ?? 0
    }

    /// Hands a staged upload to the cluster's workers: the dataset as one blob, then a queued job.
    /// The local staging folder goes either way; a failure to queue fails the map at once.
    func enqueueClusterBuild(_ queued: MapRecord, _ cluster: ClusterBackend) {
        let staging = MapFiles(dataDirectory: config.dataDirectory).staging(id: queued.id)
        defer { try? FileManager.default.removeItem(at: staging) }
        do {
            let archive = try DatasetArchive.pack(staging)
            try cluster.cache.blobs.put(ClusterBackend.datasetBlob(mapID: queued.id), archive)
            try cluster.jobs.enqueue(mapID: queued.id, accountID: queued.accountID, now: clock.now())
        } catch {
            var r = queued
            r.status = .failed
            r.failure = "MAP_BUILD_FAILED: the build could not be queued (\(error))"
            r.updatedAt = clock.now()
            try? store.updateMap(r)
            try? cluster.cache.blobs.delete(ClusterBackend.datasetBlob(mapID: queued.id))
            log("cluster: queueing the build of \(queued.code) failed: \(error)")
        }
    }

    /// Forgets a deleted map's job and staged dataset (a worker building it then drops its result).
    func cancelClusterBuild(mapID: String) {
        guard let cluster else { return }
        try? cluster.jobs.cancel(mapID: mapID)
        try? cluster.cache.blobs.delete(ClusterBackend.datasetBlob(mapID: mapID))
    }

    /// Makes a record's map file and mesh local (fetched into the cache) before a file is served.
    func fetchIntoCache(_ record: MapRecord) {
        _ = try? cluster?.cache.mapFile(record)
    }
}
