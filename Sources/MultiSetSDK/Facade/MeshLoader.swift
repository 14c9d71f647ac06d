import Foundation
import VPSGeometry

/// Fetches map and object meshes through the API with a disk cache (SPEC §11, §13.2).
final class MeshLoader: @unchecked Sendable {
    private let client: APIClient
    private let cacheDirectory: URL
    private let lock = NSLock()
    private var mapSets: [String: JSONValue] = [:]

    init(client: APIClient, cacheDirectory: URL) {
        self.client = client
        self.cacheDirectory = cacheDirectory
    }

    /// Forgets map sets kept in memory (reset).
    func clearMemory() { lock.withLock { mapSets.removeAll() } }

    /// Loads the mesh of a localized map: local pose (map sets), then the GLB from cache or network.
    func loadMap(_ request: MeshRequest, completion: @escaping @Sendable (Result<MeshPayload, MeshFailure>) -> Void) {
        localPose(request) { [self] poseResult in
            switch poseResult {
            case .failure(let f): completion(.failure(f))
            case .success(let pose):
                getJSON("/vps/map/\(escape(request.mapCode))") { [self] result in
                    switch result {
                    case .failure(let f): completion(.failure(f))
                    case .success(let json):
                        let id = json["_id"]?.string ?? json["id"]?.string ?? request.mapCode
                        let mesh = json["mapMesh"]
                        guard
                            let link = mesh?["rawMesh"]?["meshLink"]?.string.flatMap({ $0.isEmpty ? nil : $0 })
                                ?? mesh?["texturedMesh"]?["meshLink"]?.string.flatMap({ $0.isEmpty ? nil : $0 })
                        else {
                            completion(.failure(MeshFailure(reason: "map has no mesh")))
                            return
                        }
                        fetchGLB(link: link, cacheName: "mesh_cache/\(id).glb") { glb in
                            completion(
                                glb.flatMap { data in
                                    Self.model(data).map { MeshPayload(glb: data, model: $0, localPose: pose) }
                                })
                        }
                    }
                }
            }
        }
    }

    /// Reads a GLB, so a file the scene could not draw fails here with its reason (SPEC §11.5).
    static func model(_ glb: Data) -> Result<GLBModel, MeshFailure> {
        do {
            return .success(try GLBReader.read(glb))
        } catch {
            return .failure(MeshFailure(reason: error.description))
        }
    }

    /// Loads an object's mesh (cached as `object_mesh_cache/<id>.glb`).
    func loadObject(_ code: String, completion: @escaping @Sendable (Result<ObjectMesh, MeshFailure>) -> Void) {
        getJSON("/vps/object/\(escape(code))") { [self] result in
            switch result {
            case .failure(let f): completion(.failure(f))
            case .success(let json):
                let id = json["_id"]?.string ?? code
                guard let link = json["objectMesh"]?["meshLink"]?.string, !link.isEmpty else {
                    completion(.failure(MeshFailure(reason: "object has no mesh")))
                    return
                }
                fetchGLB(link: link, cacheName: "object_mesh_cache/\(id).glb") { glb in
                    completion(
                        glb.flatMap { data in
                            Self.model(data).map { ObjectMesh(objectCode: code, glb: data, model: $0) }
                        })
                }
            }
        }
    }

    private func localPose(
        _ request: MeshRequest, completion: @escaping @Sendable (Result<Pose, MeshFailure>) -> Void
    ) {
        guard let set = request.mapSetCode else {
            completion(.success(.identity))
            return
        }
        let pick: @Sendable (JSONValue) -> Void = { json in
            let entries = json["mapSet"]?["mapSetData"]?.array ?? []
            for entry in entries {
                let base = entry["baseMap"]
                let baseCode = base?["mapCode"]?.string
                let useBase = baseCode != nil
                let map = useBase ? base : entry["map"]
                guard map?["mapCode"]?.string == request.mapCode || map?["_id"]?.string == request.mapCode else {
                    continue
                }
                let rel = useBase ? entry["baseRelativePose"] : entry["relativePose"]
                guard let p = rel?["position"], let r = rel?["rotation"], let x = p["x"]?.double,
                    let y = p["y"]?.double, let z = p["z"]?.double, let qx = r["qx"]?.double,
                    let qy = r["qy"]?.double, let qz = r["qz"]?.double, let qw = r["qw"]?.double
                else { break }
                let left = Rigid3(
                    rotation: Quaternion(x: qx, y: qy, z: qz, w: qw).normalized, translation: Vec3(x, y, z))
                completion(.success(PoseConversion.pose(Handedness.convertFramePose(left))))
                return
            }
            completion(.success(.identity))
        }
        if let cached = lock.withLock({ mapSets[set] }) {
            pick(cached)
            return
        }
        getJSON("/vps/map-set/\(escape(set))") { [self] result in
            switch result {
            case .failure(let f): completion(.failure(f))
            case .success(let json):
                lock.withLock { mapSets[set] = json }
                pick(json)
            }
        }
    }

    private func fetchGLB(
        link: String, cacheName: String, completion: @escaping @Sendable (Result<Data, MeshFailure>) -> Void
    ) {
        let file = cacheDirectory.appendingPathComponent(cacheName)
        if let data = try? Data(contentsOf: file), Self.isGLB(data) {
            completion(.success(data))
            return
        }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let key = link.addingPercentEncoding(withAllowedCharacters: allowed) ?? link
        getJSON("/file?key=\(key)") { [self] result in
            switch result {
            case .failure(let f): completion(.failure(f))
            case .success(let json):
                guard let text = json["url"]?.string, let url = URL(string: text) else {
                    completion(.failure(MeshFailure(reason: "no download URL")))
                    return
                }
                client.download(url) { download in
                    switch download {
                    case .failure(let e): completion(.failure(MeshFailure(reason: Messages.transportError(e).message)))
                    case .success(let r) where r.status != 200:
                        completion(.failure(MeshFailure(reason: "HTTP \(r.status)")))
                    case .success(let r):
                        guard Self.isGLB(r.body) else {
                            completion(.failure(MeshFailure(reason: "not a GLB file")))
                            return
                        }
                        Self.writeAtomically(r.body, to: file)
                        completion(.success(r.body))
                    }
                }
            }
        }
    }

    private func getJSON(_ path: String, completion: @escaping @Sendable (Result<JSONValue, MeshFailure>) -> Void) {
        client.send(method: "GET", path: path, timeout: RequestTimeout.resource, bodySent: {}) { outcome in
            switch outcome {
            case .authenticationLost(let m): completion(.failure(MeshFailure(reason: m)))
            case .transportFailure(let e): completion(.failure(MeshFailure(reason: e.message)))
            case .response(let r) where r.status != 200:
                completion(.failure(MeshFailure(reason: "HTTP \(r.status): \(Messages.serverMessage(r) ?? "")")))
            case .response(let r):
                guard let json = JSONValue.parse(r.body) else {
                    completion(.failure(MeshFailure(reason: Messages.undecodable)))
                    return
                }
                completion(.success(json))
            }
        }
    }

    private func escape(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
            ?? s
    }

    /// True when the data starts with the glTF binary magic.
    static func isGLB(_ data: Data) -> Bool { data.count >= 12 && data.prefix(4) == Data("glTF".utf8) }

    static func writeAtomically(_ data: Data, to file: URL) {
        try? FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? data.write(to: file, options: .atomic)
    }
}
