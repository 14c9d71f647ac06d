/// What the cluster needs of build jobs beyond `BuildJobStore`: ending a job and recording its map's
/// outcome as one transaction, and counting an account's open builds (the upload quota).
extension PostgresBuildJobs {
    /// Ends the job `worker` holds — `done` when `map` is active, `failed` otherwise — and writes the
    /// map record's outcome (status, file, size, failure, update time), in one transaction: both or
    /// neither. False when `worker` no longer holds the lease (another worker took the job over, or
    /// the map was deleted): nothing is written and the caller drops its result, so a build finishes
    /// once however many workers started it.
    public func settle(mapID: String, worker: String, map: MapRecord) throws(StoreError) -> Bool {
        try db.transaction { s throws(StoreError) -> Bool in
            let ended = try s.change(
                "UPDATE build_jobs SET state = $3, worker = '', error = $4 WHERE map_id = $1 AND worker = $2 AND state = 'running'",
                [.text(mapID), .text(worker), .text(map.status == .active ? "done" : "failed"), .text(map.failure)])
            guard ended == 1 else { return false }
            try s.query(
                "UPDATE maps SET status = $2, file = $3, bytes = $4, failure = $5, updated_at = $6 WHERE id = $1",
                [
                    .text(mapID), .text(map.status.rawValue), .text(map.file), .int(Int64(map.bytes)),
                    .text(map.failure), .double(map.updatedAt),
                ])
            return true
        }
    }

    /// Jobs of an account that are queued or running.
    public func openJobs(accountID: String) throws(StoreError) -> Int {
        let rows = try db.query(
            "SELECT count(*) FROM build_jobs WHERE account_id = $1 AND state IN ('queued', 'running')",
            [.text(accountID)])
        return Int(rows.first?[0] ?? "") ?? 0
    }
}
