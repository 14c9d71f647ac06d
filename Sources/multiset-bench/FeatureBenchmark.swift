import Foundation
import MultiSetCommandLine
import VPSFeatures
import VPSGeometry
import VPSImaging
import VPSTestSupport

/// `multiset bench features`: ORB extraction, brute-force ratio matching and the LSH index on
/// seeded synthetic images, which it also writes (PGM, manifest, raw descriptors) for the Python
/// peers (bench/features/peers.py; layout in bench/features/FORMAT.md).
enum FeatureBenchmark {
    static let usage = """
        usage: multiset bench features --data DIR --out FILE [--pairs N] [--index-images N] [--index-queries N]
                                       [--features N] [--repeats N] [--width W] [--height H] [--seed S]
                                       [--lsh-tables N] [--lsh-key-bits N] [--lsh-probe-radius 0|1|2]
                                       [--lsh-bits random|decorrelated]

        Writes N seeded textured image pairs (image and its warp by a known homography) to DIR as PGM
        with DIR/manifest.json, times ORB extraction and ORB brute-force ratio matching (0.8) on them,
        builds a multi-probe LSH index from the ORB descriptors of --index-images more images (plus
        the pair images), measures its recall@1 and speed-up against brute force on --index-queries
        descriptors of the warped images, writes those descriptors to DIR for the peers, and the
        results to FILE (JSON). OpenCV runs single-threaded. Defaults: 10 pairs, 48 index images,
        4000 index queries, 2000 features, 5 repeats (median), 640×480, seed 1, and the index's own
        defaults (8 tables, automatic key bits, probe radius 1).
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let dir = args.string("data"), let out = args.string("out") else {
            throw UsageError("--data and --out are required\n\(usage)")
        }
        let pairCount = try args.int("pairs", default: 10)
        let indexImages = try args.int("index-images", default: 48)
        let indexQueries = try args.int("index-queries", default: 4000)
        let features = try args.int("features", default: 2000)
        let repeats = try args.int("repeats", default: 5)
        let width = try args.int("width", default: 640)
        let height = try args.int("height", default: 480)
        let seed = UInt64(try args.int("seed", default: 1))
        var lshParameters = MultiProbeLSHIndex.Parameters()
        lshParameters.tableCount = try args.int("lsh-tables", default: lshParameters.tableCount)
        lshParameters.probeRadius = try args.int("lsh-probe-radius", default: lshParameters.probeRadius)
        if let bits = args.string("lsh-key-bits") {
            guard let value = Int(bits), (1...24).contains(value) else {
                throw UsageError("--lsh-key-bits expects 1...24")
            }
            lshParameters.keyBits = value
        }
        switch args.string("lsh-bits") ?? "decorrelated" {
        case "random": lshParameters.bitSelection = .random
        case "decorrelated": lshParameters.bitSelection = .decorrelated
        case let other: throw UsageError("--lsh-bits expects random or decorrelated, got '\(other)'")
        }
        try args.rejectUnknown()
        guard pairCount >= 1, indexImages >= 0, indexQueries >= 1, features >= 1, repeats >= 1, width >= 64,
            height >= 64, lshParameters.tableCount >= 1, (0...2).contains(lshParameters.probeRadius)
        else { throw UsageError("counts must be positive, images at least 64×64, probe radius 0...2\n\(usage)") }

        OpenCVRuntime.threadCount = 1
        let directory = URL(fileURLWithPath: dir)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let parameters = ORBParameters(maxFeatures: features)
        let extractor = ORBExtractor(parameters: parameters)
        log("OpenCV \(OpenCVRuntime.version), \(OpenCVRuntime.threadCount) thread, config \(extractor.config)")

        // Setup (untimed): images, warps, manifest.
        var rng = SplitMix64(seed: seed)
        var pairs: [(a: GrayImage, b: GrayImage, homography: Mat3, names: (String, String))] = []
        var manifestPairs: [[String: Any]] = []
        for i in 0..<pairCount {
            let a = TexturedImages.make(width: width, height: height, seed: rng.next())
            let h = TexturedImages.randomHomography(width: width, height: height, using: &rng)
            let b = TexturedImages.warp(a, by: h)
            let names = (String(format: "pair%03ld_a.pgm", i), String(format: "pair%03ld_b.pgm", i))
            try Data(TexturedImages.pgm(a)).write(to: directory.appendingPathComponent(names.0))
            try Data(TexturedImages.pgm(b)).write(to: directory.appendingPathComponent(names.1))
            pairs.append((a, b, h, names))
            manifestPairs.append(["a": names.0, "b": names.1, "homography": rowMajor(h)])
        }

        // ORB extraction, median of `repeats` per image.
        var imageRows: [[String: Any]] = []
        var sets: [String: FeatureSet] = [:]
        for pair in pairs {
            for (image, name) in [(pair.a, pair.names.0), (pair.b, pair.names.1)] {
                var times: [Double] = []
                var set = FeatureSet(emptyFor: extractor.config)
                for _ in 0..<repeats {
                    let start = DispatchTime.now().uptimeNanoseconds
                    set = try extractor.extract(from: image)
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
                sets[name] = set
                imageRows.append(["name": name, "extract_ms": median(times), "keypoints": set.count])
            }
        }

        // Brute-force Hamming 2-NN + ratio test (0.8), median of `repeats` per pair.
        var pairRows: [[String: Any]] = []
        for pair in pairs {
            guard let a = sets[pair.names.0]?.descriptors.binary, let b = sets[pair.names.1]?.descriptors.binary,
                let ka = sets[pair.names.0]?.keypoints, let kb = sets[pair.names.1]?.keypoints
            else { throw BenchError("missing features for \(pair.names.0)") }
            var knnTimes: [Double] = []
            for _ in 0..<repeats {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = BruteForceMatcher.nearest(a, in: b, k: 2)
                knnTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            var times: [Double] = []
            var matches: [Match] = []
            for _ in 0..<repeats {
                let start = DispatchTime.now().uptimeNanoseconds
                matches = BruteForceMatcher.match(a, b, criteria: MatchCriteria(ratio: 0.8))
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            let inliers = matches.filter { m in
                let p = ka[Int(m.query)], q = kb[Int(m.train)]
                guard let mapped = TexturedImages.apply(pair.homography, Vec2(Double(p.x), Double(p.y))) else {
                    return false
                }
                return (mapped - Vec2(Double(q.x), Double(q.y))).norm < 2
            }.count
            pairRows.append([
                "a": pair.names.0, "b": pair.names.1, "match_ms": median(times), "knn_ms": median(knnTimes),
                "matches": matches.count,
                "inliers_2px": matches.isEmpty ? 0 : Double(inliers) / Double(matches.count),
            ])
        }

        // Index: ORB descriptors of more images plus the pair images; queries from the warps.
        var train = BinaryDescriptors()
        for pair in pairs { if let d = sets[pair.names.0]?.descriptors.binary { train.append(contentsOf: d) } }
        for _ in 0..<indexImages {
            let image = TexturedImages.make(width: width, height: height, seed: rng.next())
            if let d = try extractor.extract(from: image).descriptors.binary { train.append(contentsOf: d) }
        }
        var queries = BinaryDescriptors()
        for pair in pairs { if let d = sets[pair.names.1]?.descriptors.binary { queries.append(contentsOf: d) } }
        var order = Array(0..<queries.count)
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, rng.nextInt(below: i + 1)) }
        queries = queries.subset(order.prefix(min(indexQueries, queries.count)))
        try writeDescriptors(train, to: directory.appendingPathComponent("index_train.u8"))
        try writeDescriptors(queries, to: directory.appendingPathComponent("index_queries.u8"))

        let buildStart = DispatchTime.now().uptimeNanoseconds
        let index = MultiProbeLSHIndex(train, parameters: lshParameters)
        let buildMs = Double(DispatchTime.now().uptimeNanoseconds - buildStart) / 1e6
        let evaluation = IndexEvaluation(index: index, queries: queries)
        let indexRow: [String: Any] = [
            "method": "ours-lsh", "descriptors": train.count, "queries": queries.count, "build_ms": buildMs,
            "query_ms": evaluation.indexSeconds * 1e3, "brute_force_ms": evaluation.bruteForceSeconds * 1e3,
            "speed_up": evaluation.speedUp, "recall_at_1": evaluation.recallAt1,
            "ratio_matches": evaluation.ratioMatchCount ?? 0, "ratio_match_recall": evaluation.ratioMatchRecall ?? 0,
            "distances_per_query": evaluation.meanDistanceComputations,
            "parameters": [
                "tables": lshParameters.tableCount, "key_bits": index.keyBits,
                "probe_radius": lshParameters.probeRadius,
            ],
        ]
        log(
            String(
                format: "LSH over %ld descriptors, %ld queries: recall@1 %.3f (ratio matches %.3f), %.1fx faster",
                train.count, queries.count, evaluation.recallAt1, evaluation.ratioMatchRecall ?? 0, evaluation.speedUp)
                + " than brute force")

        let manifest: [String: Any] = [
            "width": width, "height": height, "seed": Int(seed), "repeats": repeats,
            "orb": [
                "nfeatures": parameters.maxFeatures, "scaleFactor": Double(parameters.scaleFactor),
                "nlevels": parameters.levelCount, "edgeThreshold": parameters.edgeThreshold,
                "fastThreshold": parameters.fastThreshold, "patchSize": parameters.patchSize,
            ],
            "ratio": 0.8, "pairs": manifestPairs,
            "index": [
                "train": "index_train.u8", "queries": "index_queries.u8", "train_count": train.count,
                "query_count": queries.count, "tables": lshParameters.tableCount, "key_bits": index.keyBits,
                "probe_radius": lshParameters.probeRadius,
            ],
        ]
        try json(manifest).write(to: directory.appendingPathComponent("manifest.json"), options: .atomic)
        let result: [String: Any] = [
            "implementation": "ours", "opencv": OpenCVRuntime.version, "config": extractor.config.identifier,
            "images": imageRows, "pairs": pairRows, "index": [indexRow],
        ]
        try json(result).write(to: URL(fileURLWithPath: out), options: .atomic)
        let extract = median(imageRows.compactMap { $0["extract_ms"] as? Double })
        let match = median(pairRows.compactMap { $0["match_ms"] as? Double })
        log(String(format: "ours: ORB extract median %.2f ms, BF ratio match median %.2f ms", extract, match))
        return 0
    }

    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    static func rowMajor(_ m: Mat3) -> [Double] {
        [m.r0.x, m.r0.y, m.r0.z, m.r1.x, m.r1.y, m.r1.z, m.r2.x, m.r2.y, m.r2.z]
    }

    /// Raw OpenCV-order rows of 32 bytes (the little-endian packing of `BinaryDescriptors`).
    static func writeDescriptors(_ d: BinaryDescriptors, to url: URL) throws {
        var bytes = [UInt8]()
        bytes.reserveCapacity(d.words.count * 8)
        for w in d.words {
            for b in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: w >> (8 * UInt64(b)))) }
        }
        try Data(bytes).write(to: url, options: .atomic)
    }

    static func json(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
    }

    static func log(_ message: String) {
        FileHandle.standardError.write("\(message)\n".data(using: .utf8)!)
    }
}
