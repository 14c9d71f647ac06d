import Foundation

extension SessionMachine {
    // MARK: Tracking signals (SPEC §4.6, §9.8, §10)

    mutating func trackingSignal(_ signal: TrackingSignal, _ context: SessionContext, _ out: inout [SessionAction]) {
        let change = host.track(signal)
        if let state = change.stateChanged { out.append(.callback(.trackingStateChanged(state))) }
        if change.isWorldOriginReset {
            worldOriginReset(context, &out)
        } else if change.isLoss, fixInWorld {
            gate.markStale()
            if change.wasTracking { trackingBreak(context, &out) }
        }
        if change.isNormal {
            normalTracking(afterLoss: change.isNormalAfterLoss, context, &out)
        } else if activity == .autoDelay {
            out.append(.cancelTimer(.autoStart))
            activity = .autoArmed
        }
    }

    private mutating func normalTracking(afterLoss: Bool, _ context: SessionContext, _ out: inout [SessionAction]) {
        switch activity {
        case .suspended:
            if host.appActive && isAuthenticated { startRun(.relocalization, escalation: false, context, &out) }
        case .autoArmed:
            if host.appActive {
                activity = .autoDelay
                out.append(.schedule(.autoStart, after: 1.5))
            }
        default:
            break
        }
        if afterLoss { object(.trackingRestoredAfterLoss, context, &out) }
    }

    /// A tracking break after a fix in this world frame (SPEC §10.1).
    private mutating func trackingBreak(_ context: SessionContext, _ out: inout [SessionAction]) {
        guard config?.relocalization == true, isAuthenticated else { return }
        cancelRunAndTimers(now: context.now, &out)
        mesh(.holdForRecovery, &out)
        activity = .suspended
    }

    /// A new world frame (SPEC §9.8): the gate forgets everything; after a fix this is a tracking break.
    mutating func worldOriginReset(_ context: SessionContext, _ out: inout [SessionAction]) {
        gate.reset()
        lastCapturedFrameTime = nil
        out.append(.log("world origin reset: gate state discarded"))
        guard fixInWorld else { return }
        fixInWorld = false
        if config?.relocalization == true && isAuthenticated {
            cancelRunAndTimers(now: context.now, &out)
            mesh(.holdForRecovery, &out)
            activity = .suspended
            if host.isTrackingNormal && host.appActive {
                startRun(.relocalization, escalation: false, context, &out)
            }
        } else {
            mesh(.holdForRecovery, &out)
            // Nothing will recover this world frame on its own: its first fix is a first fix again, so
            // auto-localization and the first-until-success retries apply (D4: an AR screen opened again).
            retries.newWorldFrame()
        }
    }

    // MARK: App activity (SPEC §10.3)

    mutating func appActive(_ active: Bool, _ context: SessionContext, _ out: inout [SessionAction]) {
        switch host.setAppActive(active) {
        case .none:
            return
        case .becameInactive:
            if let run = currentRun {
                out.append(.cancelQuery(runID: run.id))
                endRun(run, now: context.now, &out)
            }
            finishAttempt(.cancelled, &out)
            for kind in [TimerKind.capture, .retry, .autoStart] { out.append(.cancelTimer(kind)) }
            object(.appInactive, context, &out)
            activity = .idle
        case .becameActive:
            gate.reset()
            lastCapturedFrameTime = nil
            fixInWorld = false
            out.append(.log("returned from background: new world frame"))
            if hasLocalized {
                mesh(.holdForRecovery, &out)
                if config?.relocalization == true && isAuthenticated {
                    cancelRunAndTimers(now: context.now, &out)
                    activity = .suspended
                    if host.isTrackingNormal { startRun(.relocalization, escalation: false, context, &out) }
                } else {
                    retries.newWorldFrame()
                }
            } else {
                startAutoIfNeeded(now: context.now, &out)
            }
        }
    }
}
