import Foundation

/// The map meshes (SPEC §11) as their own machine: which are loading, which the scene shows, the
/// user's visibility flag and the recovery hold (meshes hidden after a tracking break until the next
/// fix). Events in, actions out; ``SessionMachine`` forwards to it.
struct MapMeshes: Sendable, Equatable {
    /// What can happen to the meshes.
    enum Event: Sendable {
        /// A fix was accepted for `mapCode`: load its mesh unless it is shown or loading.
        case fixAccepted(mapCode: String, mapSetCode: String?)
        /// The loader finished.
        case loaded(mapCode: String, epoch: Int, Result<MeshPayload, MeshFailure>)
        /// The scene took a new mesh.
        case shown(mapCode: String, epoch: Int)
        /// The scene could not take a mesh (new or replayed).
        case rejected(mapCode: String, epoch: Int, reason: String)
        /// `setMeshVisible(_:)`.
        case setUserVisible(Bool)
        /// A tracking break or a new world frame: hide until the next fix (user flag untouched).
        case holdForRecovery
        /// The next fix after a hold: show again (if the user flag is on).
        case recovered
        /// Remove every mesh; late loads are ignored.
        case clear
    }

    /// The user's flag (`setMeshVisible`, default true).
    private(set) var userVisible = true
    /// A tracking break or background return is waiting for its fix.
    private(set) var recoveryPending = false
    /// Meshes the scene shows (hidden ones included), in load order.
    private(set) var shown: [MapMesh] = []
    /// Codes being fetched or waiting for the scene to take them.
    private(set) var loading: Set<String> = []
    /// Loaded meshes handed to the scene, not yet confirmed.
    private(set) var awaitingScene: [String: MapMesh] = [:]
    /// Bumped by `clear`: loads of an older epoch are ignored.
    private(set) var epoch = 0

    /// A fresh set whose epoch follows `previous` (release).
    init(after previous: MapMeshes? = nil) {
        epoch = (previous?.epoch ?? -1) + 1
    }

    /// Meshes are drawn: the user flag is on and no recovery is pending.
    var isVisible: Bool { userVisible && !recoveryPending }

    /// Applies one event; `meshVisualization` is the config's flag, `revealCenter` the camera position the
    /// reveal starts from.
    mutating func handle(
        _ event: Event, meshVisualization: Bool, revealCenter: SIMD3<Float>
    ) -> [SessionAction] {
        var out: [SessionAction] = []
        switch event {
        case .fixAccepted(let code, let set):
            guard meshVisualization, !code.isEmpty, !shown.contains(where: { $0.mapCode == code }),
                !loading.contains(code)
            else { break }
            loading.insert(code)
            out.append(.loadMapMesh(MeshRequest(mapCode: code, mapSetCode: set, epoch: epoch)))
        case .loaded(let code, let e, let result):
            guard e == epoch, loading.contains(code) else { break }
            switch result {
            case .success(let payload):
                guard meshVisualization, !shown.contains(where: { $0.mapCode == code }) else {
                    loading.remove(code)
                    break
                }
                // Still loading until the scene confirms it took the mesh.
                let mesh = MapMesh(mapCode: code, glb: payload.glb, model: payload.model, localPose: payload.localPose)
                awaitingScene[code] = mesh
                out.append(
                    .scene(.addMapMesh(mesh, visible: isVisible, revealCenter: revealCenter, epoch: e, replay: false)))
            case .failure(let failure):
                loading.remove(code)
                out.append(.callback(.meshLoadError(Messages.meshFailed(failure.reason))))
            }
        case .shown(let code, let e):
            guard e == epoch, let mesh = awaitingScene.removeValue(forKey: code) else { break }
            loading.remove(code)
            shown.append(mesh)
            out.append(.callback(.meshLoaded(code)))
        case .rejected(let code, let e, let reason):
            guard e == epoch else { break }
            if awaitingScene.removeValue(forKey: code) != nil {
                loading.remove(code)
            } else if let index = shown.firstIndex(where: { $0.mapCode == code }) {
                shown.remove(at: index)
            } else {
                break
            }
            out.append(.callback(.meshLoadError(Messages.meshFailed(reason))))
        case .setUserVisible(let v):
            userVisible = v
            if !shown.isEmpty { out.append(.scene(.setMapMeshesVisible(isVisible))) }
        case .holdForRecovery:
            let wasVisible = isVisible
            recoveryPending = true
            if !shown.isEmpty && wasVisible { out.append(.scene(.setMapMeshesVisible(false))) }
        case .recovered:
            guard recoveryPending else { break }
            recoveryPending = false
            if !shown.isEmpty && isVisible { out.append(.scene(.setMapMeshesVisible(true))) }
        case .clear:
            out.append(.scene(.removeAllMapMeshes))
            shown.removeAll()
            loading.removeAll()
            awaitingScene.removeAll()
            epoch += 1
        }
        return out
    }

    /// Forgets the recovery hold without touching the scene (a reset clears everything anyway).
    mutating func dropRecoveryHold() { recoveryPending = false }

    /// Scene calls that rebuild the meshes in a newly set scene.
    func replay(revealCenter: SIMD3<Float>) -> [SessionAction] {
        shown.map {
            .scene(.addMapMesh($0, visible: isVisible, revealCenter: revealCenter, epoch: epoch, replay: true))
        }
    }
}
