import Foundation
import Testing
import VPSMap
import VPSServer

/// Runs the built `multiset` executable as a real process (a test target cannot link an executable).
///
/// `swift build --build-tests` (and `make test`) build every product, so the binary sits next to the
/// test bundle; otherwise `.build/debug/multiset` under the package root is used.
enum MultisetProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let binary: URL? = {
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            let exe = URL(fileURLWithPath: first).resolvingSymlinksInPath()
            candidates.append(exe.deletingLastPathComponent().appendingPathComponent("multiset"))
        }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
                candidates.append(dir.appendingPathComponent(".build/debug/multiset"))
                break
            }
            dir = dir.deletingLastPathComponent()
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs `multiset args…` in `directory`, capturing both streams through files (no pipe deadlock).
    static func run(_ args: [String], in directory: URL) throws -> Result {
        guard let binary else {
            Issue.record(
                "the multiset executable was not found: build the multiset product first (swift build --build-tests)")
            return Result(status: -1, stdout: "", stderr: "")
        }
        let id = UUID().uuidString
        let outURL = directory.appendingPathComponent(".stdout-\(id)")
        let errURL = directory.appendingPathComponent(".stderr-\(id)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = binary
        process.arguments = args
        process.currentDirectoryURL = directory
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// A temporary folder removed at the end of a test.
final class TemporaryFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mapcli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

@Suite struct MapCLITests {
    /// Synthesizes a small room, builds two maps from it and drives every `map` and `mapset`
    /// subcommand, including the error exits.
    @Test func buildListInfoExportAndMapSets() throws {
        let tmp = try TemporaryFolder()
        let data = tmp.path("data")
        func run(_ args: String...) throws -> MultisetProcess.Result { try MultisetProcess.run(args, in: tmp.url) }

        let synth = try run(
            "synth", "--venue", "room", "--frames", "24", "--seed", "3", "--trajectory", "scan", "--out",
            tmp.path("captures"))
        try #require(synth.status == 0, "synth failed: \(synth.stderr)")

        // Build with a given code.
        let code = "MAP_CLITEST00001"
        let build = try run(
            "map", "build", "--captures", tmp.path("captures"), "--code", code, "--name", "Room", "--data", data)
        try #require(build.status == 0, "map build failed: \(build.stderr)")
        #expect(build.stdout.contains("code: \(code)"))
        #expect(build.stdout.contains("points"))
        #expect(build.stderr.isEmpty, "no progress lines when stderr is not a terminal: \(build.stderr)")
        let mapURL = URL(fileURLWithPath: data + "/maps/\(code).vpsmap")
        let map = try MapFile.read(from: mapURL)
        #expect(map.code == code && map.name == "Room" && map.pointCount > 100 && map.keyframes.count == 24)
        let cloud = try GLB.validate([UInt8](try Data(contentsOf: URL(fileURLWithPath: data + "/maps/\(code).glb"))))
        #expect(cloud.bin.count >= 12 * map.pointCount)

        // The store record is active with the file's size.
        let store = try DataDirectory(path: data).store
        let record = try #require(
            try store.map(idOrCode: code, accountID: DataDirectory.defaultAccountID, kind: .map))
        #expect(record.status == .active && record.file == "maps/\(code).vpsmap")
        let size = try FileManager.default.attributesOfItem(atPath: mapURL.path)[.size] as? Int
        #expect(record.bytes == size)

        // A duplicate code is refused before any work.
        let duplicate = try run("map", "build", "--captures", tmp.path("captures"), "--code", code, "--data", data)
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains(code) && duplicate.stderr.contains("taken"))

        // list
        let list = try run("map", "list", "--data", data)
        #expect(list.status == 0)
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first.map { $0.hasPrefix(code) && $0.contains("active") && $0.hasSuffix("Room") } == true)
        #expect(lines.first?.contains("\(record.bytes) bytes") == true)

        // info --json
        let info = try run("map", "info", code, "--data", data, "--json")
        try #require(info.status == 0, "map info failed: \(info.stderr)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(json["code"] as? String == code)
        #expect((json["points"] as? Int) == map.pointCount)
        #expect((json["keyframes"] as? Int) == 24)
        #expect((json["fileBytes"] as? Int) == size)
        let mean = try #require(json["meanObservationsPerPoint"] as? Double)
        #expect(mean >= 2)  // every point is seen by at least two keyframes
        // The map's own keypoint noise (`ObservationNoise`), within its bounds of 0.1–2 px.
        let noise = try #require(json["observationSigmaPixels"] as? Double)
        #expect(noise >= 0.1 && noise <= 2)
        let extent = try #require(json["extent"] as? [String: Any])
        let extentSize = try #require(extent["size"] as? [Double])
        #expect(extentSize.count == 3 && extentSize.allSatisfy { $0 > 0.5 && $0 < 20 })
        let feature = try #require(json["featureConfig"] as? [String: Any])
        #expect(feature["name"] as? String == map.featureConfig.name)
        #expect(json["georeference"] == nil)
        let text = try run("map", "info", code, "--data", data)
        #expect(text.status == 0 && text.stdout.contains("keyframes:     24"))
        #expect(text.stdout.contains(" px per axis)"))

        // export-mesh
        let glb = try run("map", "export-mesh", code, "--out", tmp.path("room.glb"), "--data", data)
        #expect(glb.status == 0, "\(glb.stderr)")
        let exported = try GLB.validate([UInt8](try Data(contentsOf: URL(fileURLWithPath: tmp.path("room.glb")))))
        let meshes = exported.json["meshes"] as? [Any]
        #expect(meshes?.count == 1)
        let ply = try run("map", "export-mesh", code, "--out", tmp.path("room.ply"), "--data", data)
        #expect(ply.status == 0, "\(ply.stderr)")
        let plyBytes = try Data(contentsOf: URL(fileURLWithPath: tmp.path("room.ply")))
        let header = String(decoding: plyBytes.prefix(400), as: UTF8.self)
        #expect(header.hasPrefix("ply\nformat binary_little_endian 1.0\n"))
        #expect(header.contains("element vertex \(map.pointCount)\n") && header.contains("end_header\n"))
        let bad = try run("map", "export-mesh", code, "--out", tmp.path("room.obj"), "--data", data)
        #expect(bad.status == 64 && bad.stderr.contains(".glb or .ply"))
        #expect(!FileManager.default.fileExists(atPath: tmp.path("room.obj")))

        // Unknown codes.
        let unknown = try run("map", "info", "MAP_UNKNOWN00000", "--data", data)
        #expect(unknown.status == 1 && unknown.stderr.contains("MAP_UNKNOWN00000"))
        let unknownExport = try run(
            "map", "export-mesh", "MAP_UNKNOWN00000", "--out", tmp.path("x.glb"), "--data", data)
        #expect(unknownExport.status == 1 && unknownExport.stderr.contains("MAP_UNKNOWN00000"))

        // A second map with a generated code.
        let second = try run("map", "build", "--captures", tmp.path("captures"), "--data", data)
        try #require(second.status == 0, "second map build failed: \(second.stderr)")
        let secondCode = try #require(
            second.stdout.split(separator: "\n").last { $0.hasPrefix("code: ") }.map { String($0.dropFirst(6)) })
        #expect(secondCode.hasPrefix("MAP_") && secondCode.count == 16 && secondCode != code)
        #expect(try run("map", "list", "--data", data).stdout.split(separator: "\n").count == 2)

        // Map sets.
        let maps = "\(code),\(secondCode)"
        // Both maps come from the same captures: aligned by overlap, the second sits at the identity.
        let byOverlap = try run("mapset", "create", "--name", "Both", "--maps", maps, "--data", data)
        #expect(byOverlap.status == 0, "\(byOverlap.stderr)")
        #expect(byOverlap.stderr.contains("by overlap"))
        let wrongCount = try run(
            "mapset", "create", "--name", "Both", "--maps", maps, "--poses", "0,0,0,0,0,0,1;1,0,0,0,0,0,1", "--data",
            data)
        #expect(wrongCount.status == 64)
        let badPose = try run("mapset", "create", "--name", "Both", "--maps", maps, "--poses", "1,2,3", "--data", data)
        #expect(badPose.status == 64)
        let unknownMember = try run(
            "mapset", "create", "--name", "Both", "--maps", "\(code),MAP_UNKNOWN00000", "--poses", "1,0,0,0,0,0,1",
            "--data", data)
        #expect(unknownMember.status == 1 && unknownMember.stderr.contains("MAP_UNKNOWN00000"))
        let created = try run(
            "mapset", "create", "--name", "Both", "--maps", maps, "--poses", "4.5,0,-1,0,0.7071068,0,0.7071068",
            "--data", data)
        try #require(created.status == 0, "mapset create failed: \(created.stderr)")
        let setCode = try #require(
            created.stdout.split(separator: "\n").last { $0.hasPrefix("code: ") }.map { String($0.dropFirst(6)) })
        #expect(setCode.hasPrefix("MSET_") && setCode.count == 17)
        let set = try #require(try store.mapSet(idOrCode: setCode, accountID: DataDirectory.defaultAccountID))
        #expect(set.name == "Both" && set.status == .active && set.entries.count == 2)
        let origin = try #require(set.entries.first { $0.order == 0 })
        let other = try #require(set.entries.first { $0.order == 1 })
        #expect(origin.mapID == record.id && origin.relativePose == .init())
        #expect(
            abs(other.relativePose.translation.x - 4.5) < 1e-12 && abs(other.relativePose.translation.z + 1) < 1e-12)
        #expect(abs(other.relativePose.rotation.y - 0.7071068) < 1e-6)
        let single = try run("mapset", "create", "--name", "One", "--maps", code, "--data", data)
        #expect(single.status == 0 && single.stdout.contains("MSET_"))
    }

    /// Help, usage errors (64) and failures (1) that need no built map.
    @Test func helpUsageAndFailures() throws {
        let tmp = try TemporaryFolder()
        let data = tmp.path("data")
        func run(_ args: String...) throws -> MultisetProcess.Result { try MultisetProcess.run(args, in: tmp.url) }

        for help in [
            ["map", "--help"], ["map", "build", "--help"], ["map", "list", "--help"], ["map", "info", "--help"],
            ["map", "export-mesh", "--help"], ["mapset", "--help"], ["mapset", "create", "--help"],
        ] {
            let r = try MultisetProcess.run(help, in: tmp.url)
            #expect(r.status == 0 && r.stdout.hasPrefix("usage:"), "\(help)")
        }
        #expect(try run("--help").stdout.contains("mapset create"))
        #expect(try run("map").status == 64)
        #expect(try run("map", "frobnicate").status == 64)
        #expect(try run("map", "build", "--data", data).status == 64)  // no --captures
        #expect(try run("map", "list", "--data", data, "--bogus", "1").status == 64)
        #expect(try run("map", "info", "--data", data).status == 64)  // no code
        #expect(try run("map", "export-mesh", "MAP_AAAAAAAAAAAA", "--data", data).status == 64)  // no --out
        #expect(try run("mapset", "create", "--maps", "MAP_AAAAAAAAAAAA", "--data", data).status == 64)  // no --name
        let badCode = try run("map", "build", "--captures", tmp.path("none"), "--code", "MAP_lower", "--data", data)
        #expect(badCode.status == 64 && badCode.stderr.contains("MAP_lower"))
        let noCaptures = try run("map", "build", "--captures", tmp.path("none"), "--data", data)
        #expect(noCaptures.status == 1 && noCaptures.stderr.contains("captures.json"))

        // An unreadable dataset: the map is registered, then marked failed with the reason.
        let broken = tmp.url.appendingPathComponent("broken")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: broken.appendingPathComponent("captures.json"))
        let failed = try run("map", "build", "--captures", broken.path, "--code", "MAP_BROKEN000001", "--data", data)
        #expect(failed.status == 1 && failed.stderr.contains("MAP_BROKEN000001"))
        let record = try DataDirectory(path: data).store.map(
            idOrCode: "MAP_BROKEN000001", accountID: DataDirectory.defaultAccountID, kind: .map)
        #expect(record?.status == .failed && record?.failure.isEmpty == false)
        let list = try run("map", "list", "--data", data)
        #expect(list.stdout.contains("MAP_BROKEN000001") && list.stdout.contains("failed"))
        let info = try run("map", "info", "MAP_BROKEN000001", "--data", data)
        #expect(info.status == 1 && info.stderr.contains("failed"))
        let set = try run("mapset", "create", "--name", "S", "--maps", "MAP_BROKEN000001", "--data", data)
        #expect(set.status == 1 && set.stderr.contains("not active"))
    }

    @Test func localizeAndEvalAgainstATruthMap() throws {
        let tmp = try TemporaryFolder()
        let data = tmp.path("data")
        func run(_ args: String...) throws -> MultisetProcess.Result { try MultisetProcess.run(args, in: tmp.url) }
        let scan = try run(
            "synth", "--venue", "room", "--frames", "36", "--interval", "2", "--seed", "4", "--trajectory", "scan",
            "--out", tmp.path("scan"))
        try #require(scan.status == 0, "synth failed: \(scan.stderr)")
        let walk = try run(
            "synth", "--venue", "room", "--frames", "6", "--interval", "3", "--seed", "4", "--trajectory", "walk",
            "--out", tmp.path("walk"))
        try #require(walk.status == 0, "synth failed: \(walk.stderr)")
        let build = try run(
            "map", "build", "--captures", tmp.path("scan"), "--use-truth", "--code", "MAP_EVALCLI00001", "--data", data)
        try #require(build.status == 0, "build failed: \(build.stderr)")
        let eval = try run(
            "eval", "--map", "MAP_EVALCLI00001", "--captures", tmp.path("walk"), "--data", data, "--json",
            tmp.path("eval.json"))
        #expect(eval.status == 0, "\(eval.stderr)")
        #expect(eval.stdout.contains("recall at (0.05 m, 1°)"))
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp.path("eval.json"))))
            as? [String: Any]
        #expect(json?["frames"] as? Int == 6)
        #expect((json?["recall"] as? [String: Double])?["5m_10deg"] != nil)
        let image = tmp.path("walk") + "/images/frame_000001.jpg"
        let localize = try run(
            "localize", "--map", "MAP_EVALCLI00001", "--image", image, "--intrinsics", "500,500,320,240", "--data",
            data, "--json")
        #expect(localize.status == 0 || localize.status == 1)
        #expect(localize.stdout.contains("poseFound"))
        #expect(try run("localize", "--map", "MAP_EVALCLI00001", "--data", data).status == 64)
        #expect(
            try run("eval", "--map", "MAP_EVALCLI00001", "--captures", tmp.path("walk"), "--data", data, "--every", "0")
                .status == 64)
    }
}
