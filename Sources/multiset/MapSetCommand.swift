import Foundation
import MultiSetCommandLine
import VPSGeometry
import VPSMap
import VPSServer

/// `multiset mapset create`: several maps in one frame.
enum MapSetCommand {
    /// The options of this command that take no value.
    static let switches: Set<String> = []

    static let usage = """
        usage: multiset mapset create --name NAME --maps CODE,CODE,... [--poses "x,y,z,qx,qy,qz,qw;..."] [--data DIR]

        Creates a map set (code MSET_…) of active maps. The first map is the origin (order 0, identity);
        --poses gives each following map's pose in the set's frame (setFromMap), left-handed like the API,
        metres and a unit quaternion, one group per map after the first, separated by ';'.
        Without --poses the maps after the first are aligned to it by their overlap (each keyframe localized
        in the first map, then a robust rigid alignment); the residual is printed.
        --data defaults to ./.multiset
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let words = Array(args.positionals.dropFirst())
        if args.flag("help") {
            print(usage)
            return 0
        }
        switch words.first {
        case "create":
            return try create(&args, words)
        case nil:
            throw UsageError(usage)
        case let other?:
            throw UsageError("unknown mapset subcommand '\(other)'\n\(usage)")
        }
    }

    static func create(_ args: inout Arguments, _ words: [String]) throws -> Int32 {
        guard words.count == 1 else { throw UsageError("mapset create takes no positional arguments\n\(usage)") }
        guard let name = args.string("name"), !name.isEmpty else {
            throw UsageError("mapset create needs --name\n\(usage)")
        }
        guard let mapList = args.string("maps") else { throw UsageError("mapset create needs --maps\n\(usage)") }
        let posesText = args.string("poses")
        let path = args.string("data") ?? ".multiset"
        try args.rejectUnknown()

        let codes = mapList.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !codes.isEmpty, codes.allSatisfy({ !$0.isEmpty }) else {
            throw UsageError("mapset create: --maps expects CODE,CODE,...")
        }
        for c in codes where !MapCommand.isCode(c, prefix: "MAP_") {
            throw UsageError(
                "mapset create: '\(c)' is not a map code (MAP_ followed by 12 uppercase letters or digits)")
        }
        guard Set(codes).count == codes.count else { throw UsageError("mapset create: a map is listed twice") }
        let poses = try posesText.map { try parsePoses($0) }
        if let poses, poses.count != codes.count - 1 {
            throw UsageError(
                "mapset create: --poses has \(poses.count) pose\(poses.count == 1 ? "" : "s"); "
                    + "\(codes.count) maps need \(codes.count - 1) (one for each map after the first)")
        }

        let data = try DataDirectory(path: path)
        let account = DataDirectory.defaultAccountID
        var records: [MapRecord] = []
        for c in codes {
            guard let m = try data.store.map(idOrCode: c, accountID: account, kind: .map) else {
                throw CommandFailure("mapset create: no map \(c) in \(data.url.path)")
            }
            guard m.status == .active else {
                throw CommandFailure("mapset create: map \(c) is \(m.status.rawValue), not active")
            }
            records.append(m)
        }
        // Without --poses, each map is aligned to the origin map by their overlap.
        let relative = try poses ?? estimateByOverlap(codes, data: data)

        var entries = [MapSetRecord.Entry(mapID: records[0].id, order: 0, relativePose: Rigid3())]
        for (i, pose) in relative.enumerated() {
            entries.append(MapSetRecord.Entry(mapID: records[i + 1].id, order: i + 1, relativePose: pose))
        }
        let clock = SystemServerClock()
        var code = Identifiers.newCode(prefix: "MSET_")
        while try data.store.mapSet(idOrCode: code, accountID: account) != nil {
            code = Identifiers.newCode(prefix: "MSET_")
        }
        let set = MapSetRecord(
            id: Identifiers.newID(), accountID: account, code: code, name: name, status: .active, entries: entries,
            createdAt: clock.now(), updatedAt: clock.now())
        try data.store.createMapSet(set)
        print("created map set \(code) \"\(name)\" with \(entries.count) map\(entries.count == 1 ? "" : "s"):")
        for (e, r) in zip(entries, records) {
            let t = e.relativePose.translation, q = e.relativePose.rotation
            let pose = [t.x, t.y, t.z, q.x, q.y, q.z, q.w].map { String(format: "%.6g", $0) }.joined(separator: ",")
            print("  \(e.order)  \(r.code)  \(pose)\(e.order == 0 ? "  (origin)" : "")")
        }
        print("code: \(code)")
        return 0
    }

    /// Left-handed `setFromMap` poses of maps 2… relative to map 1, from `MapOverlap`.
    static func estimateByOverlap(_ codes: [String], data: DataDirectory) throws -> [Rigid3] {
        guard codes.count > 1 else { return [] }
        let origin = try MapFile.read(from: data.mapFile(code: codes[0]))
        var out: [Rigid3] = []
        for code in codes.dropFirst() {
            let map = try MapFile.read(from: data.mapFile(code: code))
            do {
                let r = try MapOverlap.estimate(map, in: origin)
                FileHandle.standardError.write(
                    Data(
                        String(
                            format:
                                "%@ in %@ by overlap: %d keyframes localized, %d of %d point pairs agree, residual %.1f mm\n",
                            code, codes[0], r.localizedKeyframes, r.inliers, r.pairs, r.residualRMS * 1000
                        ).utf8))
                out.append(Handedness.convertFramePose(r.bFromA))
            } catch {
                throw CommandFailure(
                    "mapset create: cannot align \(code) to \(codes[0]): \(error); give --poses instead")
            }
        }
        return out
    }

    /// `x,y,z,qx,qy,qz,qw;...`: translations in metres and quaternions (normalized; zero rejected).
    static func parsePoses(_ text: String) throws(UsageError) -> [Rigid3] {
        var poses: [Rigid3] = []
        for group in text.split(separator: ";", omittingEmptySubsequences: false) {
            let parts = group.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            let v = parts.compactMap { $0 }
            guard parts.count == 7, v.count == 7, v.allSatisfy(\.isFinite) else {
                throw UsageError("mapset create: each pose is x,y,z,qx,qy,qz,qw (7 numbers), got '\(group)'")
            }
            let q = Quaternion(x: v[3], y: v[4], z: v[5], w: v[6])
            guard q.norm > 1e-9 else { throw UsageError("mapset create: the quaternion of '\(group)' is zero") }
            poses.append(Rigid3(rotation: q, translation: Vec3(v[0], v[1], v[2])))
        }
        return poses
    }
}
