import Foundation

extension SessionMachine {
    // MARK: Runtime configuration (SPEC §14)

    mutating func updateConfig(_ given: MultiSetConfig, _ context: SessionContext, _ out: inout [SessionAction]) {
        let now = context.now
        guard isInitialized, let old = config else {
            out.append(.log(Messages.updateIgnored))
            return
        }
        var lines: [String] = []
        var c = given.validated { lines.append($0) }
        out += lines.map { .log($0) }
        if c.clientId != old.clientId || c.clientSecret != old.clientSecret || c.baseURL != old.baseURL {
            out.append(.log("updateConfig: clientId, clientSecret and baseURL need release() then initialize; ignored"))
            c.clientId = old.clientId
            c.clientSecret = old.clientSecret
            c.baseURL = old.baseURL
        }
        config = c
        let mapChanged = c.activeMapType != old.activeMapType || c.activeMapCode != old.activeMapCode
        if mapChanged {
            stop(now: now, &out)
            gate.reset()
            mesh(.clear, &out)
            out.append(.scene(.resetMapRoot))
            mapRootPose = nil
            clearFixState()
            startAutoIfNeeded(now: now, &out)
        } else if c.poseConsistencyCheck != old.poseConsistencyCheck {
            gate.reset()
        }
        if !c.backgroundLocalization && old.backgroundLocalization {
            out.append(.cancelTimer(.background))
            backgroundArmed = false
        } else if c.backgroundLocalization && !old.backgroundLocalization {
            if hasLocalized && activity == .idle { armBackground(&out) }
        } else if c.bgLocalizationDurationSeconds != old.bgLocalizationDurationSeconds && backgroundArmed {
            armBackground(&out)
        }
        if !c.relocalization && old.relocalization {
            let inLoop: Bool
            switch activity {
            case .suspended, .retryDue(.relocalization): inLoop = true
            case .running(let run): inLoop = run.kind == .relocalization
            default: inLoop = false
            }
            if inLoop { stop(now: now, &out) }
        }
        if !c.passGeoPose && old.passGeoPose && gpsRunning {
            gpsRunning = false
            out.append(.stopLocationUpdates)
        }
        if !c.meshVisualization && old.meshVisualization { mesh(.clear, &out) }
        if c.objectCodes != old.objectCodes && !old.objectCodes.isEmpty {
            object(.codesChanged, context, &out)
        }
    }
}
