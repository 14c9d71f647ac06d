import Foundation
import MultiSetCommandLine
import VPSGeometry
import VPSLocalizer
import VPSMap
import VPSServer

/// A command that could not do its work (exit status 1); the message goes to stderr.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// `multiset map build | list | info | export-mesh`: maps in a data directory.
enum MapCommand {
    /// The options of this command that take no value.
    static let switches: Set<String> = ["json", "use-truth", "verbose"]

    static let buildUsage = """
        usage: multiset map build --captures DIR [--code MAP_XXXXXXXXXXXX] [--name NAME] [--geo LAT,LON,ALT [--heading DEG]]
                                  [--features orb|sift|rootsift] [--use-truth] [--no-adjust] [--verbose]
                                  [--data DIR]

        Builds a map from a capture dataset (DIR/captures.json and its images), registers it in the
        data directory (status processing, then active or failed) and writes maps/CODE.vpsmap and a
        point cloud maps/CODE.glb. Without --code a new code is generated; --name defaults to the
        captures folder's name.

        --use-truth  map with the frames' true poses ("truth" in captures.json, written by `multiset synth`)
                     instead of their AR tracking poses: the map is then in the venue's frame, so maps of one
                     venue share a frame and `multiset eval` compares answers with the truth. Real captures
                     have no truth; the flag is for simulated ones.
        --no-adjust  trust the AR poses as they are. By default they are adjusted with the points (bundle
                     adjustment held to the AR relative poses and gravity), which undoes the drift a scan
                     accumulates wherever it sees a place again; the map frame stays the first frame's.
        --verbose    print the build's funnel: per stage what was kept and what each filter dropped (also
                     stored in the map file's metadata, shown by `map info`).
        \(FeatureFlag.usage)
        A map that too few frames see enough of is refused (MAP_BUILD_TOO_THIN) with the stage that lost most.
        """
    static let listUsage = """
        usage: multiset map list [--data DIR]

        One line per map or object of the default account: code, kind, status, file size, name.
        """
    static let infoUsage = """
        usage: multiset map info CODE [--data DIR] [--json]

        Points, keyframes, extent (bounding box of the points, metres), mean observations per point,
        file size, feature configuration, georeference and mesh of a map file.
        """
    static let exportUsage = """
        usage: multiset map export-mesh CODE --out FILE.glb|FILE.ply [--data DIR]

        GLB: the map's stored mesh if it has one, else its coloured point cloud. PLY: the coloured
        point cloud (binary little-endian). Right-handed map frame, +Y up, metres.
        """
    static let usage = """
        usage: multiset map build --captures DIR [--code MAP_XXXXXXXXXXXX] [--name NAME] [--data DIR]
               multiset map import-colmap --model DIR --images DIR [--exclude NAME ...] [--scale S] [--code C] [--name N] [--geo …] [--data DIR]
               multiset map list [--data DIR]
               multiset map info CODE [--data DIR] [--json]
               multiset map export-mesh CODE --out FILE.glb|FILE.ply [--data DIR]

        --data defaults to ./.multiset. Run `multiset map <subcommand> --help` for details.
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let words = Array(args.positionals.dropFirst())
        let help = args.flag("help")
        switch words.first {
        case "build":
            if help { return show(buildUsage) }
            return try build(&args, words)
        case "import-colmap":
            if help { return show(importUsage) }
            return try importCOLMAP(&args, words)
        case "list":
            if help { return show(listUsage) }
            return try list(&args, words)
        case "info":
            if help { return show(infoUsage) }
            return try info(&args, words)
        case "export-mesh":
            if help { return show(exportUsage) }
            return try exportMesh(&args, words)
        case nil where help:
            return show(usage)
        case nil:
            throw UsageError(usage)
        case let other?:
            throw UsageError("unknown map subcommand '\(other)'\n\(usage)")
        }
    }

    static func show(_ text: String) -> Int32 {
        print(text)
        return 0
    }

    /// True for `prefix` followed by 12 uppercase ASCII letters or digits.
    static func isCode(_ s: String, prefix: String) -> Bool {
        guard s.hasPrefix(prefix) else { return false }
        let rest = s.utf8.dropFirst(prefix.utf8.count)
        return rest.count == 12 && rest.allSatisfy { (65...90).contains($0) || (48...57).contains($0) }
    }

    // MARK: build

    static func build(_ args: inout Arguments, _ words: [String]) throws -> Int32 {
        guard words.count == 1 else { throw UsageError("map build takes no positional arguments\n\(buildUsage)") }
        guard let captures = args.string("captures"), !captures.isEmpty else {
            throw UsageError("map build needs --captures\n\(buildUsage)")
        }
        let givenCode = args.string("code")
        let givenName = args.string("name")
        let path = args.string("data") ?? ".multiset"
        let georeference = try parseGeoreference(&args)
        let useTruth = args.flag("use-truth")
        let noAdjust = args.flag("no-adjust")
        let verbose = args.flag("verbose")
        var options = MapBuildOptions()
        options.featureConfig = try FeatureFlag.parse(&args)
        if !useTruth && !noAdjust { options.poseAdjustment = PoseAdjustmentOptions() }
        try args.rejectUnknown()
        if let givenCode, !isCode(givenCode, prefix: "MAP_") {
            throw UsageError(
                "map build: --code must be MAP_ followed by 12 uppercase letters or digits, got '\(givenCode)'")
        }
        let folder = URL(fileURLWithPath: captures, isDirectory: true)
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("captures.json").path) else {
            throw CommandFailure("map build: no captures.json in \(folder.path)")
        }
        let name = givenName ?? folder.standardizedFileURL.lastPathComponent

        let data = try DataDirectory(path: path, requireOwnership: true)
        return try register(
            data: data, givenCode: givenCode, name: name, source: folder.path, georeference: georeference,
            verbose: verbose
        ) {
            code, name, progress in
            try MapBuilder.build(
                capturesIn: folder, code: code, name: name, options: options, useTruth: useTruth, progress: progress)
        }
    }

    /// Reserves a code, records the map as processing, builds it with `make`, writes the map file and
    /// its point cloud atomically, and marks the record active (or failed with the reason).
    static func register(
        data: DataDirectory, givenCode: String?, name: String, source: String, georeference: Georeference? = nil,
        verbose: Bool = false, make: (String, String, (String, Double) -> Void) throws -> (MapData, MapBuildReport)
    ) throws -> Int32 {
        let account = DataDirectory.defaultAccountID
        let library = MapLibrary(store: data.store)
        let record = try reserve(library, code: givenCode, name: name, accountID: account, in: data)
        let code = record.code

        let tty = isatty(STDERR_FILENO) == 1
        let started = Date()
        if tty { printError("map build: \(code) from \(source)") }
        do {
            var (map, report) = try make(
                code, name,
                { stage, fraction in
                    guard tty else { return }
                    let elapsed = String(format: "%.1f", Date().timeIntervalSince(started))
                    let state = fraction >= 1 ? "done" : "\(Int((fraction * 100).rounded()))%"
                    printError("map build: \(stage) \(state) (\(elapsed) s elapsed)")
                })
            map.georeference = georeference
            let mapURL = data.mapFile(code: code)
            try MapFile.write(map, to: mapURL, meshTo: data.meshFile(code: code))
            let built = try library.activate(
                record, file: MapLibrary.commandLineFile(code: code), bytes: fileSize(mapURL) ?? 0)
            print("built \(code) \"\(name)\": \(report)")
            if verbose { for line in report.funnel.lines { print("  \(line)") } }
            print("map file:    \(mapURL.path) (\(built.bytes) bytes)")
            print("point cloud: \(data.meshFile(code: code).path)")
            print("code: \(code)")
            return 0
        } catch {
            library.fail(record, reason: "\(error)")
            if verbose, let funnel = thinFunnel(error) { for line in funnel.lines { print("  \(line)") } }
            throw CommandFailure("map build \(code) failed: \(error)")
        }
    }

    /// A `processing` record under the given (or a fresh) code; a taken code is a command failure.
    static func reserve(
        _ library: MapLibrary, code given: String?, name: String, accountID: String, in data: DataDirectory
    ) throws -> MapRecord {
        do {
            let code = try library.code(given, accountID: accountID)
            return try library.reserve(code: code, name: name, accountID: accountID)
        } catch {
            if case .codeTaken(let code) = error {
                throw CommandFailure("map build: the code \(code) is already taken in \(data.url.path)")
            }
            throw error
        }
    }

    /// The funnel carried by a too-thin-map error, directly or inside an import error.
    static func thinFunnel(_ error: any Error) -> MapBuildFunnel? {
        switch error {
        case MapBuildError.tooThin(_, _, let funnel): return funnel
        case COLMAPImporter.ImportError.build(.tooThin(_, _, let funnel)): return funnel
        default: return nil
        }
    }

    static let importUsage = """
        usage: multiset map import-colmap --model DIR --images DIR [--exclude NAME ...] [--scale S]
                                          [--code MAP_XXXXXXXXXXXX] [--name NAME] [--features orb|sift|rootsift]
                                          [--verbose] [--data DIR]

        Imports a COLMAP model (cameras/images/points3D as .bin or .txt in --model): its cameras and poses
        are kept, features are extracted from the images in --images and the points re-triangulated.
        --exclude leaves images out (repeatable; for leave-one-out evaluation); --scale multiplies the
        model's units into metres (default 1). Every COLMAP camera model (SIMPLE_PINHOLE, PINHOLE,
        SIMPLE_RADIAL, RADIAL, OPENCV, FULL_OPENCV, the fisheye models OPENCV_FISHEYE, SIMPLE_RADIAL_FISHEYE,
        RADIAL_FISHEYE, THIN_PRISM_FISHEYE, RAD_TAN_THIN_PRISM_FISHEYE, and FOV) is honoured per image; each image must be the size
        its camera gives (the images COLMAP saw, not their originals at another size: MAP_BUILD_IMAGE_SIZE).
        --verbose prints the build's funnel (pairs, matches, tracks, points and what each filter dropped),
        also kept in the map file.
        \(FeatureFlag.usage)
        """

    static func importCOLMAP(_ args: inout Arguments, _ words: [String]) throws -> Int32 {
        guard words.count == 1 else {
            throw UsageError("map import-colmap takes no positional arguments\n\(importUsage)")
        }
        guard let model = args.string("model"), let images = args.string("images") else {
            throw UsageError("map import-colmap needs --model and --images\n\(importUsage)")
        }
        let excluded = args.strings("exclude").flatMap { $0.split(separator: ",").map(String.init) }
        let scaleText = args.string("scale") ?? "1"
        let givenCode = args.string("code")
        let givenName = args.string("name")
        let path = args.string("data") ?? ".multiset"
        let georeference = try parseGeoreference(&args)
        let verbose = args.flag("verbose")
        var options = MapBuildOptions()
        options.featureConfig = try FeatureFlag.parse(&args)
        try args.rejectUnknown()
        guard let scale = Double(scaleText), scale > 0, scale.isFinite else {
            throw UsageError("--scale must be a positive number")
        }
        if let givenCode, !isCode(givenCode, prefix: "MAP_") {
            throw UsageError("map import-colmap: --code must be MAP_ followed by 12 uppercase letters or digits")
        }
        let modelURL = URL(fileURLWithPath: model, isDirectory: true),
            imagesURL = URL(fileURLWithPath: images, isDirectory: true)
        let data = try DataDirectory(path: path, requireOwnership: true)
        return try register(
            data: data, givenCode: givenCode, name: givenName ?? modelURL.standardizedFileURL.lastPathComponent,
            source: modelURL.path, georeference: georeference, verbose: verbose
        ) {
            code, name, progress in
            try COLMAPImporter.importModel(
                modelFolder: modelURL, imagesFolder: imagesURL, code: code, name: name, excluding: excluded,
                scale: scale, options: options, progress: progress)
        }
    }

    /// `--geo lat,lon,alt` (WGS-84 degrees, ellipsoidal metres) and `--heading DEG` (bearing of map +Z).
    static func parseGeoreference(_ args: inout Arguments) throws -> Georeference? {
        let geo = args.string("geo")
        let heading = args.string("heading")
        guard let geo else {
            if heading != nil { throw UsageError("--heading needs --geo") }
            return nil
        }
        let v = geo.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 3, abs(v[0]) <= 90, abs(v[1]) <= 180, v.allSatisfy(\.isFinite) else {
            throw UsageError("--geo takes latitude,longitude,altitude (degrees, degrees, metres)")
        }
        guard let h = Double(heading ?? "0"), h.isFinite else { throw UsageError("--heading takes degrees") }
        return Georeference(origin: GeoCoordinate(latitude: v[0], longitude: v[1], altitude: v[2]), headingDegrees: h)
    }

    /// A map or object with this code in the default account.
    static func existing(_ code: String, in data: DataDirectory) throws -> MapRecord? {
        try MapLibrary(store: data.store).record(code, accountID: DataDirectory.defaultAccountID)
    }

    // MARK: list

    static func list(_ args: inout Arguments, _ words: [String]) throws -> Int32 {
        guard words.count == 1 else { throw UsageError("map list takes no positional arguments\n\(listUsage)") }
        let path = args.string("data") ?? ".multiset"
        try args.rejectUnknown()
        let data = try DataDirectory(path: path)
        var records: [MapRecord] = []
        for kind in [MapRecord.Kind.map, .object] {
            records += try data.store.maps(
                accountID: DataDirectory.defaultAccountID, kind: kind, offset: 0, limit: Int(Int32.max)
            ).items
        }
        records.sort { ($0.createdAt, $0.code) < ($1.createdAt, $1.code) }
        for m in records {
            let status = m.status.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
            let kind = m.kind.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)
            let bytes = String(m.bytes)
            let size = String(repeating: " ", count: max(0, 11 - bytes.count)) + bytes
            print("\(m.code)  \(kind)  \(status)  \(size) bytes  \(m.name)")
        }
        if records.isEmpty, isatty(STDOUT_FILENO) == 1 { print("(no maps in \(data.url.path))") }
        return 0
    }

    // MARK: info

    /// What `map info` reports.
    struct Info: Encodable {
        struct Extent: Encodable {
            var min: [Double]
            var max: [Double]
            var size: [Double]
        }
        struct Feature: Encodable {
            var name: String
            var version: Int
            var descriptorBytes: Int
        }
        struct Geo: Encodable {
            var latitude: Double
            var longitude: Double
            var altitude: Double
            var headingDegrees: Double
        }
        struct Mesh: Encodable {
            /// Bytes of the GLB mesh stored in the map file (0 when none).
            var storedBytes: Int
            /// The point-cloud GLB next to the map file, if present.
            var pointCloudFile: String?
        }
        var code: String
        var name: String
        var status: String
        var file: String
        var fileBytes: Int
        var points: Int
        var keyframes: Int
        var observations: Int
        var meanObservationsPerPoint: Double
        /// The keypoint observations' noise per image axis, pixels (`ObservationNoise`; 1 when the map
        /// has too few repeated observations to tell).
        var observationSigmaPixels: Double
        var extent: Extent?
        var featureConfig: Feature
        var georeference: Geo?
        var mesh: Mesh
        /// What each stage of the build kept and dropped (maps built before it was recorded: none).
        var buildFunnel: MapBuildFunnel?
    }

    static func info(_ args: inout Arguments, _ words: [String]) throws -> Int32 {
        guard words.count == 2 else { throw UsageError("map info needs one map code\n\(infoUsage)") }
        let json = args.flag("json")
        let path = args.string("data") ?? ".multiset"
        try args.rejectUnknown()
        let data = try DataDirectory(path: path)
        let (record, url, map) = try load(words[1], from: data)
        let observations = map.keyframes.reduce(0) { $0 + $1.pointIndices.lazy.filter { $0 >= 0 }.count }
        var extent: Info.Extent?
        if let first = map.positions.first {
            var lo = first, hi = first
            for p in map.positions {
                lo = pointwiseMin(lo, p)
                hi = pointwiseMax(hi, p)
            }
            extent = Info.Extent(
                min: [lo.x, lo.y, lo.z], max: [hi.x, hi.y, hi.z], size: [hi.x - lo.x, hi.y - lo.y, hi.z - lo.z])
        }
        let meshURL = data.meshFile(code: record.code)
        let info = Info(
            code: record.code, name: map.name, status: record.status.rawValue, file: url.path,
            fileBytes: fileSize(url) ?? 0, points: map.pointCount, keyframes: map.keyframes.count,
            observations: observations,
            meanObservationsPerPoint: map.pointCount > 0 ? Double(observations) / Double(map.pointCount) : 0,
            observationSigmaPixels: ObservationNoise.sigma(of: map), extent: extent,
            featureConfig: Info.Feature(
                name: map.featureConfig.name, version: map.featureConfig.version, descriptorBytes: map.descriptorBytes),
            georeference: map.georeference.map {
                Info.Geo(
                    latitude: $0.origin.latitude, longitude: $0.origin.longitude, altitude: $0.origin.altitude,
                    headingDegrees: $0.headingDegrees)
            },
            mesh: Info.Mesh(
                storedBytes: map.mesh?.count ?? 0,
                pointCloudFile: FileManager.default.fileExists(atPath: meshURL.path) ? meshURL.path : nil),
            buildFunnel: map.buildFunnel)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(info), as: UTF8.self))
        } else {
            print(describe(info))
        }
        return 0
    }

    static func describe(_ info: Info) -> String {
        func f(_ v: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", v) }
        func v3(_ v: [Double]) -> String { "(" + v.map { f($0) }.joined(separator: ", ") + ")" }
        var lines = [
            "\(info.code)  \(info.name)  [\(info.status)]",
            "  file:          \(info.file) (\(info.fileBytes) bytes)",
            "  points:        \(info.points)",
            "  keyframes:     \(info.keyframes)",
            "  observations:  \(info.observations) (mean \(f(info.meanObservationsPerPoint, 2)) per point, "
                + "noise \(f(info.observationSigmaPixels, 2)) px per axis)",
        ]
        if let e = info.extent {
            lines.append(
                "  extent:        \(v3(e.min)) to \(v3(e.max)) m, size \(f(e.size[0], 2)) × \(f(e.size[1], 2)) × \(f(e.size[2], 2)) m"
            )
        } else {
            lines.append("  extent:        none (no points)")
        }
        let fc = info.featureConfig
        lines.append("  features:      \(fc.name) v\(fc.version), \(fc.descriptorBytes)-byte descriptors")
        if let g = info.georeference {
            lines.append(
                "  georeference:  lat \(f(g.latitude, 7))°, lon \(f(g.longitude, 7))°, h \(f(g.altitude, 2)) m, heading \(f(g.headingDegrees, 2))°"
            )
        } else {
            lines.append("  georeference:  none")
        }
        lines.append(
            "  mesh:          "
                + (info.mesh.storedBytes > 0 ? "stored in the map (\(info.mesh.storedBytes) bytes)" : "none stored"))
        lines.append("  point cloud:   " + (info.mesh.pointCloudFile ?? "none"))
        if let funnel = info.buildFunnel {
            lines.append("  build funnel:")
            for line in funnel.lines { lines.append("    \(line)") }
        }
        return lines.joined(separator: "\n")
    }

    /// The record, file and content of a map or object by code.
    static func load(_ code: String, from data: DataDirectory) throws -> (MapRecord, URL, MapData) {
        guard let record = try existing(code, in: data) else {
            throw CommandFailure("no map \(code) in \(data.url.path)")
        }
        guard record.status == .active || record.status == .inactive else {
            let why = record.failure.isEmpty ? "" : ": \(record.failure)"
            throw CommandFailure("map \(code) is \(record.status.rawValue)\(why)")
        }
        let url = record.file.isEmpty ? data.mapFile(code: record.code) : data.url.appendingPathComponent(record.file)
        do {
            return (record, url, try MapFile.read(from: url))
        } catch {
            throw CommandFailure("cannot read the map file of \(code): \(error)")
        }
    }

    // MARK: export-mesh

    static func exportMesh(_ args: inout Arguments, _ words: [String]) throws -> Int32 {
        guard words.count == 2 else { throw UsageError("map export-mesh needs one map code\n\(exportUsage)") }
        guard let out = args.string("out"), !out.isEmpty else {
            throw UsageError("map export-mesh needs --out FILE.glb or FILE.ply\n\(exportUsage)")
        }
        let path = args.string("data") ?? ".multiset"
        try args.rejectUnknown()
        let outURL = URL(fileURLWithPath: out)
        let ext = outURL.pathExtension.lowercased()
        guard ext == "glb" || ext == "ply" else {
            throw UsageError("map export-mesh: --out must end in .glb or .ply, got '\(out)'")
        }
        let data = try DataDirectory(path: path)
        let (_, _, map) = try load(words[1], from: data)
        let bytes: [UInt8]
        let what: String
        if ext == "glb" {
            if let mesh = map.mesh {
                bytes = mesh
                what = "stored mesh"
            } else {
                bytes = GLB.pointCloud(positions: map.positions, colors: map.colors)
                what = "point cloud, \(map.pointCount) points"
            }
        } else {
            bytes = PLY.encode(positions: map.positions, colors: map.colors)
            what = "point cloud, \(map.pointCount) points"
        }
        try MapFile.writeAtomically(bytes, to: outURL)
        print("wrote \(outURL.path) (\(what), \(bytes.count) bytes)")
        return 0
    }

    // MARK: helpers

    static func fileSize(_ url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
    }
}

/// One line to stderr.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
